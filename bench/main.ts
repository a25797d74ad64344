/**
 * `npm run bench`: concurrent Create Account (managed, seeded) over HTTP against the whole stack
 * (real PostgreSQL, a Temporal dev server on a WAL SQLite file, and the API, the worker and the
 * local SVM node each in its own process, as in production),
 * then, in the same run and on the same Temporal server, the same workflow with no-op activities:
 * the engine's ceiling on this machine. Prints writes/s, p50/p95/p99 and the ratio.
 *
 * Knobs: BENCH_SECONDS (default 20), BENCH_CONCURRENCY (16), BENCH_BLOCK_TIME_MS (100),
 * BENCH_COMMITMENT (confirmed), BENCH_TEMPORAL_STORE (file | memory), DATABASE_URL (a fresh
 * database on local PostgreSQL), BENCH_PROFILE (worker | api | local-node: write a CPU profile to /tmp/prof).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { loadConfig, type Config } from '../src/config/config';
import { spawn } from 'node:child_process';
import { freePort, startTemporalDevServer } from '../src/main/temporal-dev-server';
import { openRuntime, fundFeePayer, forkEm } from '../src/main/runtime';
import { installSdkLogger } from '../src/main/worker';
import { createApiKey, ensureOrganization } from '../src/cli/admin';
import { roleNames } from '../src/domain/roles';
import { noopActivities } from './noop-activities';
import type { WriteRequest } from '../src/domain/write';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const blockTimeMs = Number(process.env.BENCH_BLOCK_TIME_MS ?? 100);
const commitment = (process.env.BENCH_COMMITMENT ?? 'confirmed') as 'processed' | 'confirmed';
/** file: SQLite with WAL, as `npm start` runs it; memory: the dev server's in-memory store. */
const temporalStore = process.env.BENCH_TEMPORAL_STORE === 'memory' ? 'memory' : 'file';
const log = (m: string) => console.log(`[bench] ${m}`);

interface Run {
  name: string;
  count: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

/** Runs `call` from `concurrency` loops for `durationMs` after a warm-up, recording latencies. */
async function load(name: string, call: () => Promise<void>, durationMs: number, warmupMs = 3000): Promise<Run> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const warmupEnd = Date.now() + warmupMs;
  const end = warmupEnd + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const started = performance.now();
        try {
          await call();
          if (Date.now() > warmupEnd) latencies.push(performance.now() - started);
        } catch (error) {
          errors++;
          firstError ??= error;
        }
      }
    }),
  );
  if (firstError) log(`${name}: ${errors} errors, first: ${(firstError as Error).message}`);
  return { name, count: latencies.length, errors, seconds: durationMs / 1000, latencies: latencies.sort((a, b) => a - b) };
}

interface Service {
  url: string;
  stop(): Promise<void>;
}

/** Starts `src/main/<name>.ts` in its own Node process and waits for the line that says it is up. */
function spawnService(name: string, env: Record<string, string>, ready: RegExp): Promise<Service> {
  const child = spawn(process.execPath, [...(process.env.BENCH_PROFILE === name ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), '--import', 'tsx', path.join(__dirname, `../src/main/${name}.ts`)], {
    env: { ...process.env, ...env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        child.stdout!.off('data', onData);
        resolve({
          url: match[1] ?? '',
          stop: () => new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${output.slice(-2000)}`)));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function report(run: Run) {
  const rate = run.count / run.seconds;
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  console.log(`${run.name.padEnd(44)} ${rate.toFixed(1).padStart(7)} writes/s   p50 ${ms(percentile(run.latencies, 50)).padStart(7)}   p95 ${ms(percentile(run.latencies, 95)).padStart(7)}   p99 ${ms(percentile(run.latencies, 99)).padStart(7)}   (${run.count} writes, ${run.errors} errors)`);
  return rate;
}

async function main() {
  installSdkLogger();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-bench-'));
  const dbName = `ledger_bench_${randomBytes(4).toString('hex')}`;
  const admin = new PgClient({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const databaseUrl = process.env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/${dbName}`;

  const temporal = await startTemporalDevServer({ dataDir: temporalStore === 'file' ? path.join(workDir, 'temporal') : undefined, ui: false, log: () => {} });
  const nodePort = await freePort();
  const node = await spawnService('local-node', { DATA_DIR: workDir, LOCAL_NODE_PORT: String(nodePort), LOCAL_NODE_BLOCK_TIME_MS: String(blockTimeMs) }, /Local SVM node at (\S+)/);
  const config: Config = {
    ...loadConfig({}),
    dataDir: workDir,
    databaseUrl,
    databasePoolSize: 20,
    feePayerKeyFile: path.join(workDir, 'fee-payer.json'),
    keyEncryptionKey: randomBytes(32).toString('base64'),
    clusters: [{ name: 'LOCAL', rpcUrl: node.url, allowsAirdrop: true }],
    temporal: { address: temporal.address, namespace: temporal.namespace, taskQueue: 'bench-writes' },
    rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    defaultCommitment: commitment,
  };
  // Migrations, the fee payer's funds and the bench's API key, then the API and the worker as
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
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    SVM_CLUSTERS: `LOCAL=${node.url}`,
    KEY_ENCRYPTION_KEY: config.keyEncryptionKey!,
    FEE_PAYER_KEY_FILE: config.feePayerKeyFile,
    DATA_DIR: workDir,
    DEFAULT_COMMITMENT: commitment,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
  };
  const worker = await spawnService('worker', serviceEnv, /worker polling/);
  const api = await spawnService('api', { ...serviceEnv, PORT: String(await freePort()) }, /API listening on (\S+)/);

  log(`${os.cpus().length} cores, ${concurrency} concurrent clients, ${seconds} s per run after 3 s warm-up, block time ${blockTimeMs} ms, commitment ${commitment}`);
  log(`PostgreSQL ${databaseUrl.replace(/\/\/.*@/, '//…@')}, Temporal dev server (${temporalStore === 'file' ? 'SQLite file, WAL' : 'in memory'}) ${temporal.address}, local node ${node.url}`);

  const createAccount = async () => {
    const response = await fetch(`${api.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ itemData: { managed: true, seed: { lamports: 1_000_000 }, offchainReferences: { type: 'WALLET' } } }),
    });
    const body = (await response.json()) as { svmTransaction?: { success: boolean } };
    if (response.status !== 201 || !body.svmTransaction?.success) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  };
  const real = await load('Create Account over HTTP (full stack)', createAccount, seconds * 1000);

  // The same workflow with no-op activities, started by a client on the same server: the ceiling.
  const noopQueue = 'bench-noop';
  const noopWorker = await Worker.create({
    connection: await NativeConnection.connect({ address: temporal.address }),
    namespace: temporal.namespace,
    taskQueue: noopQueue,
    workflowsPath: require.resolve('../src/workflows'),
    activities: noopActivities(),
    maxConcurrentWorkflowTaskExecutions: 40,
    maxConcurrentActivityTaskExecutions: 200,
    maxConcurrentLocalActivityExecutions: 200,
    maxCachedWorkflows: 2000,
  });
  const noopRun = noopWorker.run();
  const client = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: temporal.namespace });
  const noop = await load(
    'Same workflow, no-op activities (engine ceiling)',
    async () => {
      const id = randomUUID();
      const request: WriteRequest = {
        operation: 'CREATE_ACCOUNT', transactionId: id, workflowId: `noop-${id}`, organizationId: id, organizationExternalId: 'bench', apiKeyId: id,
        cluster: 'LOCAL', idempotencyKey: null, commitment, submit: true, itemData: {}, svmTransactionConfig: {},
      };
      await client.workflow.execute('ledgerWrite', { taskQueue: noopQueue, workflowId: request.workflowId, args: [request] });
    },
    seconds * 1000,
  );

  console.log('');
  const realRate = report(real);
  const noopRate = report(noop);
  console.log(`${'ratio (full stack / engine ceiling)'.padEnd(44)} ${(realRate / noopRate).toFixed(2).padStart(7)}`);

  noopWorker.shutdown();
  await noopRun;
  await api.stop();
  await worker.stop();
  await node.stop();
  await temporal.close();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  fs.rmSync(workDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
