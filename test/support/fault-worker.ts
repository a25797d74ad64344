/**
 * A worker in its own process, for the fault tests: it runs the pipeline normally until its fault
 * point, prints `FAULT_POINT_REACHED <point>` and hangs there, waiting to be killed with SIGKILL.
 * FAULT_POINT is `before:<step>` (the step never starts) or `after:<step>` (the step did its work,
 * its result never reaches the workflow), or `none`; a step is one of the pipeline's (lookup, checkLimits,
 * build, sign, submit, confirm, record), wherever the workflow's activities group it. Configuration comes from the environment.
 */
import { loadConfig } from '../../src/config/config';
import { openRuntime } from '../../src/main/runtime';
import { connectTemporal, createLedgerWorker } from '../../src/main/worker';

const point = process.env.FAULT_POINT ?? 'none';
const [when, step] = point.split(':');
const hang = () => {
  process.stdout.write(`FAULT_POINT_REACHED ${point}\n`);
  return new Promise<never>(() => {});
};

async function main() {
  const config = loadConfig();
  const runtime = await openRuntime({ ...config, databaseUrl: config.databaseUrl! }, () => {});
  const connection = await connectTemporal(config.temporal.address!);
  const worker = await createLedgerWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    runtime,
    logoPolicy: config.logoPolicy,
    webhookUrlPolicy: config.webhookUrlPolicy,
    wrapSteps: (steps) => {
      const target = steps[step as keyof typeof steps] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      if (!target) return steps;
      const wrapped = async (...args: unknown[]) => {
        if (when === 'before') return hang();
        await target(...args);
        return hang();
      };
      return { ...steps, [step]: wrapped };
    },
  });
  process.stdout.write('WORKER_READY\n');
  await worker.run();
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
