/**
 * Prometheus text metrics of the API: requests by route and status, and their durations.
 * In-memory per process; scrape each API process.
 */
import type Koa from 'koa';

export interface Metrics {
  middleware(): Koa.Middleware;
  render(): string;
}

export function createMetrics(): Metrics {
  const requests = new Map<string, number>();
  const durations = new Map<string, { sum: number; count: number }>();
  const started = Date.now();
  return {
    middleware() {
      return async (ctx, next) => {
        const begin = performance.now();
        try {
          await next();
        } finally {
          const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
          const labels = `method="${ctx.method}",route="${route}",status="${ctx.status}"`;
          requests.set(labels, (requests.get(labels) ?? 0) + 1);
          const key = `method="${ctx.method}",route="${route}"`;
          const d = durations.get(key) ?? { sum: 0, count: 0 };
          d.sum += (performance.now() - begin) / 1000;
          d.count += 1;
          durations.set(key, d);
        }
      };
    },
    render() {
      const lines = [
        '# HELP ledger_http_requests_total API requests by route and status.',
        '# TYPE ledger_http_requests_total counter',
        ...[...requests].map(([labels, n]) => `ledger_http_requests_total{${labels}} ${n}`),
        '# HELP ledger_http_request_duration_seconds Time to answer API requests.',
        '# TYPE ledger_http_request_duration_seconds summary',
        ...[...durations].flatMap(([labels, d]) => [`ledger_http_request_duration_seconds_sum{${labels}} ${d.sum.toFixed(6)}`, `ledger_http_request_duration_seconds_count{${labels}} ${d.count}`]),
        '# HELP ledger_process_uptime_seconds Seconds since the API started.',
        '# TYPE ledger_process_uptime_seconds gauge',
        `ledger_process_uptime_seconds ${((Date.now() - started) / 1000).toFixed(0)}`,
      ];
      return lines.join('\n') + '\n';
    },
  };
}
