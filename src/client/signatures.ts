/**
 * Sign Transaction, Submit Transaction and Cancel below HTTP (docs/signatures.md): each continues,
 * or ends, the waiting write's own `ledgerWrite` workflow through one of its updates (never a second
 * workflow), then answers like the write it continues. The API checks the record's status first
 * (what each may continue) and shapes the answer.
 */
import { isGrpcServiceError, ServiceError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { LedgerTransaction } from '../db/entities';
import { transactionResult } from '../db/repositories/transaction-records.repository';
import { LedgerError, validationError } from '../domain/errors';
import { cancellingQueryName, writeUpdates, type SuppliedSignature, type TransactionResult, type TransactionStatus } from '../domain/write';
import type { ledgerWrite } from '../workflows/write/write.workflow';
import { restingAnswer, resultOrRest, resultWithin, TIMED_OUT, type WriteAnswer, type WriteClientDeps } from './write-client';

/** Statuses after which a write changes no more: Sign and Submit answer its record as it is. */
export const endedStatuses: TransactionStatus[] = ['CONFIRMED', 'FINALIZED', 'FAILED', 'REJECTED', 'EXPIRED', 'CANCELLED'];
const UPDATE_ATTEMPTS = 3;
/** gRPC status 9: Temporal's "workflow not ready" (the workflow task carrying the update failed). */
const GRPC_FAILED_PRECONDITION = 9;

const handleOf = (deps: WriteClientDeps, record: LedgerTransaction): WorkflowHandle<typeof ledgerWrite> =>
  deps.temporal.client.workflow.getHandle(record.workflowId);
const reread = async (deps: WriteClientDeps, record: LedgerTransaction) => (await deps.orm.em.fork().findOne(LedgerTransaction, { id: record.id })) ?? record;
/** The step the write's run waits in ('' when it cannot be asked: ended, or Temporal away). */
const currentStep = (deps: WriteClientDeps, record: LedgerTransaction) =>
  handleOf(deps, record)
    .query<string>('currentStep')
    .catch(() => '');

/**
 * Runs one of the write's updates; a run that has ended meanwhile takes none: its record, when the
 * write ended (Sign and Submit answer it as it is, as for a write found ended), else 400. An update
 * whose workflow task failed as it completed (a signal came in the meantime) never took effect
 * (FAILED_PRECONDITION, "workflow not ready"): it is sent again.
 */
async function update(
  deps: WriteClientDeps,
  record: LedgerTransaction,
  run: (handle: WorkflowHandle<typeof ledgerWrite>) => Promise<unknown>,
): Promise<LedgerTransaction | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      await run(handleOf(deps, record));
      return undefined;
    } catch (error) {
      if (attempt < UPDATE_ATTEMPTS && error instanceof ServiceError && isGrpcServiceError(error.cause) && error.cause.code === GRPC_FAILED_PRECONDITION)
        continue;
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const now = await reread(deps, record);
      if (endedStatuses.includes(now.status as TransactionStatus)) return now;
      throw validationError('itemData.transaction', `the transaction is ${now.status} and its write no longer runs`);
    }
  }
}

/**
 * A record past AWAITING_SIGNATURES whose run still waits for them: the Sign that moved the record
 * was lost with its workflow task (Temporal and the worker died before it completed), so the run
 * replayed to its wait. Its signatures are on the record; the update, sent again, takes them from
 * there and the write goes on (deliver sends the same bytes, confirm records the landing once).
 */
export const stillAwaitsSignatures = async (deps: WriteClientDeps, record: LedgerTransaction) =>
  (record.status === 'SIGNED' || record.status === 'SUBMITTED') && (await currentStep(deps, record)) === 'awaitSignatures';

/** Adds signatures (or has managed keys sign: null); the write's record when its run ended meanwhile. Idempotent. */
export const signWrite = (deps: WriteClientDeps, record: LedgerTransaction, signatures: SuppliedSignature[] | null) =>
  update(deps, record, (handle) => handle.executeUpdate<string[], [SuppliedSignature[] | null]>(writeUpdates.sign, { args: [signatures] }));

/** Submits a write resting at SIGNED; the write's record when its run ended meanwhile. Idempotent. */
export const submitWrite = (deps: WriteClientDeps, record: LedgerTransaction) =>
  update(deps, record, (handle) => handle.executeUpdate<void, []>(writeUpdates.submit, { args: [] }));

/**
 * Cancels a waiting write and waits until its run has ended (its debits and its lifetime, a durable
 * nonce, given back after the record says CANCELLED). Another Cancel that came first is answered as
 * that one; a write that went on is 400; still running after WRITE_WAIT_SECONDS (no worker): 503, ask again.
 */
export async function cancelWrite(deps: WriteClientDeps, record: LedgerTransaction): Promise<void> {
  if (record.status !== 'CANCELLED') {
    try {
      const over = await update(deps, record, (handle) => handle.executeUpdate<TransactionResult | null, []>(writeUpdates.cancel, { args: [] }));
      if (over && over.status !== 'CANCELLED') throw validationError('itemData.transaction', `the transaction is ${over.status} and its write no longer runs`);
    } catch (error) {
      // Another Cancel came first (two at once, or this one again after its answer was lost): answered as that one.
      if (!(await cancelledBefore(deps, record))) throw error;
    }
  }
  // A run no longer kept by Temporal has long ended.
  const ended = await resultWithin(handleOf(deps, record), deps.writeWaitMs).catch(() => null);
  if (ended === TIMED_OUT)
    throw new LedgerError('UNAVAILABLE', `transaction ${record.id} is being cancelled and its write has not ended yet; send the same Cancel again`, undefined, {
      retryAfterSeconds: 1,
    });
}

/** Whether the write was cancelled, or is being cancelled, by a Cancel that came first. */
const cancelledBefore = async (deps: WriteClientDeps, record: LedgerTransaction) =>
  (await reread(deps, record)).status === 'CANCELLED' ||
  (await handleOf(deps, record)
    .query<boolean>(cancellingQueryName)
    .catch(() => false));

/**
 * The answer of the write a request continued: its transaction result once it reached the
 * commitment or rests at SIGNED, or accepted with its status while it waits for signatures, with
 * `respondAsync`, or when the wait is over.
 */
export async function continuedAnswer(deps: WriteClientDeps, record: LedgerTransaction, respondAsync: boolean): Promise<WriteAnswer> {
  if (!respondAsync) {
    const rested = await resultOrRest(
      deps,
      handleOf(deps, record),
      record.id,
      async (r) => r.status === 'AWAITING_SIGNATURES' || (r.status === 'SIGNED' && (await currentStep(deps, r)) === 'awaitSubmit'),
    );
    if (rested.rest) return restingAnswer(rested.rest);
    if (rested.result !== TIMED_OUT)
      return {
        async: false,
        ...rested.result,
        transaction: rested.result.transaction?.offchainId === record.id ? rested.result.transaction : transactionResult(await reread(deps, record)),
      };
  }
  const now = await reread(deps, record);
  return { async: true, transaction: { offchainId: now.id, status: now.status } };
}
