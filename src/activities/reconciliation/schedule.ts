/**
 * The reconciliation schedule (docs/reconciliation.md): one Temporal Schedule per deployment, named
 * after its task queue (deployments sharing a Temporal namespace keep their own), that starts
 * `scheduledReconciliation` every RECONCILE_INTERVAL_SECONDS. Created or updated by each worker at
 * start; overlaps are skipped (a slow pass never stacks another); 0 pauses it.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

/** The schedule's id, readable in the Web UI's Schedules. */
export const reconciliationScheduleId = (taskQueue: string): string => `ledger-reconciliation-${taskQueue}`;

/** The workflow the schedule starts (src/workflows/reconciliation.workflow.ts). */
export const reconciliationWorkflowType = 'scheduledReconciliation';

/** Default interval: every 10 minutes (API.md section 9). */
export const DEFAULT_RECONCILE_INTERVAL_SECONDS = 600;

/** Makes the schedule run every `seconds` (0: paused). Idempotent: workers starting at once converge on the same schedule. */
export async function syncReconciliationSchedule(client: Client, taskQueue: string, seconds: number): Promise<void> {
  const scheduleId = reconciliationScheduleId(taskQueue);
  const every = seconds > 0 ? seconds : DEFAULT_RECONCILE_INTERVAL_SECONDS;
  const spec = { intervals: [{ every: `${every}s` }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: reconciliationWorkflowType,
    args: [],
    taskQueue,
    workflowId: scheduleId,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: `${Math.max(every, 60)}s` };
  const note = seconds > 0 ? `reconcile every ${seconds}s` : 'RECONCILE_INTERVAL_SECONDS is 0: paused';
  try {
    await client.schedule.create({ scheduleId, spec, action, policies, state: { paused: seconds === 0, note } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule
      .getHandle(scheduleId)
      .update((previous) => ({ ...previous, spec, action, policies, state: { ...previous.state, paused: seconds === 0, note } }));
  }
}
