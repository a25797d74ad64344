/** What spans may carry: SQL without its values, a JSON-RPC call by its method without its params. */
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RpcTransport } from '@solana/kit';
import { outboundUrlAttributes, tracingFromConfig, withoutLiterals } from '../../src/observability/tracing';
import { tracedRpcTransport } from '../../src/network/traced-rpc-transport';
import { loadConfig } from '../../src/config/config';

describe('withoutLiterals', () => {
  it.each([
    [
      `insert into custody_key (address, sealed_secret) values ('7Bd', 'v2:xa:c7') on conflict do nothing`,
      'insert into custody_key (address, sealed_secret) values (?, ?) on conflict do nothing',
    ],
    [`select * from "a0" where "name" = 'it''s' and "n" = 3 limit 1`, 'select * from "a0" where "name" = ? and "n" = 3 limit 1'],
    [`select E'a\\'b', 'c\\' from t`, 'select ?, ? from t'],
    ['select $tag$secret$tag$, $$x$$, $1 from t', 'select ?, ?, $1 from t'],
    [`update "account" set "webhooks" = '[{"keyValue":"v2:x"}]' where "id" = 'u'`, 'update "account" set "webhooks" = ? where "id" = ?'],
  ])('%s', (sql, expected) => {
    expect(withoutLiterals(sql)).toBe(expected);
  });
});

describe('outboundUrlAttributes', () => {
  it('keeps the origin and hides a path or query that may hold a token', () => {
    expect(outboundUrlAttributes({ origin: 'https://rpc.example', path: '/abc123token/?api-key=SECRET' })).toEqual({
      'url.full': 'https://rpc.example/REDACTED?REDACTED',
      'url.path': 'REDACTED',
      'url.query': '?REDACTED',
    });
    expect(outboundUrlAttributes({ origin: 'http://127.0.0.1:8899', path: '/' })).toEqual({
      'url.full': 'http://127.0.0.1:8899/',
      'url.path': '/',
      'url.query': '',
    });
  });
});

describe('tracedRpcTransport', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  beforeEach(() => exporter.reset());

  it('makes one client span per call, named by the method, without the params or the URL path and query', async () => {
    const fake = (async () => ({ jsonrpc: '2.0', id: 1, result: 'sig' })) as unknown as RpcTransport;
    const transport = tracedRpcTransport(fake, tracer, 'https://rpc.example:8899/path?api-key=SECRET');
    await transport({ payload: { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['SIGNED-BYTES'] } });
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('sendTransaction');
    expect(span.attributes).toEqual({ 'rpc.system': 'jsonrpc', 'rpc.method': 'sendTransaction', 'server.address': 'rpc.example', 'server.port': 8899 });
    expect(JSON.stringify(span.attributes)).not.toMatch(/SECRET|SIGNED-BYTES/);
  });

  it('marks a JSON-RPC error answer and a transport failure as errors', async () => {
    const refused = (async () => ({ jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'preflight' } })) as unknown as RpcTransport;
    await tracedRpcTransport(refused, tracer, 'http://127.0.0.1:8899')({ payload: { method: 'sendTransaction' } });
    const down = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as RpcTransport;
    await expect(tracedRpcTransport(down, tracer, 'http://127.0.0.1:8899')({ payload: { method: 'getSlot' } })).rejects.toThrow('fetch failed');
    const [first, second] = exporter.getFinishedSpans();
    expect(first.attributes['rpc.jsonrpc.error_code']).toBe(-32002);
    expect(first.status.code).toBe(SpanStatusCode.ERROR);
    expect(second.name).toBe('getSlot');
    expect(second.status.code).toBe(SpanStatusCode.ERROR);
  });
});

it('starts nothing when no endpoint is configured: no tracer provider, no instrumentation', async () => {
  expect(await tracingFromConfig(loadConfig({}).tracing)).toBeUndefined();
  const { trace } = await import('@opentelemetry/api');
  expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
  const http = (await import('node:http')).default;
  expect('__wrapped' in http.Server.prototype.emit).toBe(false);
});
