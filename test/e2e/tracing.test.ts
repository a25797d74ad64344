/**
 * Traces as an operator reads them: one write (Create Account with an imported key) is one trace,
 * from the API's HTTP server span through the workflow start, the workflow run, its steps (local
 * activities) and PostgreSQL queries down to the sendTransaction call to the node, every span
 * linked to its parent; and no span carries the private key, the request body or a credential.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { getBase58Decoder } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { startTracing, type Tracing } from '../../src/observability/tracing';
import { forkEm } from '../../src/main/runtime';
import { CustodyKey } from '../../src/db/entities';
import { waitFor } from '../support/wait';

let stack: Stack;
let tracing: Tracing;
const exporter = new InMemorySpanExporter();
beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'ledger-test', exporter, batch: false });
  stack = await startStack({ tracing });
});
afterAll(async () => {
  await stack?.close();
  await tracing?.shutdown();
});

const id = (span: ReadableSpan) => span.spanContext().spanId;

/** The span and its ancestors, nearest first, within the spans exported. */
function ancestry(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((s) => [id(s), s]));
  const chain = [span];
  for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) chain.push(parent);
  return chain;
}

/** The trace as an indented tree of span names (TRACE_DUMP=1 prints it, for docs/traces.md). */
function tree(spans: ReadableSpan[]): string {
  const ids = new Set(spans.map(id));
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of spans
      .filter((s) => (parent ? s.parentSpanId === parent : !s.parentSpanId || !ids.has(s.parentSpanId)))
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])) {
      lines.push(`${'  '.repeat(depth)}${span.name}`);
      walk(id(span), depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

it('follows one write from the HTTP request to the sendTransaction call in one trace', async () => {
  exporter.reset();
  const seed = randomBytes(32);
  const privateKey = getBase58Decoder().decode(seed);
  const created = await stack.call('POST', '/api/v1/accounts', {
    itemData: {
      managed: true,
      privateKeyDetails: { privateKey },
      postTransactionSubmitWebhooks: [
        { endpointUrl: 'http://127.0.0.1:9/hook', apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: 'webhook-credential-123' } },
      ],
    },
  });
  expect(created.status).toBe(201);

  const server = await waitFor(async () => exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /api/v1/accounts'), 10_000);
  expect(server.attributes['http.route']).toBe('/api/v1/accounts');
  const traceId = server.spanContext().traceId;
  // Workflow spans leave the sandbox through a sink once their workflow task completes.
  const inTrace = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  await waitFor(
    async () => (inTrace().some((s) => s.name.startsWith('RunWorkflow:')) && inTrace().some((s) => s.name === 'sendTransaction')) || undefined,
    10_000,
  );
  const spans = inTrace();
  const names = spans.map((s) => s.name);
  if (process.env.TRACE_DUMP) console.log(tree(spans));

  expect(names).toEqual(expect.arrayContaining(['StartWorkflow:ledgerWrite', 'RunWorkflow:ledgerWrite', 'sendTransaction']));
  expect(names.filter((n) => n.startsWith('StartActivity:')).length).toBeGreaterThan(0);
  expect(names.filter((n) => n.startsWith('RunActivity:')).length).toBeGreaterThan(0);
  const queries = spans.filter((s) => s.attributes['db.system'] === 'postgresql');
  expect(queries.length).toBeGreaterThan(0);
  // A step's queries belong to its activity, not only the request's own (authentication) queries.
  expect(queries.some((q) => ancestry(q, spans).some((a) => a.name.startsWith('RunActivity:')))).toBe(true);

  // The node call's ancestors lead, link by link, to the request: activity → its start in the workflow → the run → the client's start → HTTP.
  const send = spans.find((s) => s.name === 'sendTransaction')!;
  expect(send.kind).toBe(SpanKind.CLIENT);
  expect(send.attributes).toMatchObject({ 'rpc.system': 'jsonrpc', 'rpc.method': 'sendTransaction', 'server.address': '127.0.0.1' });
  const chain = ancestry(send, spans);
  expect(chain.map((s) => s.name)).toEqual([
    'sendTransaction',
    'RunActivity:deliver',
    'StartActivity:deliver',
    'RunWorkflow:ledgerWrite',
    'StartWorkflow:ledgerWrite',
    'POST /api/v1/accounts',
  ]);
  // The request's span is the root: the chain ends there, not at a missing parent.
  expect(chain[chain.length - 1]).toBe(server);
  expect(server.parentSpanId).toBeUndefined();

  // No span holds the key (any encoding), the credential, the caller's API key or the key as sealed in the database.
  const row = await forkEm(stack.runtime.orm).findOneOrFail(CustodyKey, { address: created.body.newAccount.onchainId });
  expect(row.sealedSecret).toBeTruthy();
  const attributes = JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events]));
  for (const secret of [privateKey, seed.toString('base64'), seed.toString('hex'), 'webhook-credential-123', stack.apiKey, row.sealedSecret!])
    expect(attributes).not.toContain(secret);
});
