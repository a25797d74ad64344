/**
 * Logs: pino, one JSON object per line (time, level, name, msg, and the request id, organization
 * and error code of an API request), or pino-pretty lines for a person at a terminal
 * (LOG_FORMAT=pretty; `npm start` uses it unless told otherwise). LOG_LEVEL filters both.
 */
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';
export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
export type LogFormat = 'json' | 'pretty';

export function createLogger(options: { name: string; level: LogLevel; format: LogFormat }): Logger {
  const base = { name: options.name, level: options.level };
  if (options.format === 'json') return pino(base);
  return pino(base, pretty({ colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}

/** The `(message) => void` the wiring passes to components that only report progress. */
export const infoLog = (logger: Logger) => (message: string) => logger.info(message);
