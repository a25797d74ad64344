/** The Temporal worker: the write workflow and every activity, on one task queue. */
import { Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime as TemporalRuntime, Worker, type LogLevel } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { createActivities, type Steps } from '../activities';
import { refusalLogging, type RefusalLog } from '../activities/refusal-logging';
import { type Config, type TemporalConnection } from '../config/config';
import type { WriteRequest } from '../domain/write';
import { openRuntime, runMain, type Runtime } from './runtime';
import { infoLog, type Logger } from '../observability/logger';
import type { LogoPolicy } from '../storage/logo-fetcher';
import type { OutboundUrlPolicy } from '../network/outbound-url';
import type { PriceSource } from '../domain/prices';
import { loanChangedSignal, loanWorkflowId, loanWorkflowType, type LoanLifecycleInput } from '../domain/loan-lifecycle';
import { hasLegacyLoanWorkflow, onLoanWorkflow } from './loan-workflows';
import { Organization } from '../db/entities';
import { loanSearchAttributes } from '../workflows/loan-search-attributes';
import type { OraclePolicy } from '../domain/oracle-job';
import { temporalOracleSchedules } from '../activities/oracle/schedules';
import { createOraclePriceSource } from '../activities/oracle/oracle-prices';
import { tracingFromConfig, type Tracing } from '../observability/tracing';
import { chainFollowerWorkflowId } from '../follower/ids';
import { DEFAULT_RECONCILE_INTERVAL_SECONDS, syncReconciliationSchedule } from '../activities/reconciliation/schedule';

export interface WorkerOptions {
  /** The connection to poll on; the API passes its own so its client can start writes eagerly on this worker. */
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  runtime: Runtime;
  logoPolicy: LogoPolicy;
  webhookUrlPolicy: OutboundUrlPolicy;
  approvalTimeoutMs?: number;
  /** Seconds in a loan day (config.loanSecondsPerDay). */
  loanSecondsPerDay?: number;
  /** Instrument prices for loans (default: the organization's own oracle data sources). */
  prices?: PriceSource;
  /** How long running activities get to finish when the worker shuts down (default 30 s). */
  shutdownGraceMs?: number;
  /** Where oracle jobs may read from (absent: nowhere). */
  oraclePolicy?: OraclePolicy;
  /** Test and bench hook: wraps each pipeline step (fault points, timings). */
  wrapSteps?: (steps: Steps) => Steps;
  /** Tracing on: spans for the workflows, activities (local ones included) and the workflows they start. */
  tracing?: Tracing;
  /** Where an activity's business refusal is logged at info (default: the logger given to installSdkLogger, else the SDK's). */
  logger?: Logger;
  /** Start the chain followers of the configured clusters (default true). */
  followChain?: boolean;
  /** How often the reconciliation schedule runs (config.reconcileIntervalSeconds; default 600; 0 pauses it). */
  reconcileIntervalSeconds?: number;
}

let loggerInstalled = false;
/** The process's logger, when installSdkLogger was given one: the SDK's lines and the activities' refusals go there. */
let processLogger: Logger | undefined;
const sdkLevels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * An SDK line's metadata for pino: its `error` as `err` (pino's serializer keeps the message and stack
 * a fault is found by; as `error` it showed as `{}`), with an ApplicationFailure's type beside it.
 */
function sdkFields(meta: Record<string, unknown> = {}): Record<string, unknown> {
  const { error, ...rest } = meta;
  if (!(error instanceof Error) || 'err' in rest) return meta;
  return { ...rest, err: error, ...(error instanceof ApplicationFailure && error.type ? { failureType: error.type } : {}) };
}

/** `host:port` for the SDK's Prometheus exporter (TEMPORAL_METRICS_ADDRESS), checked so a typo names the variable. */
export function sdkMetricsAddress(value = process.env.TEMPORAL_METRICS_ADDRESS): string | undefined {
  if (!value) return undefined;
  if (!/^(\[[0-9a-fA-F:]+\]|[\w.-]+):\d{1,5}$/.test(value)) throw new Error(`TEMPORAL_METRICS_ADDRESS "${value}" is not host:port (e.g. 127.0.0.1:9464)`);
  return value;
}

/**
 * The SDK's runtime, once per process: its own log level (TEMPORAL_LOG_LEVEL, default WARN: its INFO
 * lines are per worker state change) and, when TEMPORAL_METRICS_ADDRESS is set, its Prometheus
 * exporter (worker slots, polls, task latencies, sticky cache) served at that address under /metrics.
 * Its WARN and ERROR lines are faults: an activity's business refusal is not one of them (it is an
 * info line of the worker's own, src/activities/refusal-logging.ts).
 */
export function installSdkLogger(into?: Logger, level = (process.env.TEMPORAL_LOG_LEVEL ?? 'WARN') as LogLevel): void {
  if (loggerInstalled) return;
  loggerInstalled = true;
  processLogger = into;
  const metricsAddress = sdkMetricsAddress();
  // Into the process's logs (one JSON line each, `sdk: true`), or the SDK's own console lines.
  const sdk = into?.child({ sdk: true });
  const sdkLogger = sdk ? new DefaultLogger(level, (entry) => sdk[sdkLevels[entry.level]](sdkFields(entry.meta), entry.message)) : new DefaultLogger(level);
  try {
    TemporalRuntime.install({
      logger: sdkLogger,
      ...(metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress, countersTotalSuffix: true } } } } : {}),
    });
  } catch {
    // Already installed by the host process: keep its logger.
  }
}

/** `secured`: TLS and API key of a secured cluster (TEMPORAL_TLS*, TEMPORAL_API_KEY). */
export async function connectTemporal(address: string, secured: TemporalConnection = {}): Promise<NativeConnection> {
  installSdkLogger();
  return NativeConnection.connect({ address, ...secured });
}

/**
 * Worker tuning, from `npm run bench` on 2 cores: a write is one workflow task of local activities,
 * so what matters is enough workflow-task pollers on the normal queue (new writes arrive there) and
 * room for the local activities of every write in flight.
 */
export const workerTuning = {
  maxConcurrentWorkflowTaskExecutions: 100,
  maxConcurrentLocalActivityExecutions: 400,
  maxConcurrentActivityTaskExecutions: 100,
  maxCachedWorkflows: 2000,
  maxConcurrentWorkflowTaskPolls: 10,
  // Most writes never return to a worker after their one task: poll the normal queue as much as the sticky one.
  nonStickyToStickyPollRatio: 1,
} as const;

/** Where refusals go: the given logger, the process's, or (neither) the activity's SDK logger, at info. */
function refusalLog(logger = processLogger): Parameters<typeof refusalLogging>[0] {
  if (logger) return () => (fields, message) => logger.info(fields, message);
  return (ctx): RefusalLog =>
    (fields, message) =>
      ctx.log.info(message, fields);
}

export async function createLedgerWorker(options: WorkerOptions): Promise<Worker> {
  const { runtime, connection, namespace, taskQueue } = options;
  const client = new Client({ connection, namespace, interceptors: options.tracing?.clientInterceptors });
  // The deployment's reconciliation schedule (docs/reconciliation.md), at the configured interval.
  await syncReconciliationSchedule(client, taskQueue, options.reconcileIntervalSeconds ?? DEFAULT_RECONCILE_INTERVAL_SECONDS);
  const activities = createActivities(
    {
      orm: runtime.orm,
      networks: runtime.networks,
      keyStore: runtime.keyStore,
      sealer: runtime.sealer,
      feePayerAddress: runtime.feePayerAddress,
      logoPolicy: options.logoPolicy,
      webhookUrlPolicy: options.webhookUrlPolicy,
      fetch: globalThis.fetch,
      now: () => new Date(),
      approvalTimeoutMs: options.approvalTimeoutMs,
      loanSecondsPerDay: options.loanSecondsPerDay,
      prices: options.prices ?? createOraclePriceSource(runtime.orm),
      loans: {
        async start(input: LoanLifecycleInput) {
          const organization = { id: input.organizationId, externalId: input.organizationExternalId };
          // A Create Loan of the previous release, replayed here, finds its loan's workflow under the old id.
          if (await hasLegacyLoanWorkflow(client, organization, input.escrow)) return;
          try {
            await client.workflow.start(loanWorkflowType, {
              taskQueue,
              workflowId: loanWorkflowId(organization, input.escrow),
              args: [input],
              workflowIdConflictPolicy: 'USE_EXISTING',
              typedSearchAttributes: loanSearchAttributes(input),
            });
          } catch (error) {
            // Started and already ended: the loan's life is over.
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          }
        },
        async changed(organizationId: string, escrow: string) {
          const { externalId } = await runtime.orm.em.fork().findOneOrFail(Organization, { id: organizationId }, { fields: ['externalId'] });
          // A loan whose workflow has ended has nothing left to be told.
          await onLoanWorkflow(client, { id: organizationId, externalId }, escrow, (handle) => handle.signal(loanChangedSignal)).catch(() => undefined);
        },
      },
      oraclePolicy: options.oraclePolicy,
      oracleSchedules: temporalOracleSchedules(client, taskQueue),
      deliveries: {
        async start(workflowId: string, request: WriteRequest) {
          try {
            await client.workflow.start('deliverPostSubmitWebhooks', { taskQueue, workflowId, args: [request], workflowIdConflictPolicy: 'USE_EXISTING' });
          } catch (error) {
            // Started and already ended: delivered.
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          }
        },
        async startNetworkEvents(workflowId: string, transactionId: string) {
          try {
            await client.workflow.start('deliverNetworkTransactionWebhooks', {
              taskQueue,
              workflowId,
              args: [transactionId],
              workflowIdConflictPolicy: 'USE_EXISTING',
            });
          } catch (error) {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          }
        },
        async startLeftChainEvents(workflowId: string, transactionId: string) {
          try {
            await client.workflow.start('deliverLeftChainWebhooks', { taskQueue, workflowId, args: [transactionId], workflowIdConflictPolicy: 'USE_EXISTING' });
          } catch (error) {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          }
        },
      },
    },
    options.wrapSteps,
  );

  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities,
    ...workerTuning,
    shutdownGraceTime: options.shutdownGraceMs ?? 30_000,
    // The workflow bundle's interceptors and the sinks only when tracing is on; the activities' always
    // end with the refusal logging (inside tracing's, whose span then sees a refusal as BENIGN).
    interceptors: {
      ...options.tracing?.worker.interceptors,
      activity: [...(options.tracing?.worker.interceptors.activity ?? []), refusalLogging(refusalLog(options.logger))],
    },
    ...(options.tracing ? { sinks: options.tracing.worker.sinks } : {}),
  });
  if (options.followChain !== false) await startChainFollowers(client, taskQueue, runtime.networks.names);
  return worker;
}

/**
 * One chain follower per configured cluster (docs/chain-follower.md), started by every worker: the
 * fixed id and USE_EXISTING make the first start the only one (the API's hosted worker and `npm run
 * worker` may both start it).
 */
export async function startChainFollowers(client: Client, taskQueue: string, clusters: string[]): Promise<void> {
  for (const cluster of clusters) {
    await client.workflow.start('chainFollower', {
      taskQueue,
      workflowId: chainFollowerWorkflowId(cluster, taskQueue),
      args: [{ cluster }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `Chain follower of ${cluster}: records network transactions of subscribed accounts (query: position)`,
    });
  }
}

/**
 * How `npm run api` and `npm run worker` begin: they need DATABASE_URL, TEMPORAL_ADDRESS and
 * SVM_CLUSTERS; the SDK's lines go to the process's logger, traces are exported when configured,
 * and the runtime opens (`migrate`: the API applies the migrations).
 */
export async function startProcess(name: 'api' | 'worker', config: Config, logger: Logger, options: { migrate?: boolean } = {}) {
  const { databaseUrl, temporal } = config;
  if (!databaseUrl || !temporal.address || config.clusters.length === 0) {
    throw new Error(`npm run ${name} needs DATABASE_URL, TEMPORAL_ADDRESS and SVM_CLUSTERS (npm start runs everything with embedded defaults)`);
  }
  const log = infoLog(logger);
  installSdkLogger(logger);
  const tracing = await tracingFromConfig(config.tracing);
  if (tracing) log(`traces exported to ${config.tracing!.tracesUrl} as ${config.tracing!.serviceName}`);
  const runtime = await openRuntime({ ...config, databaseUrl }, log, { ...options, tracing });
  return { log, tracing, runtime, temporalAddress: temporal.address };
}

/** `npm run worker`. */
async function main(config: Config, logger: Logger) {
  const { log, tracing, runtime, temporalAddress } = await startProcess('worker', config, logger);
  const connection = await connectTemporal(temporalAddress, config.temporal.connection);
  const worker = await createLedgerWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    runtime,
    logoPolicy: config.logoPolicy,
    webhookUrlPolicy: config.webhookUrlPolicy,
    approvalTimeoutMs: config.approvalTimeoutMs,
    shutdownGraceMs: config.shutdown.graceMs,
    oraclePolicy: config.oraclePolicy,
    loanSecondsPerDay: config.loanSecondsPerDay,
    reconcileIntervalSeconds: config.reconcileIntervalSeconds,
    tracing,
  });
  log(`worker polling ${config.temporal.taskQueue} on ${temporalAddress}`);
  process.once('SIGINT', () => worker.shutdown());
  process.once('SIGTERM', () => worker.shutdown());
  await worker.run();
  await connection.close();
  await runtime.close();
  // The last spans (the shutdown's) leave before the process does.
  await tracing?.shutdown();
}

if (require.main === module) runMain('worker', main);
