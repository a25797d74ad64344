/**
 * Loans created before workflow ids named the organization by its external id keep their workflow's
 * old id (docs/loans.md): a change to such a loan still reaches its workflow, and a replayed Create
 * Loan does not start a second one. Against the real Temporal dev server; the workflows wait on a
 * task queue nobody polls, so only what the server records counts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { legacyLoanWorkflowId, loanChangedSignal, loanWorkflowId, loanWorkflowType } from '../../src/domain/loan-lifecycle';
import { hasLegacyLoanWorkflow, onLoanWorkflow } from '../../src/main/loan-workflows';
import { temporalTarget, uniqueTaskQueue } from '../support/temporal';

let connection: Connection;
let client: Client;
const taskQueue = uniqueTaskQueue('loan-ids');

beforeAll(async () => {
  connection = await Connection.connect({ address: temporalTarget().address });
  client = new Client({ connection, namespace: temporalTarget().namespace });
});
afterAll(async () => {
  await connection?.close();
});

const organization = () => ({ id: randomUUID(), externalId: `org-${randomBytes(3).toString('hex')}` });
const signals = async (workflowId: string) =>
  (await client.workflow.getHandle(workflowId).fetchHistory()).events!.filter(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === loanChangedSignal,
  ).length;

it('signals an old loan under its old id, and a new loan under the new one', async () => {
  const org = organization();
  const oldEscrow = `Old${randomBytes(8).toString('hex')}`;
  const newEscrow = `New${randomBytes(8).toString('hex')}`;
  await client.workflow.start(loanWorkflowType, { taskQueue, workflowId: legacyLoanWorkflowId(org.id, oldEscrow), args: [{}] });
  await client.workflow.start(loanWorkflowType, { taskQueue, workflowId: loanWorkflowId(org, newEscrow), args: [{}] });

  await onLoanWorkflow(client, org, oldEscrow, (handle) => handle.signal(loanChangedSignal));
  await onLoanWorkflow(client, org, newEscrow, (handle) => handle.signal(loanChangedSignal));

  expect(await signals(legacyLoanWorkflowId(org.id, oldEscrow))).toBe(1);
  expect(await signals(loanWorkflowId(org, newEscrow))).toBe(1);
  // A loan with no workflow under either id: the last attempt's WorkflowNotFoundError.
  await expect(onLoanWorkflow(client, org, `None${randomBytes(8).toString('hex')}`, (handle) => handle.signal(loanChangedSignal))).rejects.toThrow(
    /not found/i,
  );

  for (const id of [legacyLoanWorkflowId(org.id, oldEscrow), loanWorkflowId(org, newEscrow)]) await client.workflow.getHandle(id).terminate('test over');
});

it('finds the workflow a loan of the previous release was started with', async () => {
  const org = organization();
  const escrow = `Old${randomBytes(8).toString('hex')}`;
  expect(await hasLegacyLoanWorkflow(client, org, escrow)).toBe(false);
  await client.workflow.start(loanWorkflowType, { taskQueue, workflowId: legacyLoanWorkflowId(org.id, escrow), args: [{}] });
  expect(await hasLegacyLoanWorkflow(client, org, escrow)).toBe(true);
  await client.workflow.getHandle(legacyLoanWorkflowId(org.id, escrow)).terminate('test over');
});
