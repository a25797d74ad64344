/** The API process: Koa over the runtime, writes started on Temporal. */
import http from 'node:http';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../api/app';
import { pingDatabase } from '../db/orm';
import { loadConfig, type Config } from '../config/config';
import { openRuntime, type Log, type Runtime } from './runtime';
import { connectTemporal, createLedgerWorker, type WorkerOptions } from './worker';

export interface ApiServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

export interface ApiOptions {
  port?: number;
  /** Run a worker in this process and start writes eagerly on it (default: config.temporal.apiHostsWorker). */
  hostWorker?: boolean;
  /** Test and bench hook around the hosted worker's pipeline steps. */
  wrapSteps?: WorkerOptions['wrapSteps'];
  /** The hosted worker's instrument prices (tests plug a fixed feed until oracle data sources exist). */
  prices?: WorkerOptions['prices'];
}

export async function startApi(config: Config, runtime: Runtime, temporal: { address: string; namespace: string }, log: Log, options: ApiOptions = {}): Promise<ApiServer> {
  // One connection for the client and the hosted worker: eager start hands a new write's first (and
  // only) workflow task straight to this process's worker, skipping the task-queue hand-off.
  const connection = await connectTemporal(temporal.address);
  const client = new Client({ connection, namespace: temporal.namespace });
  const hostWorker = options.hostWorker ?? config.temporal.apiHostsWorker;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  if (hostWorker) {
    worker = await createLedgerWorker({ connection, namespace: temporal.namespace, taskQueue: config.temporal.taskQueue, runtime, logoPolicy: config.logoPolicy, webhookUrlPolicy: config.webhookUrlPolicy, approvalTimeoutMs: config.approvalTimeoutMs, loanSecondsPerDay: config.loanSecondsPerDay, prices: options.prices, wrapSteps: options.wrapSteps });
    running = worker.run();
  }
  const app = createApp(
    {
      orm: runtime.orm,
      temporal: { client, taskQueue: config.temporal.taskQueue, eager: hostWorker, writeTaskTimeoutSeconds: config.temporal.writeTaskTimeoutSeconds },
      networks: runtime.networks,
      sealer: runtime.sealer,
      webhookUrlPolicy: config.webhookUrlPolicy,
      keyStore: runtime.keyStore,
      audit: (message) => log(`audit: ${message}`),
      platformName: config.platformName,
      rateLimit: config.rateLimit,
      defaultCommitment: config.defaultCommitment,
      writeWaitMs: config.writeWaitMs,
      now: () => new Date(),
      prices: options.prices,
      ready: async () => {
        await pingDatabase(runtime.orm);
        await connection.workflowService.getSystemInfo({});
        return true;
      },
    },
    (message, error) => log(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  );
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? config.port, config.host, resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://${config.host}:${address.port}`,
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running?.catch(() => undefined);
      await connection.close();
    },
  };
}

/** `npm run api`: needs DATABASE_URL, TEMPORAL_ADDRESS and SVM_CLUSTERS. */
async function main(config: Config, log: Log) {
  if (!config.databaseUrl || !config.temporal.address || config.clusters.length === 0) {
    throw new Error('npm run api needs DATABASE_URL, TEMPORAL_ADDRESS and SVM_CLUSTERS (npm start runs everything with embedded defaults)');
  }
  const runtime = await openRuntime({ ...config, databaseUrl: config.databaseUrl }, log, { migrate: true });
  const api = await startApi(config, runtime, { address: config.temporal.address, namespace: config.temporal.namespace }, log);
  log(`API listening on ${api.url}`);
  const stop = async () => {
    await api.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main(loadConfig(), (m) => console.log(`[api] ${m}`)).catch((error) => {
    console.error(`[api] ${error.message}`);
    process.exit(1);
  });
}
