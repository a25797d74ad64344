/**
 * Configured as an operator does (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME), a write's spans
 * reach an OTLP/HTTP receiver, a collector stand-in on 127.0.0.1, as one linked trace.
 */
import http from 'node:http';
import { startStack, type Stack } from '../support/stack';
import { loadConfig } from '../../src/config/config';
import { tracingFromConfig, type Tracing } from '../../src/observability/tracing';
import { waitFor } from '../support/wait';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const exports: { path: string; contentType?: string; body: OtlpExport }[] = [];
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    exports.push({ path: request.url ?? '', contentType: request.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let stack: Stack;
let tracing: Tracing | undefined;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as { port: number };
  const config = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: 'ledger-otlp-test' });
  tracing = await tracingFromConfig(config.tracing);
  stack = await startStack({ tracing });
});
afterAll(async () => {
  await stack?.close();
  await tracing?.shutdown();
  receiver.close();
});

const spansOf = (name: string) =>
  exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))).filter((s) => s.name === name);

it('exports the spans of a write to the configured OTLP endpoint', async () => {
  expect(tracing).toBeDefined();
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.01 } } });
  expect(created.status).toBe(201);
  // Batched: they leave within the batch delay (5 s).
  await waitFor(async () => spansOf('sendTransaction').length > 0 && spansOf('RunWorkflow:ledgerWrite').length > 0, 20_000);

  expect(exports.every((e) => e.path === '/v1/traces' && e.contentType === 'application/json')).toBe(true);
  const services = exports.flatMap((e) =>
    e.body.resourceSpans.flatMap((r) => r.resource.attributes.filter((a) => a.key === 'service.name').map((a) => a.value.stringValue)),
  );
  expect(new Set(services)).toEqual(new Set(['ledger-otlp-test']));
  // Linked across the sandbox: the workflow run's parent is the client's start, in the request's trace.
  const [request] = spansOf('POST /api/v1/accounts');
  const [start] = spansOf('StartWorkflow:ledgerWrite');
  const [run] = spansOf('RunWorkflow:ledgerWrite');
  expect(start.parentSpanId).toBe(request.spanId);
  expect(run.parentSpanId).toBe(start.spanId);
  expect(new Set([request, start, run, ...spansOf('sendTransaction')].map((s) => s.traceId))).toEqual(new Set([request.traceId]));
});
