/**
 * The activity interceptor that keeps business refusals out of the warnings, run as the worker runs
 * activities (the SDK's MockActivityEnvironment, its logger captured): a refusal is one info line with
 * its code, field, activity and workflow, and leaves BENIGN so the SDK's "Activity failed" is DEBUG; a
 * fault (a plain Error, a 5xx code) passes untouched and the SDK warns.
 */
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { toActivityFailure } from '../../src/activities/failure';
import { isBusinessRefusal, refusalLogging } from '../../src/activities/refusal-logging';
import { LedgerError, notFound } from '../../src/domain/errors';

function environment() {
  const sdk: LogEntry[] = [];
  const refusals: { fields: Record<string, unknown>; message: string }[] = [];
  const env = new MockActivityEnvironment(
    { activityType: 'prepare', isLocal: true, workflowType: 'ledgerWrite', workflowExecution: { workflowId: 'create_account-org-1-req-1', runId: 'run-1' } },
    {
      logger: new DefaultLogger('TRACE', (entry) => sdk.push(entry)),
      interceptors: [refusalLogging(() => (fields, message) => refusals.push({ fields, message }))],
    },
  );
  const failWith = (error: unknown) =>
    env.run(async () => {
      throw toActivityFailure(error);
    });
  return { sdk, refusals, failWith };
}

it('logs a business refusal once at info with its code, field, activity and workflow; the SDK logs it at DEBUG only', async () => {
  const { sdk, refusals, failWith } = environment();
  const thrown = await failWith(notFound('svmTransactionConfig.feePayer', 'no such fee payer')).catch((e: unknown) => e);
  expect(thrown).toBeInstanceOf(ApplicationFailure);
  expect(thrown).toMatchObject({
    type: 'NOT_FOUND',
    message: 'no such fee payer',
    nonRetryable: true,
    category: ApplicationFailureCategory.BENIGN,
    details: [{ field: 'svmTransactionConfig.feePayer', context: {} }],
  });
  expect(refusals).toEqual([
    {
      fields: {
        errorCode: 'NOT_FOUND',
        field: 'svmTransactionConfig.feePayer',
        activityType: 'prepare',
        workflowId: 'create_account-org-1-req-1',
        workflowRunId: 'run-1',
        workflowType: 'ledgerWrite',
        isLocal: true,
        attempt: 1,
      },
      message: 'prepare refused (NOT_FOUND): no such fee payer',
    },
  ]);
  expect(sdk.filter((entry) => entry.message === 'Activity failed').map((entry) => entry.level)).toEqual(['DEBUG']);
});

it.each([
  ['a plain Error (a transport or database fault)', new Error('connection reset')],
  ['an INTERNAL failure', new LedgerError('INTERNAL', 'a bug')],
  ['an UNAVAILABLE failure', new LedgerError('UNAVAILABLE', 'the node did not answer')],
])('leaves %s as it is: no refusal line, the SDK warns', async (_label, error) => {
  const { sdk, refusals, failWith } = environment();
  const thrown = await failWith(error).catch((e: unknown) => e);
  expect((thrown as { category?: string }).category).toBeUndefined();
  expect((thrown as Error).message).toBe(error.message);
  expect(refusals).toEqual([]);
  expect(sdk.filter((entry) => entry.message === 'Activity failed').map((entry) => entry.level)).toEqual(['WARN']);
});

it('counts only codes of a 4xx status as business refusals', () => {
  expect(isBusinessRefusal(ApplicationFailure.create({ type: 'CONFLICT', nonRetryable: true }))).toBe(true);
  expect(isBusinessRefusal(ApplicationFailure.create({ type: 'LIMIT_EXCEEDED', nonRetryable: true }))).toBe(true);
  expect(isBusinessRefusal(ApplicationFailure.create({ type: 'NETWORK_ERROR', nonRetryable: true }))).toBe(false);
  expect(isBusinessRefusal(ApplicationFailure.create({ type: 'SomethingElse' }))).toBe(false);
  expect(isBusinessRefusal(new LedgerError('NOT_FOUND', 'not converted'))).toBe(false);
});
