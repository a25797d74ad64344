/**
 * Repay, Swap Collateral, Refinance and Close go through the loan's own workflow (docs/loans.md, "One
 * movement of a loan at a time"): the API sends the write's request as the workflow's `moveLoan`
 * update, whose id is the write's workflow id (a retry or a repeat with the same key joins the first),
 * and the workflow runs the write as its child, one movement at a time. The API then answers as for
 * any write, from the write's own run and record (202, resting writes, refusals, reconciling).
 */
import { isGrpcServiceError, ServiceError, WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, WorkflowUpdateStage, type WorkflowUpdateHandle } from '@temporalio/client';
import { LedgerTransaction, Loan } from '../db/entities';
import { findAccountByLookup } from '../db/repositories/accounts.repository';
import { deletePendingRecord } from '../db/repositories/transaction-records.repository';
import { conflict, LedgerError } from '../domain/errors';
import type { AccountLookupInput } from '../domain/inputs/common.inputs';
import { legacyLoanWorkflowId, loanMovementUpdate, loanWorkflowId, type LoanMovement } from '../domain/loan-lifecycle';
import type { WriteRequest, WriteResult } from '../domain/write';
import type { ledgerWrite } from '../workflows/write/write.workflow';
import type { ApiDeps } from './context';
import { startWorkflow, type StartWrite } from './writes';

/** A write in these statuses waits on people (approvers, signers, Submit Transaction), possibly for days. */
const RESTING = ['AWAITING_APPROVAL', 'AWAITING_SIGNATURES', 'SIGNED'];

/**
 * The loan the request moves: its escrow address, and the write holding it when that write rests
 * (a movement behind it would wait for days: it is refused at once instead). Null when the request
 * names no loan (the write's own lookup refuses it, as before).
 */
async function loanOf(deps: ApiDeps, request: WriteRequest): Promise<{ escrow: string; resting: { id: string; status: string } | null } | null> {
  const lookup = (request.itemData as { escrow?: AccountLookupInput }).escrow;
  if (!lookup) return null;
  const em = deps.orm.em.fork();
  let loan: { escrowAddress: string; inUseByTransactionId?: string | null } | null;
  try {
    const escrow = await findAccountByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, lookup, 'itemData.escrow');
    loan = await em.findOne(Loan, { organizationId: request.organizationId, escrowAccountId: escrow.id }, { fields: ['escrowAddress', 'inUseByTransactionId'] });
  } catch (error) {
    if (error instanceof LedgerError) return null;
    throw error;
  }
  if (!loan) return null;
  const holder = loan.inUseByTransactionId ? await em.findOne(LedgerTransaction, { id: loan.inUseByTransactionId }, { fields: ['status', 'workflowId'] }) : null;
  if (!holder || !RESTING.includes(holder.status)) return { escrow: loan.escrowAddress, resting: null };
  // SIGNED is also a moment of every write between sign and submit: it rests only when its run waits for Submit Transaction.
  const rests = holder.status !== 'SIGNED' || (await deps.temporal.client.workflow.getHandle(holder.workflowId).query<string>('currentStep').catch(() => '')) === 'awaitSubmit';
  return { escrow: loan.escrowAddress, resting: rests ? { id: holder.id, status: holder.status } : null };
}

/** A Temporal frontend answers FAILED_PRECONDITION ("workflow not ready") to an update that met a workflow task failing as it completed: sent again. */
const UPDATE_ATTEMPTS = 3;
const grpcCode = (error: unknown) => (error instanceof ServiceError && isGrpcServiceError(error.cause) ? error.cause.code : undefined);
const isNotReady = (error: unknown) => grpcCode(error) === 9;
/**
 * How long a movement waits for the loan's workflow to take it. A polling worker takes it within
 * milliseconds (the wait for the loan's turn comes after); with no worker the server would hold the
 * request for as long as the client waits.
 */
export const MOVEMENT_ACCEPT_MS = 10_000;
/** RESOURCE_EXHAUSTED: the server's limit of updates in flight on one workflow (10 by default) is reached. */
const isCrowded = (error: unknown) => grpcCode(error) === 8;

/**
 * Starts a loan movement through the loan's workflow; idempotent (the update's id and the child's
 * workflow id are the write's). Refused at once by the workflow's validator when the loan's state
 * refuses it (409 naming itemData.escrow, nothing written). A loan without a running workflow (settled,
 * so its workflow has ended, or opened before loan workflows existed) gets the write started as
 * before: the loan's hold (`in_use_by_transaction_id`) keeps it from racing another.
 */
export const throughLoanWorkflow: StartWrite = async (deps, request, organizationExternalId) => {
  const write = deps.temporal.client.workflow.getHandle<typeof ledgerWrite>(request.workflowId);
  // A repeat of a write that runs or has run: that run is the answer, as when the API starts it itself.
  const ran = await write.describe().catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  });
  if (ran) return { handle: write, ended: ran.status.name !== 'RUNNING' };
  const loan = await loanOf(deps, request);
  if (!loan) return startWorkflow(deps, request, organizationExternalId);
  const { escrow } = loan;

  // The loan's workflow runs under its current id, or under the legacy one for a loan opened before it (src/main/loan-workflows.ts).
  const loanIds = [loanWorkflowId({ id: request.organizationId, externalId: request.organizationExternalId }, escrow), legacyLoanWorkflowId(request.organizationId, escrow)];
  const movement: LoanMovement = { request, workflowTaskTimeoutSeconds: deps.temporal.writeTaskTimeoutSeconds };
  // A refused movement never runs: the PENDING record a respond-async request made before the start goes.
  const refused = async (error: unknown): Promise<never> => {
    await deletePendingRecord(deps.orm.em.fork(), request.transactionId);
    throw error;
  };
  if (loan.resting) return refused(conflict('itemData.escrow', `another write on this loan (transaction ${loan.resting.id}) waits for ${loan.resting.status === 'SIGNED' ? 'Submit Transaction' : loan.resting.status === 'AWAITING_APPROVAL' ? 'approval' : 'signatures'}; retry once it has ended`));
  let update: WorkflowUpdateHandle<WriteResult | null> | undefined;
  for (let attempt = 1, which = 0; !update; ) {
    try {
      const loan = deps.temporal.client.workflow.getHandle(loanIds[which]);
      update = await deps.temporal.client.withDeadline(Date.now() + MOVEMENT_ACCEPT_MS, () =>
        loan.startUpdate<WriteResult | null, [LoanMovement]>(loanMovementUpdate, { args: [movement], updateId: request.workflowId, waitForStage: WorkflowUpdateStage.ACCEPTED }),
      );
    } catch (error) {
      // No worker took it in time. The server may still hand it to one that comes, so the outcome is not
      // known: 503, and its PENDING record stays; the same request again (same key) joins the movement.
      if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
        throw new LedgerError('UNAVAILABLE', `no worker took this movement of the loan within ${MOVEMENT_ACCEPT_MS / 1000} s; it may still run when one does: send the same request again (same Idempotency-Key) for its outcome`);
      }
      if (attempt++ < UPDATE_ATTEMPTS && isNotReady(error)) continue;
      if (error instanceof WorkflowNotFoundError && ++which < loanIds.length) continue;
      // No workflow runs for this loan: the write runs on its own, guarded by the loan's hold.
      if (error instanceof WorkflowNotFoundError) return startWorkflow(deps, request, organizationExternalId);
      if (isCrowded(error)) return refused(conflict('itemData.escrow', 'too many movements of this loan are waiting for their turn; retry once one has ended'));
      // The validator's refusal (a WorkflowUpdateFailedError) is answered by the error middleware.
      return refused(error);
    }
  }

  // A rejected update comes back completed in the start answer (result() then settles without a call):
  // the loan's state refused it, nothing ran and no record will come (409 naming itemData.escrow).
  const answer = update.result();
  const rejection = await settledAtOnce(answer);
  if (rejection) return refused(rejection);

  // The update's answer is the write's result; a refusal (or a write that had run before) is answered from the write's own run.
  const result = async (): Promise<WriteResult> => {
    let failure: WorkflowUpdateFailedError | undefined;
    try {
      const answered = await answer;
      if (answered) return answered;
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      failure = error;
    }
    // No run of the write behind a failed update (not expected): its refusal, as a failed write's (runWrite rethrows those at once).
    return write.result().catch((error: unknown) => {
      throw error instanceof WorkflowNotFoundError && failure ? new WorkflowFailedError(failure.message, failure.cause, 'NON_RETRYABLE_FAILURE') : error;
    });
  };
  // Until its turn comes the write's run does not exist yet: describe() fails, and runWrite takes it for running.
  return { handle: { ...write, result }, ended: false };
};

/**
 * The failure of an update whose outcome came with its start answer (a validator's rejection), or
 * null when the update was accepted and runs on: the outcome-in-hand path only decodes (microtasks),
 * so it settles before the next turn of the event loop, while an open update goes to the server.
 */
async function settledAtOnce(outcome: Promise<unknown>): Promise<WorkflowUpdateFailedError | null> {
  const pending = Symbol('pending');
  const first = await Promise.race([
    outcome.then(
      () => null,
      (error: unknown) => (error instanceof WorkflowUpdateFailedError ? error : null),
    ),
    new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending))),
  ]);
  return first === pending ? null : first;
}
