/**
 * The whole service for a test file, started for real: a fresh PostgreSQL database, the local SVM
 * node over JSON-RPC, a worker on its own task queue against the shared Temporal dev server, and
 * the API on a free port. An organization and an ADMIN-capable API key are ready to use.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig, type Config } from '../../src/config/config';
import { startLocalNode, type LocalNode, type LocalNodeProgram } from '../../dev/local-node';
import { openRuntime, fundFeePayer, forkEm, type Runtime } from '../../src/main/runtime';
import { connectTemporal, createLedgerWorker } from '../../src/main/worker';
import { startApi, type ApiServer } from '../../src/main/api';
import { ensureOrganization, createApiKey } from '../../src/custody/credentials';
import { roleNames, type Role } from '../../src/domain/roles';
import { createTestDatabase } from './database';
import type { Logger } from '../../src/observability/logger';
import { temporalTarget, uniqueTaskQueue } from './temporal';
import type { PriceSource } from '../../src/domain/prices';
import type { Tracing } from '../../src/observability/tracing';

export interface Stack {
  config: Config;
  runtime: Runtime;
  node: LocalNode;
  api: ApiServer;
  worker: Worker | undefined;
  apiKey: string;
  organizationExternalId: string;
  /** Makes another organization's key (or this one's with other roles). */
  newApiKey(organizationExternalId: string, roles: Role[]): Promise<string>;
  /** Calls the API; returns status, parsed body and headers. */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { apiKey?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  restartWorker(wrap?: Parameters<typeof createLedgerWorker>[0]['wrapSteps']): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

// Expected refusals fail their workflows (a WARN each); tests show only errors unless asked.
process.env.TEMPORAL_LOG_LEVEL ??= 'ERROR';

export async function startStack(
  options: {
    wrapSteps?: Parameters<typeof createLedgerWorker>[0]['wrapSteps'];
    blockTimeMs?: number;
    worker?: boolean;
    /** Rate limits (default: so high no test meets them), the given fields over the defaults. */
    rateLimit?: Partial<Config['rateLimit']>;
    writeWaitMs?: number;
    /** How long a write retries faults before it has sent anything (default: the configuration's). */
    writeDeadlineMs?: number;
    /** OPERATOR_ORGANIZATION: the organization whose ADMIN keys may act for another (default none). */
    operatorOrganization?: string;
    /** The service reaches the node and the database through these (proxies an outage test takes down); default direct. */
    rpcUrl?: (nodeUrl: string) => Promise<string>;
    databaseUrl?: (url: string) => Promise<string>;
    /** How long a dead worker's write waits before another worker resumes it (fault tests shorten it). */
    writeTaskTimeoutSeconds?: number;
    /** Another Temporal server than the shared one (a test that kills and restarts it). */
    temporal?: { address: string; namespace: string };
    /** Extra programs for the local node, e.g. a transfer hook: `[{ programId, elf: returnCodeProgramElf(0) }]` (test/support/sbpf-program.ts). */
    programs?: LocalNodeProgram[];
    /** Where webhooks may point (default: anywhere, plain http too, for receivers on 127.0.0.1). */
    webhookUrlPolicy?: Config['webhookUrlPolicy'];
    /** The KEK keyring (default: one random KEK); a KEK rotation test names its KEKs. */
    keyEncryptionKey?: string;
    previousKeyEncryptionKeys?: string[];
    /** How long a write waits for approvers (default 24 h). */
    approvalTimeoutMs?: number;
    /** Structured logs of the API (access log, failures, audit); none by default. */
    logger?: Logger;
    /** Seconds in a loan day (default 86,400): loan tests shorten terms. */
    loanSecondsPerDay?: number;
    /** Instrument prices the loans use (default none). */
    prices?: PriceSource;
    /** Drain delay and grace when the API stops (default: none, 30 s). */
    shutdown?: Config['shutdown'];
    /** Tracing, started by the test (src/observability/tracing.ts); default off. */
    tracing?: Tracing;
    /** false: no chain follower and the reconciliation schedule paused, so only requests touch the database (default true). */
    background?: boolean;
  } = {},
): Promise<Stack> {
  const log = process.env.STACK_LOG ? (m: string) => console.log(m) : () => {};
  const db = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-stack-'));
  const node = await startLocalNode({ port: 0, dataDir: path.join(dataDir, 'node'), blockTimeMs: options.blockTimeMs ?? 100, programs: options.programs });
  const temporal = options.temporal ?? temporalTarget();
  const databaseUrl = options.databaseUrl ? await options.databaseUrl(db.url) : db.url;
  const rpcUrl = options.rpcUrl ? await options.rpcUrl(node.url) : node.url;
  const config: Config = {
    ...loadConfig({}),
    dataDir,
    databaseUrl,
    feePayerKeyFile: path.join(dataDir, 'fee-payer.json'),
    keyEncryptionKey: options.keyEncryptionKey ?? randomBytes(32).toString('base64'),
    previousKeyEncryptionKeys: options.previousKeyEncryptionKeys ?? [],
    clusters: [{ name: 'LOCAL', rpcUrl, allowsAirdrop: true }],
    temporal: {
      address: temporal.address,
      namespace: temporal.namespace,
      taskQueue: uniqueTaskQueue('ledger'),
      apiHostsWorker: options.worker !== false,
      writeTaskTimeoutSeconds: options.writeTaskTimeoutSeconds ?? 10,
    },
    rateLimit: { perSecond: 10000, burst: 10000, store: 'postgresql', unknownKeys: { points: 10000, seconds: 60 }, ...options.rateLimit },
    writeWaitMs: options.writeWaitMs ?? 60_000,
    ...(options.writeDeadlineMs ? { writeDeadlineMs: options.writeDeadlineMs } : {}),
    operatorOrganization: options.operatorOrganization,
    // Test servers (logo hosts) live on 127.0.0.1.
    logoPolicy: { allowPrivateAddresses: true, maxBytes: 64 * 1024 },
    // Test webhook receivers and token endpoints too (plain http); a test that checks the refusal passes its own.
    webhookUrlPolicy: options.webhookUrlPolicy ?? { allowPrivateAddresses: true, allowHttp: true },
    approvalTimeoutMs: options.approvalTimeoutMs ?? 86_400_000,
    loanSecondsPerDay: options.loanSecondsPerDay ?? 86_400,
    shutdown: options.shutdown ?? { drainDelayMs: 0, graceMs: 30_000 },
    // Test price sources live on 127.0.0.1 (any port).
    oraclePolicy: { allowedHosts: ['127.0.0.1'], maxResponseBytes: 64 * 1024, timeoutMs: 2000 },
    ...(options.background === false ? { reconcileIntervalSeconds: 0 } : {}),
  };
  const runtime = await openRuntime({ ...config, databaseUrl }, log, { migrate: true, tracing: options.tracing });
  await fundFeePayer(runtime, config, log);
  const workerOptions = {
    namespace: temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    runtime,
    logoPolicy: config.logoPolicy,
    webhookUrlPolicy: config.webhookUrlPolicy,
    approvalTimeoutMs: config.approvalTimeoutMs,
    oraclePolicy: config.oraclePolicy,
    loanSecondsPerDay: config.loanSecondsPerDay,
    prices: options.prices,
    tracing: options.tracing,
    followChain: options.background !== false,
    reconcileIntervalSeconds: config.reconcileIntervalSeconds,
  };
  // As in production, the API hosts a worker and starts writes eagerly on it; `worker: false` leaves
  // the task queue to workers the test starts (restartWorker, or its own processes).
  const api = await startApi(config, runtime, temporal, log, {
    port: 0,
    hostWorker: config.temporal.apiHostsWorker,
    wrapSteps: options.wrapSteps,
    logger: options.logger,
    prices: options.prices,
    tracing: options.tracing,
    followChain: options.background !== false,
  });
  let worker: Worker | undefined;
  let workerConnection: NativeConnection | undefined;
  let running: Promise<void> = Promise.resolve();
  const em = forkEm(runtime.orm);
  const organizationExternalId = `org-${randomBytes(4).toString('hex')}`;
  const newApiKey = async (externalId: string, roles: Role[]) => {
    const { organization } = await ensureOrganization(forkEm(runtime.orm), runtime.sealer, externalId);
    return (await createApiKey(forkEm(runtime.orm), organization, roles, config.platformName)).apiKey;
  };
  await ensureOrganization(em, runtime.sealer, organizationExternalId, 'Test organization');
  const apiKey = await newApiKey(
    organizationExternalId,
    roleNames.filter((r) => r !== 'ADMIN'),
  );

  const stopWorker = async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    await workerConnection?.close();
    workerConnection = undefined;
  };

  return {
    config,
    runtime,
    node,
    api,
    get worker() {
      return worker;
    },
    apiKey,
    organizationExternalId,
    newApiKey,
    async call(method, urlPath, body, callOptions = {}) {
      const key = callOptions.apiKey === undefined ? apiKey : callOptions.apiKey;
      const response = await fetch(api.url + urlPath, {
        method,
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...callOptions.headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON (the docs page)
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    stopWorker,
    async restartWorker(wrap) {
      await stopWorker();
      workerConnection = await connectTemporal(temporal.address);
      worker = await createLedgerWorker({ ...workerOptions, connection: workerConnection, wrapSteps: wrap });
      running = worker.run();
    },
    async close() {
      await stopWorker();
      await api.close();
      await runtime.close();
      await node.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  } as Stack;
}
