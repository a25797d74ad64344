/**
 * A worker in its own process, for the crash test: it runs the pipeline normally until the confirm
 * step starts, then prints CONFIRM_STARTED and hangs, waiting to be killed with SIGKILL.
 * Configuration comes from the environment the test passes.
 */
import { loadConfig } from '../../src/config/config';
import { openRuntime } from '../../src/main/runtime';
import { createLedgerWorker } from '../../src/main/worker';

async function main() {
  const config = loadConfig();
  const runtime = await openRuntime({ ...config, databaseUrl: config.databaseUrl! }, () => {});
  const worker = await createLedgerWorker({
    address: config.temporal.address!,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    runtime,
    logoPolicy: config.logoPolicy,
    wrapActivities: (activities) => ({
      ...activities,
      confirm: async () => {
        process.stdout.write('CONFIRM_STARTED\n');
        return new Promise(() => {});
      },
    }),
  });
  process.stdout.write('WORKER_READY\n');
  await worker.run();
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
