/**
 * Ctrl-C on `npm start`: the terminal sends SIGINT to the launcher's whole process group. The
 * launcher stops its API and worker first, so a write in flight is answered, and the Temporal dev
 * server last; nothing it started is left running. No clock is asserted: the write's answer, the
 * launcher's exit and the server's end are each awaited.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, freePortPair } from '../../src/main/ports';
import { Client } from 'pg';
import { createTestDatabase } from '../support/database';

const ROOT = path.join(__dirname, '../..');

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
let launcher: ChildProcess | undefined;
let database: Client | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'launcher-ctrl-c-'));
});
afterAll(async () => {
  await database?.end().catch(() => undefined);
  if (launcher?.pid && launcher.exitCode === null) process.kill(-launcher.pid, 'SIGKILL');
  for (const pid of temporalServersOf(dataDir)) process.kill(pid, 'SIGKILL');
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The Temporal dev servers keeping their state under `dir` (the launcher's, by its --db-filename). */
function temporalServersOf(dir: string): number[] {
  const lines = execFileSync('ps', ['-ww', '-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes('start-dev') && line.includes(path.join(dir, 'temporal'))).map((line) => Number(line.trim().split(/\s+/)[0]));
}

it('answers the write in flight, stops everything it started and exits 0', async () => {
  const port = await freePort();
  const output: string[] = [];
  // detached: the launcher leads a process group, as a shell's foreground job does.
  launcher = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['dev/launcher.ts'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...launcherEnv(), DATABASE_URL: db.url, DATA_DIR: dataDir, PORT: String(port), LOCAL_NODE_PORT: String(await freePortPair()), LOG_FORMAT: 'json' },
  });
  const exited = new Promise<number | null>((resolve) => launcher!.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output.push(chunk.toString());
      const key = /Bearer (lk_[A-Za-z0-9_-]+)/.exec(output.join(''));
      if (key) resolve(key[1]);
    };
    launcher!.stdout!.on('data', read);
    launcher!.stderr!.on('data', read);
    void exited.then((code) => reject(new Error(`the launcher exited (${code}) before it was ready:\n${output.join('').slice(-3000)}`)));
  });
  const apiKey = await ready;
  expect(temporalServersOf(dataDir)).toHaveLength(1);

  database = new Client({ connectionString: db.url });
  await database.connect();
  const records = async () => Number((await database!.query('select count(*) as n from ledger_transaction')).rows[0].n);
  const before = await records();
  const write = fetch(`http://127.0.0.1:${port}/api/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ itemData: { managed: true, seed: { amount: 0.01 } } }),
  });
  // Ctrl-C once the write runs: its record exists from its limit check on.
  await until(async () => (await records()) > before);
  process.kill(-launcher.pid!, 'SIGINT');

  const answer = await write;
  expect(answer.status).toBe(201);
  expect(await exited).toBe(0);
  expect(temporalServersOf(dataDir)).toEqual([]);
  expect(output.join('')).toContain('SIGINT: stopping');
  // The SDK's own lines go through the JSON log: nothing colored reaches the terminal.
  expect(output.join('')).not.toMatch(/\x1b\[/);
}, 180_000);

/** This process's environment without the harness's Temporal: the launcher starts its own dev server. */
function launcherEnv(): NodeJS.ProcessEnv {
  const { TEMPORAL_ADDRESS: _address, TEMPORAL_NAMESPACE: _namespace, ...env } = process.env;
  return env;
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}
