// Runs the official Temporal CLI dev server as a child process and waits until it really serves the namespace.
import { spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort, isPortFree } from '../../src/main/ports';
import { findTemporalCli } from './temporal-cli';

const CONFIG_DIR = path.resolve(__dirname, '../../temporal-config');
export const DYNAMIC_CONFIG_FILE = path.join(CONFIG_DIR, 'dynamic-config.yaml');
export const SEARCH_ATTRIBUTES_FILE = path.join(CONFIG_DIR, 'search-attributes.json');

const HOST = '127.0.0.1';
const DEFAULT_UI_PORT = 8233;
const DEFAULT_READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const OUTPUT_TAIL_LINES = 40;

export interface TemporalDevServerOptions {
  /** Directory for the SQLite file; undefined keeps everything in memory (tests). */
  dataDir?: string;
  /** gRPC port; 0 or undefined picks a free one. */
  port?: number;
  /** Web UI on or off; default on. */
  ui?: boolean;
  /** Web UI port; default 8233 (a free port if 8233 is taken); 0 picks a free one. */
  uiPort?: number;
  namespace?: string;
  readyTimeoutMs?: number;
  /**
   * Run the server in a process group of its own (`npm start`): a Ctrl-C in the terminal then reaches
   * only the launcher, which stops its API and worker first (writes in flight answered) and the server
   * last. Test harnesses leave it in theirs, so a Ctrl-C of the test run stops the server with it.
   */
  ownProcessGroup?: boolean;
  log: (message: string) => void;
}

export interface TemporalDevServer {
  address: string;
  namespace: string;
  uiUrl?: string;
  /** The server's process id. */
  pid: number | undefined;
  close(): Promise<void>;
  /** SIGKILL, as a crash would (fault tests); resolves once the process is gone. */
  kill(): Promise<void>;
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const { log } = options;
  const namespace = options.namespace ?? 'default';
  const cli = await findTemporalCli(log);
  const port = options.port ? options.port : await freePort();
  const uiPort = options.ui === false ? undefined : await chooseUiPort(options.uiPort, log);
  const searchAttributes = readSearchAttributes(SEARCH_ATTRIBUTES_FILE);

  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(port), '--log-level', 'warn'];
  args.push(...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (options.dataDir) {
    await fs.mkdir(options.dataDir, { recursive: true });
    // WAL + synchronous=NORMAL: ~45-50 workflows/s instead of ~1/s with SQLite's default rollback journal.
    args.push('--db-filename', path.join(options.dataDir, 'temporal.sqlite'));
    args.push('--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=NORMAL');
  }
  // "default" is always created; naming it again would be a duplicate.
  if (namespace !== 'default') args.push('--namespace', namespace);
  for (const [key, value] of Object.entries(readDynamicConfigValues(DYNAMIC_CONFIG_FILE))) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  for (const [name, type] of Object.entries(searchAttributes)) args.push('--search-attribute', `${name}=${type}`);

  const started = Date.now();
  const server = spawnServer(cli.path, args, log, options.ownProcessGroup);
  const address = `${HOST}:${port}`;
  try {
    await waitUntilReady(address, namespace, Object.keys(searchAttributes), server, options.readyTimeoutMs);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const uiUrl = uiPort === undefined ? undefined : `http://${HOST}:${uiPort}`;
  const where = options.dataDir ? path.join(options.dataDir, 'temporal.sqlite') : 'in memory';
  log(`Temporal dev server ready at ${address} (namespace ${namespace}, ${where}${uiUrl ? `, UI ${uiUrl}` : ''}) in ${Date.now() - started} ms`);
  return { address, namespace, uiUrl, pid: server.pid, close: server.stop, kill: server.kill };
}

interface ServerProcess {
  pid: number | undefined;
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  outputTail(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * The CLI is a single process (no children). In our process group (the default) a Ctrl-C in the terminal
 * reaches it as well, even when our process dies before calling stop(); in a group of its own
 * (`ownProcessGroup`) only stop() or the exit handler below ends it.
 */
function spawnServer(cliPath: string, args: string[], log: (message: string) => void, ownProcessGroup = false): ServerProcess {
  const child = spawn(cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: ownProcessGroup });
  const lines: string[] = [];
  let forward = true; // shutdown chatter (pollers losing their connection) is kept in the tail only
  const collector = () => {
    let partial = '';
    return (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        if (!line.trim()) continue;
        lines.push(line);
        if (lines.length > OUTPUT_TAIL_LINES) lines.shift();
        if (forward) log(`temporal: ${line}`);
      }
    };
  };
  child.stdout.setEncoding('utf8').on('data', collector());
  child.stderr.setEncoding('utf8').on('data', collector());

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exitedPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    });
    child.on('error', (error) => {
      spawnError = error;
      exit = { code: null, signal: null };
      resolve();
    });
  });

  const signal = (name: NodeJS.Signals) => {
    if (!exit) child.kill(name);
  };
  // If our process exits without calling stop(), do not leave a server behind.
  const onParentExit = () => signal('SIGKILL');
  process.once('exit', onParentExit);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      forward = false;
      if (!exit) {
        signal('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const graceful = await Promise.race([
          exitedPromise.then(() => true),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS))),
        ]);
        clearTimeout(timer);
        if (!graceful) {
          log(`temporal dev server ignored SIGTERM for ${STOP_GRACE_MS} ms; sending SIGKILL`);
          signal('SIGKILL');
          await exitedPromise;
        }
      }
      process.removeListener('exit', onParentExit);
    })();
    return stopping;
  };
  return {
    pid: child.pid,
    exited: () => exit,
    outputTail: () => (spawnError ? `${spawnError.message}\n` : '') + lines.join('\n'),
    stop,
    async kill() {
      forward = false;
      signal('SIGKILL');
      await exitedPromise;
      process.removeListener('exit', onParentExit);
    },
  };
}

/** Ready means: the frontend answers, the namespace exists and our search attributes are registered. */
async function waitUntilReady(
  address: string,
  namespace: string,
  searchAttributeNames: string[],
  server: ServerProcess,
  timeoutMs = DEFAULT_READY_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'not polled yet';
  for (;;) {
    const exit = server.exited();
    if (exit) {
      throw new Error(`Temporal dev server exited before it was ready (code ${exit.code}, signal ${exit.signal}). Output:\n${server.outputTail()}`);
    }
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: '1s' });
      await connection.workflowService.describeNamespace({ namespace });
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      const missing = searchAttributeNames.filter((name) => !customAttributes?.[name]);
      if (missing.length === 0) return;
      lastError = `search attributes not registered yet: ${missing.join(', ')}`;
    } catch (error) {
      lastError = (error as Error).message;
    } finally {
      await connection?.close();
    }
    if (Date.now() > deadline) {
      throw new Error(`Temporal dev server at ${address} not ready after ${timeoutMs} ms (last error: ${lastError}). Output:\n${server.outputTail()}`);
    }
    await sleep(100);
  }
}

async function chooseUiPort(requested: number | undefined, log: (message: string) => void): Promise<number> {
  if (requested === 0) return freePort();
  if (requested !== undefined) return requested; // explicit: the CLI fails clearly if it is taken
  if (await isPortFree(DEFAULT_UI_PORT)) return DEFAULT_UI_PORT;
  const port = await freePort();
  log(`Port ${DEFAULT_UI_PORT} is taken; the Temporal Web UI uses ${port}`);
  return port;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Reads the unconstrained values of a Temporal dynamic config YAML file, the subset the dev server's
 * `--dynamic-config-value KEY=JSON` flag can express. Anything else (constraints, several values, nested
 * values) is refused rather than silently dropped.
 */
export function readDynamicConfigValues(file: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  let key: string | undefined;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.replace(/\s+#.*$/, '').trimEnd();
      const where = `${file}:${index + 1}`;
      if (!line.trim() || line.trimStart().startsWith('#')) return;
      const keyMatch = /^([A-Za-z][\w.-]*):$/.exec(line);
      const valueMatch = /^\s+-\s+value:\s*(.+)$/.exec(line);
      if (keyMatch) {
        key = keyMatch[1];
      } else if (valueMatch && key !== undefined) {
        if (key in values) throw new Error(`${where}: ${key} has several values; the dev server takes one`);
        try {
          values[key] = JSON.parse(valueMatch[1]);
        } catch {
          throw new Error(`${where}: value of ${key} is not a JSON scalar: ${valueMatch[1]}`);
        }
      } else if (!/^\s+constraints:\s*\{\s*\}$/.test(line)) {
        throw new Error(`${where}: unsupported line for the dev server (only unconstrained values): ${line.trim()}`);
      }
    });
  return values;
}

const SEARCH_ATTRIBUTE_TYPES = ['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'];

/** Reads `{ "Name": "Keyword", ... }`. */
export function readSearchAttributes(file: string): Record<string, string> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const [name, type] of Object.entries(parsed)) {
    if (typeof type !== 'string' || !SEARCH_ATTRIBUTE_TYPES.includes(type)) {
      throw new Error(`${file}: ${name} has unknown search attribute type ${String(type)}`);
    }
  }
  return parsed as Record<string, string>;
}
