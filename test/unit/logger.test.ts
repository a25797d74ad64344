/** Log lines written inside a traced span carry its trace and span ids; lines outside any span carry none. */
import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { createLogger } from '../../src/observability/logger';

// A provider and context manager of this file's own, without the service's instrumentations (they
// patch node:http for the whole worker); both are taken away again.
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider());
});
afterAll(() => {
  trace.disable();
  context.disable();
});

it('puts the active span on each JSON line, as trace_id, span_id and trace_flags', () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const logger = createLogger({ name: 'ledger', level: 'info', format: 'json', destination });
  logger.info('before');
  const ids = trace.getTracer('logger-test').startActiveSpan('write', (span) => {
    logger.info('inside');
    span.end();
    return span.spanContext();
  });
  logger.info('after');

  expect(lines.map((l) => l.msg)).toEqual(['before', 'inside', 'after']);
  expect(lines[1]).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId, trace_flags: '01' });
  for (const line of [lines[0], lines[2]]) expect(line).not.toHaveProperty('trace_id');
});
