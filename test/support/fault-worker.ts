/**
 * A worker in its own process, for the fault tests: it runs the pipeline normally until its fault
 * point, prints `FAULT_POINT_REACHED <point>` and hangs there, waiting to be killed with SIGKILL.
 * FAULT_POINT is `before:<step>` (the step never starts) or `after:<step>` (the step did its work,
 * its result never reaches the workflow), or `none`; a step is one of the pipeline's (lookup, checkLimits,
 * build, sign, submit, confirm, record), wherever the workflow's activities group it.
 * The chain follower's points (test/integration/follower-faults.test.ts) sit inside its step, at the
 * first batch that records a network transaction: `follower:before-commit` (the records are written,
 * the cursor's advance is being written, the database transaction is open) and
 * `follower:after-commit` (the batch committed; its deliveries are not started, the step not completed).
 * SIGTERM stops the worker gracefully (its running activities end first). Configuration comes from the environment.
 */
import { loadConfig } from '../../src/config/config';
import { openRuntime, type Runtime } from '../../src/main/runtime';
import { connectTemporal, createLedgerWorker } from '../../src/main/worker';

const point = process.env.FAULT_POINT ?? 'none';
const [when, step] = point.split(':');
const hang = () => {
  process.stdout.write(`FAULT_POINT_REACHED ${point}\n`);
  return new Promise<never>(() => {});
};

/**
 * The follower's points are found by the SQL its step sends (its source stays untouched): every
 * statement goes through the one connection object of the runtime's ORM.
 */
function hangInsideFollowerStep(runtime: Runtime, where: string) {
  const connection = runtime.orm.em.getConnection();
  const execute = connection.execute.bind(connection) as (...args: unknown[]) => Promise<unknown>;
  let recorded = false;
  (connection as unknown as { execute: unknown }).execute = async (...args: unknown[]) => {
    const sql = String(args[0]);
    if (recorded && where === 'before-commit' && /^update chain_cursor set slot = /.test(sql)) return hang();
    // deliverUpTo's read, the first statement of the step after the batch's commit.
    if (recorded && where === 'after-commit' && /origin = 'NETWORK' and (t\.)?slot > \?/.test(sql)) return hang();
    const result = await execute(...args);
    if (/^\s*insert into ledger_transaction/.test(sql) && sql.includes("'NETWORK'") && Array.isArray(result) && result.length > 0) recorded = true;
    return result;
  };
}

async function main() {
  const config = loadConfig();
  const runtime = await openRuntime({ ...config, databaseUrl: config.databaseUrl! }, () => {});
  if (when === 'follower') hangInsideFollowerStep(runtime, step);
  const connection = await connectTemporal(config.temporal.address!);
  const worker = await createLedgerWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    runtime,
    logoPolicy: config.logoPolicy,
    webhookUrlPolicy: config.webhookUrlPolicy,
    reconcileIntervalSeconds: config.reconcileIntervalSeconds,
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
  process.once('SIGTERM', () => worker.shutdown());
  process.stdout.write('WORKER_READY\n');
  await worker.run();
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
