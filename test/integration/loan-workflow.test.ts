/**
 * A loan's workflow as a layer (docs/loans.md, "One movement of a loan at a time"): the real
 * `loanLifecycle` on a real Worker against the dev server, with fake activities (the loan's record)
 * and a fake `ledgerWrite` child that blocks until told (test/support/workflows). Asserts what the
 * workflow decides: movements run one at a time in their order, each update answers its write's
 * result or refusal, a loan settled meanwhile refuses the next at once (no history), and
 * continue-as-new waits for the movement in flight, after which a repeat does not run the write again.
 */
import { Client, Connection, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { loanMovementUpdate, type LoanLifecycleInput, type LoanMovement, type LoanSnapshot } from '../../src/domain/loan-lifecycle';
import type { WriteRequest, WriteResult } from '../../src/domain/write';
import { temporalTarget, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed in this process: keep that logger.
}

const { EventType } = temporal.api.enums.v1;
const { address, namespace } = temporalTarget();
const taskQueue = uniqueTaskQueue('loan-workflow');
/** The loan's status as its record says, by loan id (the fake `loanSnapshot` answers it). */
const statusOf = new Map<string, string>();
const farMaturity = new Date(Date.now() + 30 * 86_400_000).toISOString();
let connection: Connection;
let client: Client;
let workerConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  connection = await Connection.connect({ address });
  client = new Client({ connection, namespace });
  workerConnection = await NativeConnection.connect({ address });
  const snapshot = async (loanId: string): Promise<LoanSnapshot> => ({
    status: statusOf.get(loanId) ?? 'OPEN',
    maturityAt: farMaturity,
    rollover: false,
    durationIndex: 0,
    pastLiquidationRatio: false,
  });
  worker = await Worker.create({
    connection: workerConnection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('../support/workflows/loan-with-fake-writes.workflow'),
    activities: { loanSnapshot: snapshot, markLoanOverdue: snapshot },
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await workerConnection?.close();
  await connection?.close();
});

let loans = 0;
async function startLoan() {
  const loanId = `${taskQueue}-loan${++loans}`;
  const input: LoanLifecycleInput = {
    organizationId: 'org',
    organizationExternalId: 'org-ext',
    apiKeyId: 'key',
    cluster: 'LOCAL',
    loanId,
    escrow: `escrow-${loanId}`,
    borrower: 'borrower',
    maturityAt: farMaturity,
    status: 'OPEN',
    graceMs: 1000,
  };
  const handle = await client.workflow.start('loanLifecycle', { taskQueue, workflowId: `loan-${loanId}`, args: [input] });
  return { handle, loanId };
}

let writes = 0;
function movement(operation: WriteRequest['operation'], block: boolean): LoanMovement {
  const workflowId = `${taskQueue}-write${++writes}`;
  const request: WriteRequest = {
    operation,
    transactionId: `tx-${writes}`,
    workflowId,
    organizationId: 'org',
    organizationExternalId: 'org-ext',
    apiKeyId: 'key',
    cluster: 'LOCAL',
    idempotencyKey: null,
    commitment: 'confirmed',
    submit: true,
    itemData: { block },
    svmTransactionConfig: {},
  };
  return { request, workflowTaskTimeoutSeconds: 10 };
}
const move = (handle: WorkflowHandle, m: LoanMovement) =>
  handle.startUpdate<WriteResult | null, [LoanMovement]>(loanMovementUpdate, {
    args: [m],
    updateId: m.request.workflowId,
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
const runs = (workflowId: string) =>
  client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      (d) => d,
      (error) => (error instanceof WorkflowNotFoundError ? null : Promise.reject(error)),
    );
const untilRunning = (workflowId: string) => waitFor(async () => ((await runs(workflowId))?.status.name === 'RUNNING' ? true : undefined), 10_000, 100);
const finish = (workflowId: string, how: { refuse?: string } = {}) => client.workflow.getHandle(workflowId).signal('finishWrite', how);
const eventsOf = async (handle: WorkflowHandle, type: number, runId?: string) =>
  ((await client.workflow.getHandle(handle.workflowId, runId).fetchHistory()).events ?? []).filter((e) => e.eventType === type);

it("runs movements one at a time, answers each write's result or refusal, and refuses at once a movement of a loan settled meanwhile", async () => {
  const { handle, loanId } = await startLoan();
  const a = movement('REPAY_LOAN', true);
  const b = movement('SWAP_COLLATERAL', true);
  const first = await move(handle, a);
  await untilRunning(a.request.workflowId);
  const second = await move(handle, b);
  // The second is accepted and waits for its turn: its write has not started while the first runs.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await runs(b.request.workflowId)).toBeNull();

  // The first, a repayment, settles the loan (as the record says once it has run).
  statusOf.set(loanId, 'REPAID');
  await finish(a.request.workflowId);
  expect(await first.result()).toEqual({ transaction: null, created: { onchainId: a.request.workflowId, offchainId: a.request.transactionId } });
  // The second, accepted before, still gets its turn; while its write runs (the run cannot end), the
  // workflow's state already follows the record: a repayment now is refused by the validator, nothing of
  // it in the history, its write never started. (Sent after the run ended, it would find no workflow.)
  await untilRunning(b.request.workflowId);
  const c = movement('REPAY_LOAN', false);
  const third = await move(handle, c).catch((error: unknown) => error);
  const rejected =
    third instanceof WorkflowUpdateFailedError ? third : await (third as { result(): Promise<unknown> }).result().catch((error: unknown) => error);
  expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((rejected as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'CONFLICT', message: expect.stringMatching(/REPAID/) });
  // The second write refuses (the loan is repaid): the update answers the refusal.
  await finish(b.request.workflowId, { refuse: 'the loan is REPAID: its collateral no longer changes' });
  const refusal = await second.result().catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((refusal as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'CONFLICT', message: expect.stringMatching(/REPAID/) });
  expect(((refusal as WorkflowUpdateFailedError).cause as ApplicationFailure).details).toEqual([{ field: 'itemData.escrow', context: {} }]);
  expect(await handle.result()).toBe('REPAID');
  const accepted = await eventsOf(handle, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
  expect(accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.meta!.updateId)).toEqual([
    a.request.workflowId,
    b.request.workflowId,
  ]);
  expect(await eventsOf(handle, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)).toHaveLength(2);
  expect(await runs(c.request.workflowId)).toBeNull();
});

it('continues as new only once the movement in flight has ended; a repeat in the new run answers without running the write again', async () => {
  const { handle } = await startLoan();
  const firstRunId = (await handle.describe()).runId;
  const x = movement('REFINANCE_LOAN', true);
  const update = await move(handle, x);
  await untilRunning(x.request.workflowId);
  // 50 wake-ups (one loan read each) bring the run to its end: it must wait for the movement in flight.
  for (let turn = 1; turn <= 50; turn++) {
    await handle.signal('loanChanged');
    await waitFor(
      async () => ((await eventsOf(handle, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, firstRunId)).length >= turn ? true : undefined),
      10_000,
      20,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect((await client.workflow.getHandle(handle.workflowId, firstRunId).describe()).status.name).toBe('RUNNING');

  await finish(x.request.workflowId);
  expect(await update.result()).toMatchObject({ created: { onchainId: x.request.workflowId } });
  await waitFor(
    async () => ((await client.workflow.getHandle(handle.workflowId, firstRunId).describe()).status.name === 'CONTINUED_AS_NEW' ? true : undefined),
    10_000,
    100,
  );
  const write = await runs(x.request.workflowId);

  // The same movement again (an API retry) meets the new run, which does not know its update id: the write's id dedups it.
  const repeat = await move(handle, x);
  expect(await repeat.result()).toBeNull();
  expect((await runs(x.request.workflowId))!.runId).toBe(write!.runId);
  const newRun = (await handle.describe()).runId;
  expect(newRun).not.toBe(firstRunId);
  expect(await eventsOf(handle, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED, newRun)).toHaveLength(1);
  await handle.terminate('test over');
});
