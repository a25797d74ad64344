/**
 * Logs: pino, one JSON object per line (time, level, name, msg, and the request id, organization
 * and error code of an API request), or pino-pretty lines for a person at a terminal
 * (LOG_FORMAT=pretty; `npm start` uses it unless told otherwise). LOG_LEVEL filters both.
 *
 * JSON lines go to stdout asynchronously (pino's sonic-boom destination, `sync: false`): a request
 * never waits on the write of its line, and lines written while a write is in flight leave together.
 * pino flushes what is buffered when the process exits (process.exit included); a SIGKILL loses at
 * most the lines not written yet.
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';
export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
export type LogFormat = 'json' | 'pretty';

/**
 * The active span's ids on every line logged inside it (tracing on), under the names OpenTelemetry's
 * log data model and its pino instrumentation use, so a log line leads to its trace. Pino's own
 * mixin rather than that instrumentation: it must patch pino before its first import, which the
 * entry points (logging before tracing starts) do not allow.
 */
function traceIds(): Record<string, string> {
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !isSpanContextValid(span)) return {};
  return { trace_id: span.traceId, span_id: span.spanId, trace_flags: `0${span.traceFlags.toString(16)}` };
}

export function createLogger(options: { name: string; level: LogLevel; format: LogFormat; destination?: DestinationStream }): Logger {
  const base = { name: options.name, level: options.level, mixin: traceIds };
  if (options.format === 'json') return pino(base, options.destination ?? pino.destination({ dest: 1, sync: false }));
  return pino(base, pretty({ colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}

/** The `(message) => void` the wiring passes to components that only report progress. */
export const infoLog = (logger: Logger) => (message: string) => logger.info(message);
