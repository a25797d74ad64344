// Locates (or obtains) the official Temporal CLI, which carries the dev server and the Web UI.
import { spawn } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** v1.5.1 is the newest tag whose go.mod has no `replace` directive, so it is the newest `go install` can build. */
export const TEMPORAL_CLI_GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
const TEMPORAL_CLI_GO_MODULE = 'github.com/temporalio/cli';

export type TemporalCliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'go-bin' | 'go-install' | 'download';

export interface TemporalCli {
  path: string;
  source: TemporalCliSource;
}

type Log = (message: string) => void;

/**
 * Finds the `temporal` executable: TEMPORAL_CLI_PATH, then PATH, then Go's bin directory, then builds it with
 * `go install` when Go is present, else downloads it the way @temporalio/testing does.
 */
export async function findTemporalCli(log: Log): Promise<TemporalCli> {
  const cli = await locate(log);
  log(`Temporal CLI: ${cli.path} (source: ${cli.source})`);
  return cli;
}

async function locate(log: Log): Promise<TemporalCli> {
  const override = process.env.TEMPORAL_CLI_PATH;
  if (override) {
    if (!(await isExecutable(override))) throw new Error(`TEMPORAL_CLI_PATH=${override} is not an executable file`);
    return { path: override, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = await findOnPath('temporal');
  if (onPath) return { path: onPath, source: 'PATH' };

  const go = (await findOnPath('go')) ?? (await firstExecutable(['/usr/local/go/bin/go']));
  if (go) {
    const binDir = await goBinDir(go);
    const target = path.join(binDir, 'temporal');
    if (await isExecutable(target)) return { path: target, source: 'go-bin' };
    return goInstall(go, binDir, target, log);
  }
  return { path: await downloadWithSdk(log), source: 'download' };
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    await fs.access(file, constants.X_OK);
    return stat.isFile();
  } catch {
    return false;
  }
}

async function firstExecutable(candidates: string[]): Promise<string | undefined> {
  for (const candidate of candidates) if (await isExecutable(candidate)) return candidate;
  return undefined;
}

async function findOnPath(name: string): Promise<string | undefined> {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return firstExecutable(dirs.map((dir) => path.join(dir, name)));
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Where `go install` puts binaries: GOBIN, else the first GOPATH entry's bin. */
async function goBinDir(go: string): Promise<string> {
  const { code, stdout, stderr } = await run(go, ['env', 'GOBIN', 'GOPATH']);
  if (code !== 0) throw new Error(`go env failed: ${stderr.trim()}`);
  const [gobin = '', gopath = ''] = stdout.split('\n').map((line) => line.trim());
  if (gobin) return gobin;
  const first = gopath.split(path.delimiter).find(Boolean);
  return path.join(first ?? path.join(os.homedir(), 'go'), 'bin');
}

async function goInstall(go: string, binDir: string, target: string, log: Log): Promise<TemporalCli> {
  await fs.mkdir(binDir, { recursive: true });
  // The lock sits beside the binary it guards, so launchers sharing a GOBIN build it once.
  return withLockFile(path.join(binDir, '.temporal-cli-install.lock'), log, async () => {
    // Built by whoever held the lock before us.
    if (await isExecutable(target)) return { path: target, source: 'go-bin' } as const;
    log(`Building the Temporal CLI: go install ${TEMPORAL_CLI_GO_PACKAGE} (the first build takes minutes)`);
    const started = Date.now();
    let result = await run(go, ['install', TEMPORAL_CLI_GO_PACKAGE]);
    if (result.code !== 0 && /sum\.golang\.org|checksum database|GOSUMDB/i.test(result.stderr)) {
      // Only this module skips the checksum database; its dependencies are still verified against its go.sum.
      const gonosumdb = [process.env.GONOSUMDB, TEMPORAL_CLI_GO_MODULE].filter(Boolean).join(',');
      log(`The Go checksum database is unreachable; retrying with GONOSUMDB=${gonosumdb}`);
      result = await run(go, ['install', TEMPORAL_CLI_GO_PACKAGE], { ...process.env, GONOSUMDB: gonosumdb });
    }
    if (result.code !== 0) throw new Error(`go install ${TEMPORAL_CLI_GO_PACKAGE} failed:\n${tail(result.stderr, 30)}`);
    if (!(await isExecutable(target))) throw new Error(`go install succeeded but ${target} is missing`);
    log(`Built the Temporal CLI in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { path: target, source: 'go-install' } as const;
  });
}

const LOCK_WAIT_MS = 30 * 60_000;

/**
 * Runs `action` while holding an exclusive lock file (created with O_EXCL, holding our pid). A lock left by a dead
 * process is removed. Two waiters that both find the same stale lock could both proceed; the action re-checks its
 * result first, so the worst case is one redundant build.
 */
async function withLockFile<T>(lockPath: string, log: Log, action: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let announced = false;
  for (;;) {
    try {
      await fs.writeFile(lockPath, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await fs.readFile(lockPath, 'utf8').catch(() => '')).trim());
    if (holder > 0 && !isAlive(holder)) {
      log(`Removing stale lock ${lockPath} (pid ${holder} is gone)`);
      await fs.rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for lock ${lockPath} held by pid ${holder}`);
    if (!announced) log(`Waiting for another process (pid ${holder || '?'}) to finish building the Temporal CLI`);
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  try {
    return await action();
  } finally {
    await fs.rm(lockPath, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * No Go: let @temporalio/testing download the CLI from temporal.download into a cache directory outside the
 * clone. The SDK only downloads as part of starting a dev server, so start one briefly and take the executable
 * it left in the directory.
 */
async function downloadWithSdk(log: Log): Promise<string> {
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const downloadDir = path.join(cacheRoot, 'temporal-cli');
  const cached = await newestExecutable(downloadDir);
  if (cached) return cached;
  await fs.mkdir(downloadDir, { recursive: true });
  log(`Downloading the Temporal CLI through @temporalio/testing into ${downloadDir}`);
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir }, ui: false },
  });
  await env.teardown();
  const downloaded = await newestExecutable(downloadDir);
  if (!downloaded) throw new Error(`@temporalio/testing left no temporal executable in ${downloadDir}`);
  return downloaded;
}

/** The SDK names its download `temporal-<sdk>-<version>`; take the newest complete one. */
async function newestExecutable(dir: string): Promise<string | undefined> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let best: { file: string; mtime: number } | undefined;
  for (const name of names) {
    if (!name.startsWith('temporal-') || name.endsWith('.downloading')) continue;
    const file = path.join(dir, name);
    if (!(await isExecutable(file))) continue;
    const mtime = (await fs.stat(file)).mtimeMs;
    if (!best || mtime > best.mtime) best = { file, mtime };
  }
  return best?.file;
}
