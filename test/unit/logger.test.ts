/** Log lines written inside a traced span carry its trace and span ids; lines outside any span carry none. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
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

describe('the JSON destination', () => {
  it('writes to stdout asynchronously (a request does not wait on its line)', () => {
    const logger = createLogger({ name: 'ledger', level: 'info', format: 'json' });
    const stream = (logger as unknown as Record<symbol, { sync?: boolean; fd?: number }>)[pino.symbols.streamSym];
    expect(stream).toMatchObject({ sync: false, fd: 1 });
  });

  it('leaves no line behind when the process exits right after logging', () => {
    const lines = 5000;
    const script = `
      const { createLogger } = require('./src/observability/logger');
      const logger = createLogger({ name: 'ledger', level: 'info', format: 'json' });
      for (let i = 0; i < ${lines}; i++) logger.info({ i }, 'line');
      logger.fatal('exiting');
      process.exit(1);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.join(__dirname, '../..'), encoding: 'utf8', maxBuffer: 64 << 20 });
    const out = run.stdout.trim().split('\n');
    expect(out).toHaveLength(lines + 1);
    expect(JSON.parse(out[lines - 1]!)).toMatchObject({ i: lines - 1, msg: 'line' });
    expect(JSON.parse(out[lines]!)).toMatchObject({ level: 60, msg: 'exiting' });
  });
});
