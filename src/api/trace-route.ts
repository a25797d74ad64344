/**
 * Names a request's server span (made by instrumentation-http) by its route pattern, as
 * instrumentation-koa would: `POST /api/v1/accounts`, `GET /api/v1/accounts/:id`. Written here
 * because instrumentation-koa supports Koa 2 only (this is Koa 3) and its require hook never sees
 * modules loaded by jest; the span carries the route, never an id from the path.
 */
import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type Koa from 'koa';

export function traceRoute(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      const metadata = getRPCMetadata(context.active());
      if (route && metadata?.type === RPCType.HTTP) metadata.route = route;
    }
  };
}
