/**
 * `npm run bench`: concurrent writes over HTTP against the whole stack (real PostgreSQL, a Temporal
 * server, and the API, the worker(s) and the local SVM node each in its own process, as in
 * production), then, in the same run and on the same Temporal server, the write workflow with no-op
 * activities in two shapes: today's (one workflow task, started eagerly) and the previous one (two
 * workflow tasks, a regular confirm activity, no eager start). Prints writes/s, p50/p95/p99, errors,
 * the CPU each process spent per write, and the ratios between rows of the same run.
 *
 * Scenarios (BENCH_SCENARIOS, comma-separated, default `create-account,transfer,reads`; both ceilings run with any write scenario):
 * - create-account: Create Account (managed, seeded with 1,000,000 lamports), at BENCH_CONCURRENCY
 *   clients and again at BENCH_SMALL_CONCURRENCY (4) clients for the latency at light load; and,
 *   unless BENCH_FOLLOWER=0, once more while outside senders deposit to subscribed accounts at the
 *   rate the first row wrote: the chain follower's row (bench/deposits.ts: recorded/s, lag).
 * - transfer: Transfer Financial Instrument between managed positions of one SPL instrument. Set up
 *   over HTTP before any timed window: a managed mint authority, the instrument, two managed owners
 *   per client with a position each, and BENCH_MINT_LAMPORTS minted into every position. In the
 *   timed window each client moves small amounts back and forth between its own two positions (no
 *   contention between clients; managed → managed is not debit-limited), each with a fresh
 *   idempotencyId. Afterwards the bench checks that the positions' onchain balances add up to what
 *   was minted (and to the circulating supply) and that every offchain balance equals the onchain
 *   one; it exits non-zero if not.
 * - reads: bulk reads at limit 100 against 1,000,000 transaction records and 100,000 accounts and
 *   positions, walked with cursor paging and, as the baseline, with skip (bench/reads.ts).
 *
 * Temporal: a dev server on a WAL SQLite file (as `npm start` runs it), or the cluster at
 * BENCH_TEMPORAL_ADDRESS (namespace BENCH_TEMPORAL_NAMESPACE, default `ledger`; e.g. the one
 * `temporal-config/cluster/start.sh` runs), where two worker processes run beside the API.
 *
 * BENCH_BASELINE=<git ref>: the previous code's API and worker (bench/baseline.ts: a temporary git
 * worktree, its own database) beside today's in the same run: each write row runs for today's code
 * and then for the baseline's, and the ratios today / baseline are printed.
 *
 * PostgreSQL: a server of the bench's own (bench/postgres.ts) with pg_stat_statements preloaded, so
 * each row prints the SQL statements per write PostgreSQL counted (BEGIN and COMMIT included) and the
 * most frequent ones; BENCH_POSTGRES=machine uses the machine's server at 127.0.0.1:5432 instead
 * (no statement counts unless it preloads pg_stat_statements), as does DATABASE_URL.
 *
 * Knobs: BENCH_SECONDS (default 20), BENCH_CONCURRENCY (16), BENCH_SMALL_CONCURRENCY (4),
 * BENCH_BLOCK_TIME_MS (100), BENCH_COMMITMENT (confirmed), BENCH_TEMPORAL_STORE (file | memory),
 * BENCH_WORKERS (worker processes: 1 on the dev server, 2 on a cluster), BENCH_MINT_LAMPORTS
 * (1000000000000 per position), DATABASE_URL (a fresh database on local PostgreSQL),
 * BENCH_PROFILE (worker | api | local-node: write a CPU profile to /tmp/prof).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { loadConfig, type Config } from '../src/config/config';
import { freePort, freePortPair } from '../src/main/ports';
import { startTemporalDevServer } from '../dev/temporal/dev-server';
import { openRuntime, fundFeePayer, forkEm } from '../src/main/runtime';
import { installSdkLogger, workerTuning } from '../src/main/worker';
import { createApiKey, ensureOrganization } from '../src/custody/credentials';
import { qualifiedRole, roleNames } from '../src/domain/roles';
import { searchAttributeNames, type WriteRequest } from '../src/domain/write';
import { noopActivities } from './noop-activities';
import { spawnService, type Service, type ServiceName } from './processes';
import { cpuPerWrite, groups, sampleCpu, type CpuSample, type Group, type ProcessSample } from './cpu';
import { benchReads, reportReads, type ReadRun } from './reads';
import { fundSenders, withDeposits, type FollowerRun } from './deposits';
import { countStatements, resetStatements, startBenchPostgres, type StatementCount } from './postgres';
import { baselineApiKey, checkoutBaseline } from './baseline';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const smallConcurrency = Number(process.env.BENCH_SMALL_CONCURRENCY ?? 4);
const blockTimeMs = Number(process.env.BENCH_BLOCK_TIME_MS ?? 100);
const commitment = (process.env.BENCH_COMMITMENT ?? 'confirmed') as 'processed' | 'confirmed';
/** file: SQLite with WAL, as `npm start` runs it; memory: the dev server's in-memory store. */
const temporalStore = process.env.BENCH_TEMPORAL_STORE === 'memory' ? 'memory' : 'file';
const clusterAddress = process.env.BENCH_TEMPORAL_ADDRESS;
const clusterNamespace = process.env.BENCH_TEMPORAL_NAMESPACE ?? 'ledger';
const workerCount = Number(process.env.BENCH_WORKERS ?? (clusterAddress ? 2 : 1));
const mintLamports = BigInt(process.env.BENCH_MINT_LAMPORTS ?? 1_000_000_000_000);
/** BENCH_FOLLOWER=0 leaves out the chain follower's row (Create Account again with outside deposits). */
const followerRow = process.env.BENCH_FOLLOWER !== '0';
const baselineRef = process.env.BENCH_BASELINE;
const topStatements = Number(process.env.BENCH_TOP_STATEMENTS ?? 8);
const allScenarios = ['create-account', 'transfer', 'reads'] as const;
type Scenario = (typeof allScenarios)[number];
const scenarios = (process.env.BENCH_SCENARIOS ?? allScenarios.join(','))
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean)
  .map((name) => {
    if (!(allScenarios as readonly string[]).includes(name)) throw new Error(`BENCH_SCENARIOS: unknown scenario ${name} (known: ${allScenarios.join(', ')})`);
    return name as Scenario;
  });
const log = (m: string) => console.log(`[bench] ${m}`);

interface Run {
  name: string;
  count: number;
  errors: number;
  seconds: number;
  latencies: number[];
  /** CPU milliseconds per write of each process group, over the timed window. */
  cpu: CpuSample;
  /** The SQL statements PostgreSQL ran in the stack's database over the timed window (with a statement-counting server). */
  statements?: StatementCount;
}

/** The processes of the bench, the node and today's stack, by pid, for the CPU figures. */
const processes = new Map<number, Group>([[process.pid, 'bench']]);

/** What a row is measured on: the processes counted and the database whose statements count. */
interface Measured {
  processes: ReadonlyMap<number, Group>;
  database?: string;
}

/** Connected to the bench's statement-counting PostgreSQL, when it runs one. */
let statementCounter: PgClient | undefined;

/** Runs `call` from `clients` loops for `durationMs` after a warm-up, recording latencies, CPU and SQL statements. */
async function load(
  name: string,
  call: (client: number) => Promise<void>,
  durationMs: number,
  clients = concurrency,
  warmupMs = 3000,
  measured: Measured = { processes },
): Promise<Run> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const warmupEnd = Date.now() + warmupMs;
  const end = warmupEnd + durationMs;
  let cpuBefore: ProcessSample | undefined;
  let reset: Promise<void> | undefined;
  const warm = setTimeout(() => {
    cpuBefore = sampleCpu(measured.processes);
    if (statementCounter && measured.database) reset = resetStatements(statementCounter);
  }, warmupMs);
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (Date.now() < end) {
        const started = performance.now();
        try {
          await call(client);
          if (Date.now() > warmupEnd) latencies.push(performance.now() - started);
        } catch (error) {
          errors++;
          firstError ??= error;
        }
      }
    }),
  );
  clearTimeout(warm);
  const cpu = cpuPerWrite(cpuBefore ?? sampleCpu(measured.processes), sampleCpu(measured.processes), latencies.length);
  await reset;
  const statements = reset && statementCounter && measured.database ? await countStatements(statementCounter, measured.database, topStatements) : undefined;
  if (firstError) log(`${name}: ${errors} errors, first: ${(firstError as Error).message}`);
  return {
    name,
    count: latencies.length,
    errors,
    seconds: durationMs / 1000,
    latencies: latencies.sort((a, b) => a - b),
    cpu,
    statements,
  };
}

/** Starts a service process (of the checkout at `root`) and counts its CPU under `group` in `counted`. */
async function service(
  name: ServiceName,
  group: Group,
  env: Record<string, string>,
  ready: RegExp,
  counted: Map<number, Group> = processes,
  root?: string,
): Promise<Service> {
  const started = await spawnService(name, env, ready, process.env.BENCH_PROFILE === name ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [], root);
  counted.set(started.pid, group);
  cleanups.push(() => started.stop());
  return started;
}

/** Runs `task` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index]!, index);
      }
    }),
  );
  return results;
}

/** Base units from a balance answer: JSON numbers, exact only below 2^53, which the bench's amounts stay under. */
function lamportsOf(value: unknown, what: string): bigint {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new Error(`${what}: not an exact integer: ${JSON.stringify(value)}`);
  return BigInt(value);
}

/** A JSON answer of the API, read field by field (a missing field fails the check that reads it). */
type Answer = any;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const rateOf = (run: Run) => run.count / run.seconds;

function report(run: Run) {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  console.log(
    `${run.name.padEnd(58)} ${rateOf(run).toFixed(1).padStart(7)} writes/s   p50 ${ms(percentile(run.latencies, 50)).padStart(7)}   p95 ${ms(percentile(run.latencies, 95)).padStart(7)}   p99 ${ms(percentile(run.latencies, 99)).padStart(7)}   (${run.count} writes, ${run.errors} errors)`,
  );
}

/** The chain follower's row: printed beside the write rows it ran with. */
function reportFollower(f: FollowerRun) {
  const p = (values: number[], q: number, digits = 0) => (values.length ? percentile(values, q).toFixed(digits) : '–');
  console.log(
    `${f.name.padEnd(58)} ${f.recordedPerSecond.toFixed(1).padStart(7)} recorded/s (${f.sentPerSecond.toFixed(1)} sent/s; in the window ${f.sent} sent, ${f.recorded} recorded, ${f.twice} twice, ${f.sendErrors} send errors)`,
  );
  console.log(
    `${'  lag: confirmed tip - cursor, every 500 ms (slots)'.padEnd(58)} p50 ${p(f.cursorLagSlots, 50)}   p95 ${p(f.cursorLagSlots, 95)}   max ${p(f.cursorLagSlots, 100)}   (${f.cursorLagSlots.length} samples)`,
  );
  console.log(
    `${'  lag: position query, every second'.padEnd(58)} lagSlots p50 ${p(f.lagSlots, 50)} max ${p(f.lagSlots, 100)}   lagSeconds p50 ${p(f.lagSeconds, 50, 1)} p95 ${p(f.lagSeconds, 95, 1)} max ${p(f.lagSeconds, 100, 1)}   (${f.lagSeconds.length} samples)`,
  );
  console.log(
    `${'  deposit sent → on record (seconds of lag a user sees)'.padEnd(58)} p50 ${p(f.sentToRecordedMs, 50)} ms   p95 ${p(f.sentToRecordedMs, 95)} ms   p99 ${p(f.sentToRecordedMs, 99)} ms`,
  );
  if (f.twice > 0 || f.recorded < f.sent) {
    console.error(`[bench] the follower recorded ${f.recorded} of ${f.sent} deposits, ${f.twice} twice`);
    process.exitCode = 1;
  }
}

function reportCpu(runs: Run[]) {
  console.log(
    `\n${'CPU per write (ms); SQL statements per write'.padEnd(58)} ${groups.map((g) => g.padStart(9)).join('')}${'total'.padStart(9)}${'SQL'.padStart(7)}`,
  );
  for (const run of runs) {
    const total = groups.reduce((sum, g) => sum + run.cpu[g], 0);
    const sql = run.statements && run.count ? (run.statements.total / run.count).toFixed(1) : '–';
    console.log(`${run.name.padEnd(58)} ${groups.map((g) => run.cpu[g].toFixed(1).padStart(9)).join('')}${total.toFixed(1).padStart(9)}${sql.padStart(7)}`);
  }
}

/** The most frequent statements of each write row, per write. */
function reportStatements(runs: Run[]) {
  for (const run of runs.filter((r) => r.statements && r.count)) {
    console.log(`\nSQL statements per write, most frequent first: ${run.name} (${(run.statements!.total / run.count).toFixed(1)} in all)`);
    for (const { calls, query } of run.statements!.top) console.log(`${(calls / run.count).toFixed(2).padStart(8)}  ${query.slice(0, 150)}`);
  }
}

const ratio = (label: string, value: number, aim?: string) =>
  console.log(`${`ratio: ${label}`.padEnd(58)} ${value.toFixed(2).padStart(7)}${aim ? `   (aim ${aim})` : ''}`);

/** Undone in reverse order when the run ends, however it ends. */
const cleanups: (() => unknown)[] = [];

const searchKeys = {
  organization: defineSearchAttributeKey(searchAttributeNames.organization, SearchAttributeType.KEYWORD),
  operation: defineSearchAttributeKey(searchAttributeNames.operation, SearchAttributeType.KEYWORD),
  transaction: defineSearchAttributeKey(searchAttributeNames.transaction, SearchAttributeType.KEYWORD),
};

/**
 * The engine's ceiling in one shape: the write workflow with no-op activities on its own worker in
 * this process, started as the API starts writes (with the same search attributes). `eager`: the
 * client shares the worker's connection and asks for eager start, as the API does today.
 */
async function ceiling(
  name: string,
  options: { address: string; namespace: string; workflowType: string; eager: boolean; tuning: { [K in keyof typeof workerTuning]?: number } },
): Promise<Run> {
  const taskQueue = `bench-noop-${randomBytes(4).toString('hex')}`;
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: noopActivities(),
    ...options.tuning,
  });
  const running = worker.run();
  try {
    const client = new Client({
      connection: options.eager ? connection : await Connection.connect({ address: options.address }),
      namespace: options.namespace,
    });
    return await load(
      name,
      async () => {
        const id = randomUUID();
        const request: WriteRequest = {
          operation: 'CREATE_ACCOUNT',
          transactionId: id,
          workflowId: `noop-${id}`,
          organizationId: id,
          organizationExternalId: 'bench',
          apiKeyId: id,
          cluster: 'LOCAL',
          idempotencyKey: null,
          commitment,
          submit: true,
          itemData: {},
          svmTransactionConfig: {},
        };
        await client.workflow.execute(options.workflowType, {
          taskQueue,
          workflowId: request.workflowId,
          args: [request],
          requestEagerStart: options.eager,
          typedSearchAttributes: new TypedSearchAttributes([
            { key: searchKeys.organization, value: 'bench' },
            { key: searchKeys.operation, value: request.operation },
            { key: searchKeys.transaction, value: id },
          ]),
        });
      },
      seconds * 1000,
    );
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}

/** A running API and its worker(s), of today's code or the baseline's, with a client for its routes. */
interface Stack {
  label: string;
  url: string;
  apiKey: string;
  database: string;
  /** The processes counted in its rows: the bench, the node and its own API and workers. */
  processes: Map<number, Group>;
  services: Service[];
}

/** SIGSTOP or SIGCONT to each of the stack's API and worker processes. */
function signalStack(stack: Stack, signal: 'SIGSTOP' | 'SIGCONT') {
  for (const service of stack.services) process.kill(service.pid, signal);
}

/** Waits (at most 60 s) until the chain follower of the stack using `databaseUrl` is within 20 slots of the node's confirmed tip. */
async function followerAtTip(nodeUrl: string, databaseUrl: string) {
  const client = new PgClient({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const response = await fetch(nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] }),
      });
      const tip = ((await response.json()) as { result: number }).result;
      const { rows } = await client.query<{ slot: string }>('select slot::text from chain_cursor');
      if (rows.every((row) => tip - Number(row.slot) <= 20)) return;
    }
    log('the chain follower was not back at the tip within 60 s');
  } finally {
    await client.end();
  }
}

/** The stack's routes as the bench calls them. */
function clientOf(stack: Stack) {
  const post = async (route: string, itemData: unknown): Promise<{ status: number; body: Answer }> => {
    const response = await fetch(`${stack.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ itemData }),
    });
    return { status: response.status, body: await response.json() };
  };
  /** A write that must answer 201 with a successful transaction (`transactionOf` picks it from the body). */
  const write = async (route: string, itemData: unknown, transactionOf: (body: Answer) => Answer = (body) => body) => {
    const { status, body } = await post(route, itemData);
    if (status !== 201 || !transactionOf(body)?.success) throw new Error(`${route}: HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    return body;
  };
  return { post, write };
}
type StackClient = ReturnType<typeof clientOf>;
type Lookup = { owner: { offchainId: string }; financialInstrument: { onchainId: string } };

/** The transfer scenario's positions, made over HTTP before any timed window: one pair per client. */
async function setupTransfer({ write }: StackClient, label: string): Promise<[Lookup, Lookup][]> {
  const started = performance.now();
  const authority = (await write('/api/v1/accounts', { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } }, (b) => b.svmTransaction))
    .newAccount as { offchainId: string };
  const mint = (
    await write(
      '/api/v1/financial-instruments',
      {
        version: 'SPL',
        onchainData: { decimals: 6 },
        mintAuthority: { offchainId: authority.offchainId },
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
      (b) => b.svmTransaction,
    )
  ).newFinancialInstrument.onchainId as string;
  const positions = await pool(Array.from({ length: 2 * concurrency }), concurrency, async (): Promise<Lookup> => {
    const owner = (await write('/api/v1/accounts', { managed: true }, (b) => b.svmTransaction)).newAccount as { offchainId: string };
    const position = { owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } };
    await write('/api/v1/positions', { positionToInitialize: position }, (b) => b.svmTransaction);
    await write('/api/v1/positions/mint', { mintTo: position, value: { lamports: mintLamports.toString() }, idempotencyId: randomUUID() });
    return position;
  });
  log(
    `transfer setup (${label}): SPL instrument ${mint}, ${positions.length} managed positions with ${mintLamports} lamports each (${((performance.now() - started) / 1000).toFixed(1)} s, untimed)`,
  );
  return Array.from({ length: concurrency }, (_, i) => [positions[2 * i]!, positions[2 * i + 1]!]);
}

/** Each client owns one pair and alternates the direction, so balances stay near what was minted. */
function transferCall({ write }: StackClient, pairs: [Lookup, Lookup][]) {
  const sent = pairs.map(() => 0);
  return async (client: number) => {
    const [a, b] = pairs[client]!;
    const n = sent[client]!++;
    const [source, destination] = n % 2 === 0 ? [a, b] : [b, a];
    await write('/api/v1/positions/transfer', { source, destination, value: { lamports: String(1 + (n % 1000)) }, idempotencyId: randomUUID() });
  };
}

const createAccountCall =
  ({ write }: StackClient) =>
  async () => {
    await write('/api/v1/accounts', { managed: true, seed: { lamports: 1_000_000 }, offchainReferences: { type: 'WALLET' } }, (b) => b.svmTransaction);
  };

/** After the transfers: value only moved between the positions, and the records agree with the chain. */
async function checkTransfers({ post }: StackClient, pairs: [Lookup, Lookup][], label: string): Promise<{ ok: boolean; line: string }> {
  const positions = pairs.flat();
  let onchainTotal = 0n;
  let mismatches = 0;
  await pool(positions, concurrency, async (position, i) => {
    const { status, body } = await post('/api/v1/positions/balance', { position });
    if (status !== 200) throw new Error(`/api/v1/positions/balance: HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    const onchain = lamportsOf(body.onchain?.balance?.lamports, `position ${i} onchain`);
    const offchain = lamportsOf(body.offchain?.balance?.lamports, `position ${i} offchain`);
    onchainTotal += onchain;
    if (onchain !== offchain) {
      mismatches++;
      log(`position ${body.position?.onchainId ?? i}: onchain ${onchain} ≠ offchain ${offchain}`);
    }
  });
  const minted = mintLamports * BigInt(positions.length);
  const supply = await post('/api/v1/financial-instruments/circulating-supply', { financialInstrument: positions[0]!.financialInstrument });
  const circulating = lamportsOf(supply.body.circulatingSupply?.lamports, 'circulating supply');
  const sumOk = onchainTotal === minted && circulating === minted;
  const ok = sumOk && mismatches === 0;
  return {
    ok,
    line: `transfer check (${label}): onchain sum of ${positions.length} positions ${onchainTotal}, circulating supply ${circulating}, minted ${minted} ${sumOk ? '(equal)' : '(DIFFERENT)'}; offchain = onchain for ${positions.length - mismatches}/${positions.length} positions ${ok ? 'OK' : 'FAILED'}`,
  };
}

async function main() {
  installSdkLogger();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-bench-'));
  cleanups.push(() => fs.rmSync(workDir, { recursive: true, force: true }));
  const dbName = `ledger_bench_${randomBytes(4).toString('hex')}`;
  // The bench's own PostgreSQL (statements counted), unless told to use the machine's.
  const machinePostgres = process.env.BENCH_POSTGRES === 'machine' || Boolean(process.env.DATABASE_URL);
  const postgres = machinePostgres ? undefined : await startBenchPostgres();
  if (postgres) cleanups.push(() => postgres.stop());
  const urlOf = (database: string) => (postgres ? postgres.urlOf(database) : `postgres://postgres@127.0.0.1:5432/${database}`);
  const admin = new PgClient({ connectionString: postgres?.adminUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  cleanups.push(() => admin.end());
  if (postgres) statementCounter = admin;
  await admin.query(`create database ${dbName}`);
  cleanups.push(() => admin.query(`drop database if exists ${dbName} with (force)`));
  const databaseUrl = process.env.DATABASE_URL ?? urlOf(dbName);

  let temporal: { address: string; namespace: string };
  if (clusterAddress) {
    temporal = { address: clusterAddress, namespace: clusterNamespace };
  } else {
    const devServer = await startTemporalDevServer({
      dataDir: temporalStore === 'file' ? path.join(workDir, 'temporal') : undefined,
      ui: false,
      log: () => {},
    });
    cleanups.push(() => devServer.close());
    temporal = devServer;
  }
  const nodePort = await freePortPair();
  const node = await service(
    'local-node',
    'node',
    { DATA_DIR: workDir, LOCAL_NODE_PORT: String(nodePort), LOCAL_NODE_BLOCK_TIME_MS: String(blockTimeMs) },
    /Local SVM node at (\S+)/,
  );
  const config: Config = {
    ...loadConfig({}),
    dataDir: workDir,
    databaseUrl,
    databasePoolSize: 20,
    feePayerKeyFile: path.join(workDir, 'fee-payer.json'),
    keyEncryptionKey: randomBytes(32).toString('base64'),
    clusters: [{ name: 'LOCAL', rpcUrl: node.url, allowsAirdrop: true }],
    // A task queue of this run's own: a shared cluster may still hold pollers of an earlier run.
    temporal: {
      address: temporal.address,
      namespace: temporal.namespace,
      taskQueue: `bench-writes-${randomBytes(4).toString('hex')}`,
      apiHostsWorker: true,
      writeTaskTimeoutSeconds: 10,
    },
    rateLimit: { ...loadConfig({}).rateLimit, perSecond: 1_000_000, burst: 1_000_000 },
    defaultCommitment: commitment,
  };
  // Migrations, the fee payer's funds and the bench's API key, then the API and the worker(s) as
  // separate processes: the production topology, so the two cores are shared as they would be.
  const runtime = await openRuntime({ ...config, databaseUrl }, () => {}, { migrate: true });
  await fundFeePayer(runtime, config, () => {});
  const { organization } = await ensureOrganization(forkEm(runtime.orm), runtime.sealer, 'bench');
  const { apiKey } = await createApiKey(forkEm(runtime.orm), organization, [...roleNames], config.platformName);
  await runtime.close();
  const serviceEnv = {
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '20',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    SVM_CLUSTERS: `LOCAL=${node.url}`,
    KEY_ENCRYPTION_KEY: config.keyEncryptionKey!,
    FEE_PAYER_KEY_FILE: config.feePayerKeyFile,
    DATA_DIR: workDir,
    DEFAULT_COMMITMENT: commitment,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
  };
  /** Starts a stack's worker(s) and API (of the checkout at `root`), counting their CPU in its own process map. */
  const startStack = async (label: string, env: Record<string, string>, database: string, key: string, root?: string): Promise<Stack> => {
    const counted = new Map(processes);
    const services: Service[] = [];
    for (let i = 0; i < workerCount; i++) services.push(await service('worker', 'worker', env, /worker polling/, counted, root));
    const api = await service('api', 'api', { ...env, PORT: String(await freePort()) }, /API listening on (https?:\/\/[^\s"]+)/, counted, root);
    services.unshift(api);
    return { label, url: api.url, apiKey: key, database, processes: counted, services };
  };
  const today = await startStack('today', serviceEnv, dbName, apiKey);
  for (const [pid, group] of today.processes) processes.set(pid, group);
  let baseline: Stack | undefined;
  if (baselineRef) {
    const checkout = checkoutBaseline(baselineRef, log);
    cleanups.push(() => checkout.remove());
    const baseDb = `${dbName}_baseline`;
    await admin.query(`create database ${baseDb}`);
    cleanups.push(() => admin.query(`drop database if exists ${baseDb} with (force)`));
    const baseDataDir = path.join(workDir, 'baseline');
    fs.mkdirSync(baseDataDir);
    const baseEnv = {
      ...serviceEnv,
      DATABASE_URL: urlOf(baseDb),
      DATA_DIR: baseDataDir,
      TEMPORAL_TASK_QUEUE: `bench-baseline-${randomBytes(4).toString('hex')}`,
    };
    const baseKey = baselineApiKey(
      checkout,
      baseEnv,
      roleNames.map((role) => qualifiedRole(config.platformName, role)),
    );
    baseline = await startStack(`baseline ${checkout.commit}`, baseEnv, baseDb, baseKey, checkout.root);
    // Stopped (SIGSTOP) whenever the other stack's row runs, so neither competes for the cores with the other's idle work.
    cleanups.push(() => [today, baseline].forEach((stack) => stack && signalStack(stack, 'SIGCONT')));
    signalStack(baseline, 'SIGSTOP');
  }
  const stacks = baseline ? [today, baseline] : [today];
  failureOutput = () =>
    stacks.flatMap((s) => s.services.map((service, i) => `--- ${s.label} ${i === 0 ? 'api' : `worker ${i}`} (tail) ---\n${service.output()}`)).join('\n');
  const measuredOn = (stack: Stack): Measured => ({ processes: stack.processes, database: stack.database });
  const named = (name: string, stack: Stack) => (stack === today ? name : `${name} [${stack.label}]`);
  /**
   * Runs `task` with the baseline's processes running and today's stopped; afterwards today's run
   * again once their chain follower is back at the tip (it follows the blocks made meanwhile before
   * today's next row starts, not in it). For today's stack, just runs `task`.
   */
  const whileRunning = async <T>(stack: Stack, task: () => Promise<T>): Promise<T> => {
    if (stack === today) return task();
    signalStack(today, 'SIGSTOP');
    signalStack(stack, 'SIGCONT');
    try {
      return await task();
    } finally {
      signalStack(stack, 'SIGSTOP');
      signalStack(today, 'SIGCONT');
      await followerAtTip(node.url, databaseUrl);
    }
  };

  log(
    `${os.cpus().length} cores, ${concurrency} concurrent clients, ${seconds} s per run after 3 s warm-up, block time ${blockTimeMs} ms, commitment ${commitment}`,
  );
  log(
    `PostgreSQL ${postgres ? "the bench's own (pg_stat_statements)" : "the machine's"} ${databaseUrl.replace(/\/\/.*@/, '//…@')}, ` +
      (clusterAddress
        ? `Temporal cluster ${clusterAddress} (namespace ${clusterNamespace})`
        : `Temporal dev server (${temporalStore === 'file' ? 'SQLite file, WAL' : 'in memory'}) ${temporal.address}`) +
      `, local node ${node.url}, API (hosting a worker) + ${workerCount} worker process${workerCount === 1 ? '' : 'es'}` +
      (baseline ? `; ${baseline.label} (${baselineRef}) beside it, each write row run for both` : ''),
  );
  const writes = scenarios.some((s) => s !== 'reads');
  log(`scenarios: ${scenarios.join(', ')}${writes ? ' (and both engine ceilings)' : ''}`);
  const clients = new Map(stacks.map((s) => [s, clientOf(s)]));

  // Setup for the transfer scenario, before any timed window.
  const pairs = new Map<Stack, [Lookup, Lookup][]>();
  if (scenarios.includes('transfer'))
    for (const stack of stacks) pairs.set(stack, await whileRunning(stack, () => setupTransfer(clients.get(stack)!, stack.label)));

  // Setup for the chain follower's row, before any timed window: subscribed accounts and faucet-funded senders.
  let subscribed: string[] = [];
  let senders: Awaited<ReturnType<typeof fundSenders>> = [];
  if (scenarios.includes('create-account') && followerRow) {
    const { write } = clients.get(today)!;
    subscribed = await pool(Array.from({ length: concurrency }), concurrency, async () => {
      const body = await write(
        '/api/v1/accounts',
        { managed: true, subscribeToNetworkEvents: true, seed: { lamports: 1_000_000 }, offchainReferences: { type: 'WALLET' } },
        (b) => b.svmTransaction,
      );
      return body.newAccount.onchainId as string;
    });
    senders = await fundSenders(node.url);
    log(`follower setup: ${subscribed.length} managed accounts with subscribeToNetworkEvents, ${senders.length} faucet-funded senders (untimed)`);
  }

  const runs: Run[] = [];
  /** Today's row and the baseline's, when there is one, of the same scenario. */
  const versus: [Run, Run][] = [];
  const row = async (name: string, call: (stack: Stack) => (client: number) => Promise<void>, clientCount = concurrency): Promise<Run> => {
    const mine = await load(name, call(today), seconds * 1000, clientCount, 3000, measuredOn(today));
    runs.push(mine);
    if (baseline) {
      const theirs = await whileRunning(baseline, () =>
        load(named(name, baseline!), call(baseline!), seconds * 1000, clientCount, 3000, measuredOn(baseline!)),
      );
      runs.push(theirs);
      versus.push([mine, theirs]);
    }
    return mine;
  };
  let followed: { writes: Run; follower: FollowerRun; alone: Run } | undefined;
  if (scenarios.includes('create-account')) {
    const alone = await row('Create Account over HTTP (full stack)', (stack) => createAccountCall(clients.get(stack)!));
    if (followerRow) {
      // The same scenario again while outside senders deposit to the subscribed accounts at the rate it just wrote.
      const { result, follower } = await withDeposits(
        'Chain follower: outside deposits at that rate',
        { nodeUrl: node.url, databaseUrl, temporal: { ...temporal, taskQueue: config.temporal.taskQueue }, accounts: subscribed },
        senders,
        rateOf(alone),
        { warmupMs: 3000, durationMs: seconds * 1000 },
        () =>
          load('Create Account, outside deposits being followed', createAccountCall(clients.get(today)!), seconds * 1000, concurrency, 3000, measuredOn(today)),
      );
      runs.push(result);
      followed = { writes: result, follower, alone };
    }
  }
  if (scenarios.includes('transfer')) {
    await row('Transfer between positions over HTTP (full stack)', (stack) => transferCall(clients.get(stack)!, pairs.get(stack)!));
  }

  let light: Run | undefined;
  if (scenarios.includes('create-account')) {
    light = await load(
      `Create Account over HTTP, ${smallConcurrency} clients`,
      createAccountCall(clients.get(today)!),
      seconds * 1000,
      smallConcurrency,
      3000,
      measuredOn(today),
    );
    runs.push(light);
  }

  // The write workflow with no-op activities on the same server: the engine's ceiling, in today's
  // shape and in the previous one (with the worker settings of that time).
  const engine = writes
    ? await ceiling('Same workflow, no-op activities (engine ceiling)', { ...temporal, workflowType: 'ledgerWrite', eager: true, tuning: workerTuning })
    : undefined;
  const previous = writes
    ? await ceiling('Engine, previous shape (no-op activities)', {
        ...temporal,
        workflowType: 'previousShapeWrite',
        eager: false,
        tuning: {
          maxConcurrentWorkflowTaskExecutions: 40,
          maxConcurrentActivityTaskExecutions: 200,
          maxConcurrentLocalActivityExecutions: 200,
          maxCachedWorkflows: 2000,
        },
      })
    : undefined;

  let consistent = true;
  const checks: string[] = [];
  for (const [stack, stackPairs] of pairs) {
    const { ok, line } = await whileRunning(stack, () => checkTransfers(clients.get(stack)!, stackPairs, stack.label));
    consistent &&= ok;
    checks.push(line);
  }

  // Reads last, after the writes have settled: the data is written straight into the database.
  let reads: ReadRun[] = [];
  if (scenarios.includes('reads')) reads = await benchReads({ databaseUrl, organizationId: organization.id, cluster: 'LOCAL', apiUrl: today.url, apiKey, log });

  console.log('');
  if (engine && previous) {
    const all = [...runs, engine, previous];
    all.forEach(report);
    ratio('engine ceiling / previous shape', rateOf(engine) / rateOf(previous), '≥ 2');
    for (const run of runs.filter((r) => r !== light && r !== followed?.writes)) {
      ratio(
        `${run.name.replace(/ over HTTP \(full stack\)/, '')} / engine ceiling`,
        rateOf(run) / rateOf(engine),
        run.name.startsWith('Create Account') ? '≥ 0.8' : run.name.startsWith('Transfer') ? '≥ 0.6' : undefined,
      );
    }
    for (const [mine, theirs] of versus) {
      ratio(`${mine.name.replace(/ over HTTP \(full stack\)/, '')}: today / ${baseline!.label}`, rateOf(mine) / rateOf(theirs), '≥ 1: not slower');
    }
    if (followed) {
      reportFollower(followed.follower);
      ratio('Create Account with deposits followed / without', rateOf(followed.writes) / rateOf(followed.alone), '≥ 0.9: the writes do not fall');
      ratio(
        'follower recorded/s / deposits sent/s',
        followed.follower.recordedPerSecond / (followed.follower.sent / followed.follower.seconds),
        '≈ 1: keeps up',
      );
    }
    if (light) {
      const p50 = percentile(light.latencies, 50);
      console.log(
        `${`p50 at ${smallConcurrency} clients / (2 block times + 40 ms)`.padEnd(58)} ${(p50 / (2 * blockTimeMs + 40)).toFixed(2).padStart(7)}   (${p50.toFixed(0)} ms against ${2 * blockTimeMs + 40} ms; aim ≤ 1)`,
      );
    }
    reportCpu(all);
    reportStatements(runs.filter((r) => r !== light && r !== followed?.writes));
  }
  if (reads.length > 0) {
    reportReads(reads);
    if (reads.some((r) => r.errors > 0)) {
      console.error('[bench] some bulk reads failed');
      process.exitCode = 1;
    }
  }
  for (const line of checks) console.log(line);
  if (!consistent) {
    console.error('[bench] the balance check failed');
    process.exitCode = 1;
  }
}

let failureOutput = () => '';

/** Undoes what the run set up (servers, databases, the baseline's worktree), once, in reverse order. */
async function cleanUp() {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error(`[bench] cleanup: ${(error as Error).message}`);
    }
  }
}

// Interrupted (Ctrl-C, a timeout): the servers it started must not outlive it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`[bench] ${signal}: cleaning up`);
    process.exitCode = 130;
    void cleanUp().finally(() => process.exit());
  });
}

main()
  .catch((error) => {
    console.error(error);
    console.error(failureOutput());
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanUp();
    process.exit();
  });
