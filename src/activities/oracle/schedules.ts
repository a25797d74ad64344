/**
 * Scheduled refresh (docs/oracle-data-sources.md): a Temporal Schedule per data source that starts
 * `scheduledOracleRefresh` every refreshEverySeconds. Overlaps are skipped (a slow source never
 * stacks refreshes), missed runs are caught up for one interval at most, and 0 pauses it.
 */
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { refreshScheduleId, scheduledRefreshWorkflow, type RefreshTarget } from '../../domain/oracle-schedule';

export interface OracleSchedules {
  /** Makes the data source's schedule run every `seconds`, or pauses it (null or 0). Idempotent. */
  sync(target: RefreshTarget, seconds: number | null): Promise<void>;
}

export function temporalOracleSchedules(client: Client, taskQueue: string): OracleSchedules {
  return {
    async sync(target, seconds) {
      const handle = client.schedule.getHandle(refreshScheduleId(target.dataSourceId));
      if (!seconds) {
        try {
          await handle.pause('refreshEverySeconds is 0: no scheduled refresh');
        } catch (error) {
          if (!(error instanceof ScheduleNotFoundError)) throw error;
        }
        return;
      }
      const spec = { intervals: [{ every: `${seconds}s` }] };
      const action = {
        type: 'startWorkflow' as const,
        workflowType: scheduledRefreshWorkflow,
        args: [target],
        taskQueue,
        workflowId: `oracle-refresh-${target.dataSourceId}`,
      };
      const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: `${Math.max(seconds, 60)}s` };
      try {
        await client.schedule.create({
          scheduleId: refreshScheduleId(target.dataSourceId),
          spec,
          action,
          policies,
          state: { note: `refresh every ${seconds}s` },
        });
      } catch (error) {
        if (!(error instanceof ScheduleAlreadyRunning)) throw error;
        await handle.update((previous) => ({
          ...previous,
          spec,
          action,
          policies,
          state: { ...previous.state, paused: false, note: `refresh every ${seconds}s` },
        }));
      }
    },
  };
}
