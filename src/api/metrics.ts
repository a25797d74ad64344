/** The API's request metrics (src/observability/metrics.ts holds them all): one middleware at the top. */
import type Koa from 'koa';
import { httpRequestDuration, httpRequests, registry } from '../observability/metrics';

export interface Metrics {
  middleware(): Koa.Middleware;
  render(): Promise<string>;
  contentType: string;
}

export function createMetrics(): Metrics {
  return {
    middleware() {
      return async (ctx, next) => {
        const stop = httpRequestDuration.startTimer();
        try {
          await next();
        } finally {
          // The route's pattern, not the path: ids in paths would make a series per object.
          const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
          httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
          stop({ method: ctx.method, route });
        }
      };
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
