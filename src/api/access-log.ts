/**
 * The access log (pino-http): one line per request when it ends, with the request id (the one in
 * x-request-id), method, route, status, time taken, and the caller's organization and error code
 * when there are. Headers are not logged: they carry API keys.
 */
import type Koa from 'koa';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../observability/logger';
import type { LedgerContext } from './context';

interface Logged {
  route?: string;
  organization?: string;
  errorCode?: string;
}
/** What the request's line adds, kept beside the request until pino-http writes the line. */
const logged = new WeakMap<object, Logged>();

export function accessLog(logger: Logger): Koa.Middleware {
  const http = pinoHttp({
    logger,
    genReqId: (_req, res) => String(res.getHeader('x-request-id') ?? ''),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customProps: (req) => ({ ...(logged.get(req) ?? {}) }),
    quietReqLogger: true,
  });
  return async (ctx: LedgerContext, next) => {
    http(ctx.req, ctx.res);
    try {
      await next();
    } finally {
      const errors = (ctx.body as { errors?: { code?: string }[] } | undefined)?.errors;
      logged.set(ctx.req, {
        route: (ctx as { _matchedRoute?: string })._matchedRoute,
        organization: ctx.state.caller?.organizationExternalId,
        errorCode: Array.isArray(errors) ? errors[0]?.code : undefined,
      });
    }
  };
}
