/**
 * `npx tsx bench/anatomy.ts`: where one write's time goes, with nothing else running. Starts the
 * whole service in one process (test/support/stack.ts, on its own Temporal dev server with a WAL
 * SQLite file), then sends Create Account and Transfer (between two managed positions) one at a
 * time and prints, per operation, the medians of: the HTTP latency, each activity's time, the SQL
 * statements (API and worker) and the JSON-RPC calls by method. What the activities do not account
 * for is the engine (workflow tasks and server round trips).
 *
 * Knobs: ANATOMY_WRITES (default 20 per operation), BENCH_BLOCK_TIME_MS (100), ANATOMY_SQL=1 (also
 * print the SQL statements of each operation's last write).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { startTemporalDevServer } from '../dev/temporal/dev-server';
import { installSdkLogger } from '../src/main/worker';
import { startStack } from '../test/support/stack';
import type { Steps } from '../src/activities';

const writes = Number(process.env.ANATOMY_WRITES ?? 20);
const blockTimeMs = Number(process.env.BENCH_BLOCK_TIME_MS ?? 100);

// Counters for the write in flight (writes are sent one at a time, so everything counted is its own).
let sql = 0;
let statements: string[] = [];
const rpc = new Map<string, number>();
const activityMs = new Map<string, number>();

const pgQuery = PgClient.prototype.query;
PgClient.prototype.query = function (this: PgClient, ...args: unknown[]) {
  sql++;
  const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
  statements.push((text ?? '?').replace(/\s+/g, ' ').slice(0, 160));
  return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof PgClient.prototype.query;

let nodeUrl = '';
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (nodeUrl && url.startsWith(nodeUrl) && typeof init?.body === 'string') {
    const method = (JSON.parse(init.body) as { method?: string }).method ?? '?';
    rpc.set(method, (rpc.get(method) ?? 0) + 1);
  }
  return realFetch(input, init);
};

function timed(steps: Steps): Steps {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(steps) as [string, (...a: unknown[]) => Promise<unknown>][]) {
    wrapped[name] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await fn(...args);
      } finally {
        activityMs.set(name, (activityMs.get(name) ?? 0) + performance.now() - started);
      }
    };
  }
  return wrapped as unknown as Steps;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main() {
  installSdkLogger();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-anatomy-'));
  const temporal = await startTemporalDevServer({ dataDir: path.join(workDir, 'temporal'), ui: false, log: () => {} });
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_NAMESPACE = temporal.namespace;
  const stack = await startStack({ wrapSteps: timed, blockTimeMs });
  nodeUrl = stack.node.url;
  try {
    const ok = async (method: string, route: string, body: unknown) => {
      const answer = await stack.call(method, route, body);
      const transaction = answer.body?.svmTransaction ?? answer.body;
      if (answer.status !== 201 || !transaction?.success) throw new Error(`${route}: HTTP ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      return answer.body;
    };
    const authority = (await ok('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } }))
      .newAccount;
    const mint = (
      await ok('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'SPL',
          onchainData: { decimals: 6 },
          mintAuthority: { offchainId: authority.offchainId },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).newFinancialInstrument.onchainId as string;
    const pair: { owner: { offchainId: string }; financialInstrument: { onchainId: string } }[] = [];
    for (let i = 0; i < 2; i++) {
      const owner = (await ok('POST', '/api/v1/accounts', { itemData: { managed: true } })).newAccount;
      const position = { owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } };
      await ok('POST', '/api/v1/positions', { itemData: { positionToInitialize: position } });
      await ok('POST', '/api/v1/positions/mint', { itemData: { mintTo: position, value: { lamports: '1000000000' } } });
      pair.push(position);
    }

    const operations: [string, (n: number) => Promise<unknown>][] = [
      [
        'Create Account',
        () => ok('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: 1_000_000 }, offchainReferences: { type: 'WALLET' } } }),
      ],
      [
        'Transfer between positions',
        (n) =>
          ok('POST', '/api/v1/positions/transfer', {
            itemData: { source: pair[n % 2], destination: pair[(n + 1) % 2], value: { lamports: '1000' }, idempotencyId: randomUUID() },
          }),
      ],
    ];
    console.log(
      `[anatomy] ${os.cpus().length} cores, ${writes} writes per operation one at a time (medians; 2 warm-up writes not counted), block time ${blockTimeMs} ms`,
    );
    for (const [name, send] of operations) {
      const samples: { ms: number; sql: number; rpc: Map<string, number>; activities: Map<string, number> }[] = [];
      for (let n = 0; n < writes + 2; n++) {
        sql = 0;
        statements = [];
        rpc.clear();
        activityMs.clear();
        const started = performance.now();
        await send(n);
        if (n >= 2) samples.push({ ms: performance.now() - started, sql, rpc: new Map(rpc), activities: new Map(activityMs) });
      }
      const activityNames = [...new Set(samples.flatMap((s) => [...s.activities.keys()]))];
      const methods = [...new Set(samples.flatMap((s) => [...s.rpc.keys()]))];
      const inActivities = median(samples.map((s) => [...s.activities.values()].reduce((a, b) => a + b, 0)));
      console.log(
        `\n${name}: ${median(samples.map((s) => s.ms)).toFixed(0)} ms over HTTP, ${inActivities.toFixed(0)} ms in steps, ${median(samples.map((s) => s.sql))} SQL statements`,
      );
      console.log(`  activities: ${activityNames.map((a) => `${a} ${median(samples.map((s) => s.activities.get(a) ?? 0)).toFixed(0)} ms`).join(', ')}`);
      console.log(`  JSON-RPC: ${methods.map((m) => `${m} ×${median(samples.map((s) => s.rpc.get(m) ?? 0))}`).join(', ')}`);
      if (process.env.ANATOMY_SQL) for (const statement of statements) console.log(`    ${statement}`);
    }
  } finally {
    await stack.close();
    await temporal.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
