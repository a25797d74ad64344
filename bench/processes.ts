/** The service's processes for the bench and the chaos run: each entry point in its own Node process. */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface Service {
  url: string;
  pid: number;
  /** The tail of what the process printed (for a failed run). */
  output(): string;
  /** The last error lines it printed (pino levels 50 and 60), kept apart from the chatter. */
  errors(): string;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would; waits for the exit. */
  kill(): Promise<void>;
}

/** The entry points, relative to the repository: the production ones and the development node. */
const entryPoints = { api: 'src/main/api.ts', worker: 'src/main/worker.ts', 'local-node': 'dev/local-node/main.ts' };
export type ServiceName = keyof typeof entryPoints;

/**
 * Starts an entry point with tsx's loader (Node itself, so a signal reaches the service) and waits
 * for `ready`'s line. `root`: the checkout whose code runs (another one for the bench's baseline).
 */
export function spawnService(
  name: ServiceName,
  env: Record<string, string>,
  ready: RegExp,
  nodeArgs: string[] = [],
  root = path.join(__dirname, '..'),
): Promise<Service> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(root, entryPoints[name])], {
    cwd: root,
    env: { ...process.env, ...env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const errorLines: string[] = [];
  let partial = '';
  const keep = (chunk: string) => {
    output = (output + chunk).slice(-100_000);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (/"level":(50|60)/.test(line)) errorLines.push(line.slice(0, 3000));
    errorLines.splice(0, Math.max(0, errorLines.length - 50));
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      keep(chunk.toString());
      const match = ready.exec(output);
      if (!match) return;
      child.stdout!.off('data', onData);
      child.stdout!.on('data', (more: Buffer) => keep(more.toString()));
      child.removeListener('exit', onEarlyExit);
      resolve({
        url: match[1] ?? '',
        pid: child.pid!,
        output: () => output.slice(-4000),
        errors: () => errorLines.join('\n'),
        stop: () => signal('SIGTERM'),
        kill: () => signal('SIGKILL'),
      });
    };
    const onEarlyExit = (code: number | null) => reject(new Error(`${name} exited with ${code}:\n${output.slice(-2000)}`));
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => keep(chunk.toString()));
    child.once('exit', onEarlyExit);
  });
}
