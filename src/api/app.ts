/** The Koa app: one error middleware at the top, then request id, lossless JSON and the routes. */
import { loanRoutes } from './routes/loans.routes';
import { durableNonceAccountRoutes } from './routes/durable-nonce-accounts.routes';
import Koa from 'koa';
import Router from '@koa/router';
import { LedgerError } from '../domain/errors';
import type { ApiDeps } from './context';
import { checkRequestId, errorBody, losslessJson, requestId } from './middleware';
import { buildOpenApi } from './openapi';
import { createMetrics } from './metrics';
import { accessLog } from './access-log';
import { traceRoute } from './trace-route';
import { mountRoutes, type RouteSpec } from './route';
import { accountRoutes } from './routes/accounts.routes';
import { financialInstrumentRoutes } from './routes/financial-instruments.routes';
import { fileRoutes } from './routes/files.routes';
import { positionRoutes } from './routes/positions.routes';
import { positionHistoryRoutes } from './routes/position-history.routes';
import { systemRoutes } from './routes/system.routes';
import { transactionRoutes } from './routes/transactions.routes';
import { addressLookupTableRoutes } from './routes/address-lookup-tables.routes';
import { webhookDeliveryRoutes } from './routes/webhook-deliveries.routes';
import { approvalRoutes } from './routes/approvals.routes';
import { signatureRoutes } from './routes/signatures.routes';
import { oracleDataSourceRoutes } from './routes/oracle-data-sources.routes';

export function createApp(deps: ApiDeps, log: (msg: string, err?: unknown) => void = () => {}): Koa {
  // ctx.ip (the unknown-key rate limit's key) reads X-Forwarded-For only behind trusted proxies, and then
  // only the entries they appended: the client's own entries could name any address.
  const hops = deps.trustProxyHops ?? 0;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  const metrics = createMetrics();
  let openApi: unknown;
  const routes: RouteSpec[] = apiRoutes(
    deps,
    (): unknown => (openApi ??= buildOpenApi(routes, deps.platformName)),
    () => metrics.render(),
  );
  const router = new Router();
  mountRoutes(router, routes, deps);

  app.use(metrics.middleware());
  if (deps.traceRoutes) app.use(traceRoute());
  app.use(requestId());
  if (deps.logger) app.use(accessLog(deps.logger));
  app.use(errorBody(log));
  app.use(checkRequestId());
  app.use(losslessJson());
  app.use(unmatched());
  app.use(router.routes());
  // A known path with another method: the router answers 405 (501 for a method it has no route for) with Allow.
  app.use(router.allowedMethods());
  app.silent = true;
  return app;
}

/** What no route answered gets the error body: 405/501 from the router (its Allow header kept), else 404. */
function unmatched(): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status === 405 || ctx.status === 501)
      throw new LedgerError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}`);
    if (ctx.status === 404 && ctx.body == null) throw new LedgerError('NOT_FOUND', 'no such route');
  };
}

/** Every route, in the order they are mounted and documented. Declaring them reads no dependency: handlers do. */
export function apiRoutes(deps: ApiDeps, openApi: () => unknown, metrics: () => Promise<string>): RouteSpec[] {
  const families = [
    accountRoutes,
    financialInstrumentRoutes,
    positionRoutes,
    positionHistoryRoutes,
    transactionRoutes,
    signatureRoutes,
    webhookDeliveryRoutes,
    approvalRoutes,
    fileRoutes,
    addressLookupTableRoutes,
    durableNonceAccountRoutes,
    oracleDataSourceRoutes,
    loanRoutes,
  ];
  return [...systemRoutes(deps, openApi, metrics), ...families.flatMap((routes) => routes(deps))];
}

/** The OpenAPI document without a running service (tests, tools): the routes' declarations are all it needs. */
export function openApiDocument(platformName: string): Record<string, unknown> {
  const declarationsOnly = { platformName } as Pick<ApiDeps, 'platformName'>;
  return buildOpenApi(
    apiRoutes(
      declarationsOnly as ApiDeps,
      () => ({}),
      async () => '',
    ),
    platformName,
  );
}
