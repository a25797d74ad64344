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

export function createApp(deps: ApiDeps, log: (msg: string, err?: unknown) => void = () => {}): Koa {
  const app = new Koa({ proxy: false });
  const metrics = createMetrics();
  let openApi: unknown;
  const routes: RouteSpec[] = apiRoutes(deps, (): unknown => (openApi ??= buildOpenApi(routes, deps.platformName)), () => metrics.render());
  const router = new Router();
  mountRoutes(router, routes, deps);

  app.use(metrics.middleware());
  app.use(requestId());
  app.use(errorBody(log));
  app.use(checkRequestId());
  app.use(losslessJson());
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true, notImplemented: () => new LedgerError('NOT_FOUND', 'no such route'), methodNotAllowed: () => new LedgerError('NOT_FOUND', 'method not allowed on this route') }));
  app.use(async () => {
    throw new LedgerError('NOT_FOUND', 'no such route');
  });
  app.silent = true;
  return app;
}

/** Every route, in the order they are mounted and documented. Declaring them reads no dependency: handlers do. */
export function apiRoutes(deps: ApiDeps, openApi: () => unknown, metrics: () => string): RouteSpec[] {
  const business: RouteSpec[] = [...accountRoutes(deps), ...financialInstrumentRoutes(deps), ...positionRoutes(deps), ...positionHistoryRoutes(deps), ...transactionRoutes(deps), ...signatureRoutes(deps), ...webhookDeliveryRoutes(deps), ...approvalRoutes(deps), ...fileRoutes(deps), ...addressLookupTableRoutes(deps), ...durableNonceAccountRoutes(deps), ...loanRoutes(deps)];
  return [...systemRoutes(deps, openApi, metrics), ...business];
}

/** The OpenAPI document without a running service (tests, tools): the routes' declarations are all it needs. */
export function openApiDocument(platformName: string): Record<string, unknown> {
  const declarationsOnly = { platformName } as Pick<ApiDeps, 'platformName'>;
  return buildOpenApi(apiRoutes(declarationsOnly as ApiDeps, () => ({}), () => ''), platformName);
}
