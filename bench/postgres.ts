/**
 * The bench's own PostgreSQL server: the machine's PostgreSQL binaries, a fresh cluster in a
 * temporary directory, `pg_stat_statements` preloaded so the bench can count the statements each
 * row issued (the machine's server does not preload it, and preloading needs a restart). Settings
 * as the machine's server has them (shared_buffers 128 MB, autovacuum off, fsync on); trust auth on
 * 127.0.0.1 and a socket in its own directory. Started as the `postgres` user when the bench runs as
 * root (initdb refuses root).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../src/main/ports';

export interface BenchPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  adminUrl: string;
  urlOf(database: string): string;
  stop(): Promise<void>;
}

/** The newest installed PostgreSQL's bin directory (Debian layout), or pg_config's. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    const newest = fs
      .readdirSync(root)
      .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))[0];
    if (newest) return path.join(root, newest, 'bin');
  }
  return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
}

export async function startBenchPostgres(): Promise<BenchPostgres> {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-bench-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  // As root, every command runs as `postgres`, who owns the directory.
  const as = (command: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]);
  const data = path.join(dir, 'data');
  execFileSync(...as(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']), { stdio: 'ignore' });
  const port = await freePort();
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.max': '10000',
    shared_buffers: '128MB',
    max_connections: '200',
    autovacuum: 'off',
    fsync: 'on',
  };
  const [command, args] = as(path.join(bin, 'postgres'), ['-D', data, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])]);
  const server = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  server.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      // SIGINT is the postmaster's fast shutdown; runuser does not pass it on, so it goes to the postmaster's pid.
      let postmaster = server.pid!;
      try {
        postmaster = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || postmaster;
      } catch {
        // Not started far enough to write it.
      }
      process.kill(postmaster, 'SIGINT');
    }
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // Ready when it accepts a connection (the postmaster takes about a second to start).
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ connectionString: adminUrl });
    try {
      await client.connect();
      await client.query('create extension if not exists pg_stat_statements');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (server.exitCode !== null || attempt > 100) {
        await stop();
        throw new Error(`the bench's PostgreSQL did not start: ${(error as Error).message}\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { adminUrl, urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`, stop };
}

/** Statements PostgreSQL executed per database since the last reset, with the most frequent ones. */
export interface StatementCount {
  total: number;
  top: { calls: number; query: string }[];
}

/** Forgets every statement count so far (every database of the server). */
export async function resetStatements(admin: Client): Promise<void> {
  await admin.query('select pg_stat_statements_reset()');
}

/** Statements run in `database` since the last reset (BEGIN and COMMIT count: each is a round trip). */
export async function countStatements(admin: Client, database: string, topN = 12): Promise<StatementCount> {
  const { rows } = await admin.query<{ calls: string; query: string }>(
    `select calls::text, query from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = $1 order by s.calls desc`,
    [database],
  );
  return {
    total: rows.reduce((sum, r) => sum + Number(r.calls), 0),
    top: rows.slice(0, topN).map((r) => ({ calls: Number(r.calls), query: r.query.replace(/\s+/g, ' ') })),
  };
}
