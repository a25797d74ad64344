/**
 * Repay, Swap Collateral, Refinance and Close go through the loan's own workflow (docs/loans.md, "One
 * movement of a loan at a time"), sent with Temporal's update-with-start: the write's request is the
 * workflow's `moveLoan` update, whose id is the write's workflow id (a retry or a repeat with the same
 * key joins the first), and the loan's workflow is started first when none runs (a settled loan's has
 * ended; an operator may have ended one). The workflow alone decides the order of movements and
 * refuses one behind a write that rests; the write client answers as for any write, from the write's
 * own run and record.
 */
import {
  isGrpcServiceError,
  ServiceError,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import { Loan, LoanStrategy } from '../db/entities';
import { findAccountByLookup, scopeOf } from '../db/repositories/accounts.repository';
import { deletePendingRecord } from '../db/repositories/transaction-records.repository';
import { conflict, LedgerError } from '../domain/errors';
import type { AccountLookupInput } from '../domain/inputs/common.inputs';
import {
  legacyLoanWorkflowId,
  lifecycleInputOf,
  loanMovementUpdate,
  loanWorkflowId,
  loanWorkflowType,
  type LoanLifecycleInput,
  type LoanMovement,
} from '../domain/loan-lifecycle';
import type { WriteRequest, WriteResult } from '../domain/write';
import { loanSearchAttributes } from '../workflows/loan-search-attributes';
import type { Workflow } from '@temporalio/common';
import type { ledgerWrite } from '../workflows/write/write.workflow';
import { startWorkflow, type StartWrite, type WriteClientDeps } from './write-client';

/**
 * The loan the request moves, read once: what its workflow is started with when none runs. Null when
 * the request names no loan (the write's own lookup refuses it, as for any write).
 */
async function loanOf(deps: WriteClientDeps, request: WriteRequest): Promise<LoanLifecycleInput | null> {
  const lookup = (request.itemData as { escrow?: AccountLookupInput }).escrow;
  if (!lookup) return null;
  const em = deps.orm.em.fork();
  const scope = scopeOf(request);
  try {
    const escrow = await findAccountByLookup(em, scope, lookup, 'itemData.escrow');
    const loan = await em.findOne(Loan, { ...scope, escrowAccountId: escrow.id });
    if (!loan) return null;
    // A workflow started again acts for the movement's API key (the record keeps no other).
    const strategy = await em.findOne(LoanStrategy, { id: loan.strategyId });
    const organization = { id: request.organizationId, externalId: request.organizationExternalId };
    return lifecycleInputOf(loan, organization, request.apiKeyId, strategy?.rollover ?? false);
  } catch (error) {
    if (error instanceof LedgerError) return null;
    throw error;
  }
}

/** A Temporal frontend answers FAILED_PRECONDITION ("workflow not ready") to an update that met a workflow task failing as it completed: sent again. */
const UPDATE_ATTEMPTS = 3;
const grpcCode = (error: unknown) =>
  error instanceof ServiceError && isGrpcServiceError(error.cause) ? error.cause.code : isGrpcServiceError(error) ? error.code : undefined;
const isNotReady = (error: unknown) => grpcCode(error) === 9;
/** RESOURCE_EXHAUSTED: the server's limit of updates in flight on one workflow (10 by default) is reached. */
const isCrowded = (error: unknown) => grpcCode(error) === 8;
/**
 * How long a movement waits for the loan's workflow to take it. A polling worker takes it within
 * milliseconds (the wait for the loan's turn comes after); with no worker the server would hold the
 * request for as long as the client waits.
 */
export const MOVEMENT_ACCEPT_MS = 10_000;

/**
 * Whether the loan's workflow runs under the id of loans opened before workflow ids named the
 * organization by its external id (docs/loans.md, "Its workflow id"): then the movement goes there,
 * and no second workflow is started for the loan.
 */
async function runsUnderLegacyId(deps: WriteClientDeps, input: LoanLifecycleInput): Promise<boolean> {
  const legacy = legacyLoanWorkflowId(input.organizationId, input.escrow);
  if (legacy === loanWorkflowId({ id: input.organizationId, externalId: input.organizationExternalId }, input.escrow)) return false;
  const description = await deps.temporal.client.workflow
    .getHandle(legacy)
    .describe()
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    });
  return description?.status.name === 'RUNNING';
}

/** Sends the movement as the update, starting the loan's workflow first when none runs (update-with-start; `USE_EXISTING` joins a running one). */
async function sendMovement(deps: WriteClientDeps, input: LoanLifecycleInput, movement: LoanMovement): Promise<WorkflowUpdateHandle<WriteResult | null>> {
  const { client, taskQueue } = deps.temporal;
  const options = { args: [movement] as [LoanMovement], updateId: movement.request.workflowId };
  if (await runsUnderLegacyId(deps, input))
    return client.workflow
      .getHandle(legacyLoanWorkflowId(input.organizationId, input.escrow))
      .startUpdate<WriteResult | null, [LoanMovement]>(loanMovementUpdate, { ...options, waitForStage: 'ACCEPTED' });
  const startWorkflowOperation = new WithStartWorkflowOperation(loanWorkflowType, {
    workflowId: loanWorkflowId({ id: input.organizationId, externalId: input.organizationExternalId }, input.escrow),
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: loanSearchAttributes(input),
  });
  return client.workflow.startUpdateWithStart<Workflow, WriteResult | null, [LoanMovement]>(loanMovementUpdate, {
    ...options,
    waitForStage: 'ACCEPTED',
    startWorkflowOperation,
  });
}

/**
 * Starts a loan movement through the loan's workflow; idempotent (the update's id and the child's
 * workflow id are the write's). Refused at once by the workflow when the loan's state refuses it, or
 * when another write on the loan rests (409 naming itemData.escrow); no worker taking it within
 * MOVEMENT_ACCEPT_MS is 503 (the same key joins it later).
 */
export const throughLoanWorkflow: StartWrite = async (deps, request, organizationExternalId) => {
  const write = deps.temporal.client.workflow.getHandle<typeof ledgerWrite>(request.workflowId);
  // A repeat of a write that runs or has run: that run is the answer, as when the client starts it itself.
  const ran = await write.describe().catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  });
  if (ran) return { handle: write, ended: ran.status.name !== 'RUNNING' };
  const loan = await loanOf(deps, request);
  if (!loan) return startWorkflow(deps, request, organizationExternalId);

  const movement: LoanMovement = { request, workflowTaskTimeoutSeconds: deps.temporal.writeTaskTimeoutSeconds };
  // A refused movement never runs: the PENDING record a respond-async request made before the start goes.
  const refused = async (error: unknown): Promise<never> => {
    await deletePendingRecord(deps.orm.em.fork(), request.transactionId);
    throw error;
  };
  let update: WorkflowUpdateHandle<WriteResult | null> | undefined;
  for (let attempt = 1; !update; attempt++) {
    try {
      update = await deps.temporal.client.withDeadline(Date.now() + MOVEMENT_ACCEPT_MS, () => sendMovement(deps, loan, movement));
    } catch (error) {
      // No worker took it in time. The server may still hand it to one that comes, so the outcome is not
      // known: 503, and its PENDING record stays; the same request again (same key) joins the movement.
      if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
        throw new LedgerError(
          'UNAVAILABLE',
          `no worker took this movement of the loan within ${MOVEMENT_ACCEPT_MS / 1000} s; it may still run when one does: send the same request again (same Idempotency-Key) for its outcome`,
        );
      }
      if (attempt < UPDATE_ATTEMPTS && isNotReady(error)) continue;
      if (isCrowded(error)) return refused(conflict('itemData.escrow', 'too many movements of this loan are waiting for their turn; retry once one has ended'));
      throw error;
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
    // No run of the write behind a failed update (refused behind a resting write): its refusal, as a failed write's (runWrite rethrows those at once).
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
