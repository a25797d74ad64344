/**
 * Stored loan workflow histories replay on today's workflow code: an OPEN loan marked OVERDUE and
 * liquidated (recorded by test/e2e/loan-lifecycle.test.ts with LOAN_HISTORY_FIXTURE=1, from before
 * movements were updates), and a loan whose Repay, Refinance and Repay All came in as `moveLoan`
 * updates (scripts/record-workflow-histories.ts), as the History proto's bytes. A release that changes
 * loanLifecycle without patching (docs/loans.md) fails here before it breaks the open loans of a running system.
 */
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

const stored = (file = 'loan-liquidation-history.pb') => temporal.api.history.v1.History.decode(fs.readFileSync(path.join(__dirname, '../fixtures', file)));
const replay = (history: temporal.api.history.v1.IHistory) =>
  Worker.runReplayHistory({ workflowsPath: require.resolve('../../src/workflows') }, history, 'loan-stored-history');
const { EventType } = temporal.api.enums.v1;

it('replays a stored liquidation history of a loan without non-determinism', async () => {
  const history = stored();
  expect(history.events.map((e) => e.eventType)).toEqual(
    expect.arrayContaining([
      EventType.EVENT_TYPE_TIMER_FIRED,
      EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    ]),
  );
  await replay(history);
});

it('fails the replay of a history whose commands the code does not make (the check can fail)', async () => {
  const history = stored();
  // As if an older release had scheduled another activity where the code now reads the loan.
  const scheduled = history.events.find((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType!.name = 'notTheLoanActivity';
  await expect(replay(history)).rejects.toThrow(/[Dd]eterminism/);
});

it('replays a stored history whose movements came in as updates, each run as a child write', async () => {
  const history = stored('workflow-histories/0.3.0-loan-movements.pb');
  const types = history.events.map((e) => e.eventType);
  expect(types.filter((t) => t === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toHaveLength(3);
  expect(types.filter((t) => t === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)).toHaveLength(3);
  expect(types.filter((t) => t === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)).toHaveLength(3);
  await replay(history);
});

it('fails the replay of an update history whose child write the code does not start (the check can fail)', async () => {
  const history = stored('workflow-histories/0.3.0-loan-movements.pb');
  const started = history.events.find((e) => e.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)!;
  started.startChildWorkflowExecutionInitiatedEventAttributes!.workflowType!.name = 'notTheWriteWorkflow';
  await expect(replay(history)).rejects.toThrow(/[Dd]eterminism/);
});
