/** The API process: Koa over the runtime, writes started on Temporal. */
import http from 'node:http';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../api/app';
import { pingDatabase } from '../db/orm';
import { Pool } from 'pg';
import { createCallerCache } from '../api/caller-cache';
import { createRateLimits } from '../api/rate-limits';
import { listen } from '../db/notifications';
import { createWriteRests } from '../client/write-rests';
import type { Logger } from '../observability/logger';
import { API_KEY_CHANNEL } from '../db/repositories/organizations.repository';
import { type Config } from '../config/config';
import { runMain, type Log, type Runtime } from './runtime';
import { connectTemporal, createLedgerWorker, startProcess, type WorkerOptions } from './worker';
import { createOraclePriceSource } from '../activities/oracle/oracle-prices';
import type { Tracing } from '../observability/tracing';

/** Opens all of `pool`'s connections, left idle in it; one that fails is opened by the first query needing it. */
async function openAll(pool: Pool): Promise<void> {
  const clients = await Promise.all(Array.from({ length: pool.options.max ?? 0 }, () => pool.connect().catch(() => undefined)));
  for (const client of clients) client?.release();
}

export interface ApiServer {
  url: string;
  server: http.Server;
  /** How many requests wait for their write to rest or end (tests: none left once all are answered). */
  waitingWrites(): number;
  close(): Promise<void>;
}

export interface ApiOptions {
  port?: number;
  /** Run a worker in this process and start writes eagerly on it (default: config.temporal.apiHostsWorker). */
  hostWorker?: boolean;
  /** Test and bench hook around the hosted worker's pipeline steps. */
  wrapSteps?: WorkerOptions['wrapSteps'];
  /** Structured logs: the access log, failures with their stack, audit lines (none: `log` only). */
  logger?: Logger;
  /** Instrument prices for loans (default: the oracle data sources; tests may plug a fixed feed). */
  prices?: WorkerOptions['prices'];
  /** Tracing on: spans for requests (named by route), workflow starts and the hosted worker. */
  tracing?: Tracing;
  /** The hosted worker starts the chain followers (default true; a test counting one write's work turns it off). */
  followChain?: boolean;
}

export async function startApi(
  config: Config,
  runtime: Runtime,
  temporal: { address: string; namespace: string },
  log: Log,
  options: ApiOptions = {},
): Promise<ApiServer> {
  // One connection for the client and the hosted worker: eager start hands a new write's first (and
  // only) workflow task straight to this process's worker, skipping the task-queue hand-off.
  const connection = await connectTemporal(temporal.address, config.temporal.connection);
  const client = new Client({ connection, namespace: temporal.namespace, interceptors: options.tracing?.clientInterceptors });
  const hostWorker = options.hostWorker ?? config.temporal.apiHostsWorker;
  const shutdown = config.shutdown ?? { drainDelayMs: 0, graceMs: 30_000 };
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  if (hostWorker) {
    worker = await createLedgerWorker({
      connection,
      namespace: temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      runtime,
      logoPolicy: config.logoPolicy,
      webhookUrlPolicy: config.webhookUrlPolicy,
      approvalTimeoutMs: config.approvalTimeoutMs,
      shutdownGraceMs: shutdown.graceMs,
      oraclePolicy: config.oraclePolicy,
      loanSecondsPerDay: config.loanSecondsPerDay,
      reconcileIntervalSeconds: config.reconcileIntervalSeconds,
      prices: options.prices,
      wrapSteps: options.wrapSteps,
      tracing: options.tracing,
      followChain: options.followChain,
    });
    running = worker.run();
  }
  // Callers stay cached until their key's change is announced (the admin CLI revokes in another process).
  const callers = createCallerCache(60_000);
  let listenerFailed = false;
  const apiKeyChanges = listen(
    runtime.orm.config.get('clientUrl')!,
    API_KEY_CHANNEL,
    (hash) => callers.forget(hash),
    () => callers.clear(),
    (message) => {
      if (!listenerFailed) log(message);
      listenerFailed = true;
    },
  );
  // Writes waiting for their result are told when their record comes to rest, instead of polling it.
  const writeRests = createWriteRests(runtime.orm.config.get('clientUrl')!, (message) => log(message));
  // Its own few connections: a limit decision must not queue behind the ORM pool's long queries.
  // Opened now and kept open (idleTimeoutMillis 0): opening one on a request's path costs ~60 ms on
  // this machine, a burst's first decisions then outran the store's 250 ms budget and fell back to
  // per-process limits.
  const rateLimitPool =
    config.rateLimit.store === 'postgresql'
      ? new Pool({ connectionString: runtime.orm.config.get('clientUrl')!, max: 4, idleTimeoutMillis: 0, connectionTimeoutMillis: 1000 })
      : undefined;
  rateLimitPool?.on('error', () => undefined); // an idle connection lost: the next query opens another
  if (rateLimitPool) await openAll(rateLimitPool);
  const rateLimits = createRateLimits(config.rateLimit, rateLimitPool ? { kind: 'postgresql', pool: rateLimitPool } : { kind: 'memory' }, (message) =>
    options.logger ? options.logger.warn(message) : log(message),
  );
  const app = createApp(
    {
      callers,
      rateLimits,
      trustProxyHops: config.trustProxyHops,
      orm: runtime.orm,
      temporal: { client, taskQueue: config.temporal.taskQueue, eager: hostWorker, writeTaskTimeoutSeconds: config.temporal.writeTaskTimeoutSeconds },
      networks: runtime.networks,
      sealer: runtime.sealer,
      webhookUrlPolicy: config.webhookUrlPolicy,
      oracleAllowedHosts: config.oraclePolicy.allowedHosts,
      keyStore: runtime.keyStore,
      audit: (message) => (options.logger ? options.logger.info({ audit: true }, message) : log(`audit: ${message}`)),
      logger: options.logger,
      platformName: config.platformName,
      operatorOrganization: config.operatorOrganization,
      rateLimit: config.rateLimit,
      defaultCommitment: config.defaultCommitment,
      writeWaitMs: config.writeWaitMs,
      writeDeadlineMs: config.writeDeadlineMs,
      rests: writeRests,
      now: () => new Date(),
      prices: options.prices ?? createOraclePriceSource(runtime.orm),
      traceRoutes: Boolean(options.tracing),
      ready: async () => {
        if (draining) return false;
        await pingDatabase(runtime.orm);
        await connection.workflowService.getSystemInfo({});
        return true;
      },
    },
    (message, error) =>
      options.logger
        ? options.logger.error({ err: error }, message)
        : log(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  );
  let draining = false;
  let closing: Promise<void> | undefined;
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? config.port, config.host, resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://${config.host}:${address.port}`,
    server,
    waitingWrites: () => writeRests.waiting(),
    close() {
      // Once: readiness flips first, then new connections stop and what is in flight finishes.
      closing ??= (async () => {
        draining = true;
        if (shutdown.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, shutdown.drainDelayMs));
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const cut = setTimeout(() => server.closeAllConnections(), shutdown.graceMs);
        await closed;
        clearTimeout(cut);
        if (worker?.getState() === 'RUNNING') worker.shutdown();
        await running?.catch(() => undefined);
        await apiKeyChanges.close();
        await writeRests.close();
        await rateLimitPool?.end();
        await connection.close();
      })();
      return closing;
    },
  };
}

/** `npm run api`. */
async function main(config: Config, logger: Logger) {
  const { log, tracing, runtime, temporalAddress } = await startProcess('api', config, logger, { migrate: true });
  const api = await startApi(config, runtime, { address: temporalAddress, namespace: config.temporal.namespace }, log, { logger, tracing });
  log(`API listening on ${api.url}`);
  const stop = async () => {
    log('stopping: draining requests in flight');
    await api.close();
    await runtime.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) runMain('api', main);
