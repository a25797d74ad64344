/** The Temporal worker: the write workflow and every activity, on one task queue. */
import { DefaultLogger, NativeConnection, Runtime as TemporalRuntime, Worker, type LogLevel } from '@temporalio/worker';
import { createActivities } from '../activities';
import { loadConfig, type Config } from '../config/config';
import { openRuntime, type Log, type Runtime } from './runtime';
import type { LogoPolicy } from '../storage/logo-fetcher';

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  runtime: Runtime;
  logoPolicy: LogoPolicy;
  /** Test hook: wraps the activities (fault injection). */
  wrapActivities?: (activities: ReturnType<typeof createActivities>) => ReturnType<typeof createActivities>;
}

let loggerInstalled = false;

/** The SDK's own log level (TEMPORAL_LOG_LEVEL, default WARN): its INFO lines are per worker state change. */
export function installSdkLogger(): void {
  if (loggerInstalled) return;
  loggerInstalled = true;
  try {
    TemporalRuntime.install({ logger: new DefaultLogger((process.env.TEMPORAL_LOG_LEVEL ?? 'WARN') as LogLevel) });
  } catch {
    // Already installed by the host process: keep its logger.
  }
}

export async function createLedgerWorker(options: WorkerOptions): Promise<Worker> {
  installSdkLogger();
  const connection = await NativeConnection.connect({ address: options.address });
  const { runtime } = options;
  const activities = createActivities({
    orm: runtime.orm,
    networks: runtime.networks,
    keyStore: runtime.keyStore,
    sealer: runtime.sealer,
    feePayerAddress: runtime.feePayerAddress,
    logoPolicy: options.logoPolicy,
    fetch: globalThis.fetch,
    now: () => new Date(),
  });
  return Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: options.wrapActivities ? options.wrapActivities(activities) : activities,
    maxConcurrentWorkflowTaskExecutions: 40,
    maxConcurrentActivityTaskExecutions: 200,
    maxConcurrentLocalActivityExecutions: 200,
    maxCachedWorkflows: 2000,
  });
}

/** `npm run worker`: needs DATABASE_URL, TEMPORAL_ADDRESS and SVM_CLUSTERS. */
async function main(config: Config, log: Log) {
  if (!config.databaseUrl || !config.temporal.address || config.clusters.length === 0) {
    throw new Error('npm run worker needs DATABASE_URL, TEMPORAL_ADDRESS and SVM_CLUSTERS (npm start runs everything with embedded defaults)');
  }
  const runtime = await openRuntime({ ...config, databaseUrl: config.databaseUrl }, log);
  const worker = await createLedgerWorker({ address: config.temporal.address, namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue, runtime, logoPolicy: config.logoPolicy });
  log(`worker polling ${config.temporal.taskQueue} on ${config.temporal.address}`);
  process.once('SIGINT', () => worker.shutdown());
  process.once('SIGTERM', () => worker.shutdown());
  await worker.run();
  await runtime.close();
}

if (require.main === module) {
  main(loadConfig(), (m) => console.log(`[worker] ${m}`)).catch((error) => {
    console.error(`[worker] ${error.message}`);
    process.exit(1);
  });
}
