/**
 * A stored loan workflow history (an OPEN loan marked OVERDUE and liquidated, recorded by
 * test/e2e/loan-lifecycle.test.ts with LOAN_HISTORY_FIXTURE=1, as the History proto's bytes)
 * replays on today's workflow code: a release that changes loanLifecycle without patching
 * (docs/loans.md) fails here before it breaks the open loans of a running system.
 */
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

const stored = () => temporal.api.history.v1.History.decode(fs.readFileSync(path.join(__dirname, '../fixtures/loan-liquidation-history.pb')));
const replay = (history: temporal.api.history.v1.IHistory) => Worker.runReplayHistory({ workflowsPath: require.resolve('../../src/workflows') }, history, 'loan-stored-history');
const { EventType } = temporal.api.enums.v1;

it('replays a stored liquidation history of a loan without non-determinism', async () => {
  const history = stored();
  expect(history.events.map((e) => e.eventType)).toEqual(expect.arrayContaining([EventType.EVENT_TYPE_TIMER_FIRED, EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED]));
  await replay(history);
});

it('fails the replay of a history whose commands the code does not make (the check can fail)', async () => {
  const history = stored();
  // As if an older release had scheduled another activity where the code now reads the loan.
  const scheduled = history.events.find((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType!.name = 'notTheLoanActivity';
  await expect(replay(history)).rejects.toThrow(/[Dd]eterminism/);
});
