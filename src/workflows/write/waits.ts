/**
 * The write's waits (approval, signatures, Submit) and the updates that end them (Sign, Submit,
 * Cancel; docs/signatures.md, docs/approvals.md). The handlers cost nothing until one arrives: nothing
 * runs on the common path.
 */
import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, defineQuery, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import type { BuiltTransaction, Resolved, SignedTransaction, SuppliedSignature, TransactionResult, WriteRequest, WriteResult } from '../../domain/write';
import { approvalDecidedSignal, cancellingQueryName, writeUpdates } from '../../domain/write';
import { oneAtATime } from '../one-at-a-time';
import { local, untilDone, webhooks } from './proxies';
import { showWaiting, type Progress } from './progress';
import { refusalOf } from './refusals';
import type { ledgerWrite } from './write.workflow';

/**
 * Sign Transaction (docs/signatures.md): adds signatures (null: the managed keys this organization
 * may use sign) to a write waiting in AWAITING_SIGNATURES; kept on the record before it is
 * acknowledged. Answers the signers still missing. Refused unless the write waits for signatures.
 */
export const signUpdate = defineUpdate<string[], [SuppliedSignature[] | null]>(writeUpdates.sign);
/** Submit Transaction: a write resting at SIGNED goes on to deliver. Accepted (no effect) once it is past that; refused before it is signed. */
export const submitUpdate = defineUpdate<void, []>(writeUpdates.submit);
/** Cancel: a write waiting for signatures ends CANCELLED. Refused unless it waits. */
export const cancelUpdate = defineUpdate<TransactionResult | null, []>(writeUpdates.cancel);
/** Whether a Cancel was taken (the write ends CANCELLED): a second Cancel, refused by the run, is answered as the first. A query: nothing in the history. */
export const cancellingQuery = defineQuery<boolean>(cancellingQueryName);

/** Approve/Reject settled the write's approval (docs/approvals.md): the record already shows it. */
export const approvalDecided = defineSignal<['APPROVED' | 'REJECTED']>(approvalDecidedSignal);

/** AWAITING_APPROVAL (before build). `closing`: Cancel is closing the approval; the wait ends only once it knows who settled it. */
type ApprovalWait = { kind: 'APPROVAL'; approvalId: string; closing: boolean };
/** AWAITING_SIGNATURES for transaction `part`; `signed`: its message as signed so far (Sign Transaction adds to it). */
type SignaturesWait = { kind: 'SIGNATURES'; part: number; signed: SignedTransaction };
/** Resting at SIGNED until Submit Transaction. */
type SubmitWait = { kind: 'SUBMIT'; part: number };

/**
 * Where the write is, as Sign, Submit and Cancel see it: not waiting (not yet, or between two waits:
 * an update that comes then waits for the next wait or the end), in one of its waits (each holds only
 * what it needs), or ENDED (it left its last wait: Sign and Cancel are refused from here on).
 */
export type Wait = { kind: 'NOT_WAITING' } | ApprovalWait | SignaturesWait | SubmitWait | { kind: 'ENDED' };

/** The write's wait, and what the updates and the approval signal brought: those hold for the rest of the write, whichever wait it is in. */
export interface Waits {
  current: Wait;
  /** Submit Transaction was accepted (at a SUBMIT wait, or before it: the write does not rest at SIGNED). */
  submitted: boolean;
  /** What the approval was settled as (Approve/Reject's signal, or the record Cancel found decided); it may come before the wait. */
  approval?: string;
  /** Set when Cancel starts; `cancelled` holds the record once it is CANCELLED. */
  cancelling: boolean;
  cancelled?: TransactionResult | null;
}

const NOT_WAITING: Wait = { kind: 'NOT_WAITING' };

/** How a wait after sign ended the write: Cancel's record, or the expiry recorded. */
export type WaitEnd = { ended: 'CANCELLED' | 'EXPIRED'; result: WriteResult };

/** How often a waiting write checks whether its message's lifetime is proven over. */
const LIFETIME_CHECK_INTERVAL = '10s';
/** Checks in one run before it continues as new (a durable nonce waits without end; history must not grow without bound). */
const MAX_CHECKS_PER_RUN = 500;

const refused = (message: string, field = 'itemData.transaction') =>
  ApplicationFailure.create({ type: 'VALIDATION_ERROR', message, nonRetryable: true, details: [{ field, context: {} }] });

/** Registers Sign, Submit and Cancel (free until one arrives: nothing runs on the common path). Sign and Cancel run one at a time. */
export function waitHandlers(request: WriteRequest): Waits {
  const waits: Waits = { current: NOT_WAITING, submitted: false, cancelling: false };
  setHandler(cancellingQuery, () => waits.cancelling);
  const inTurn = oneAtATime();
  // The record may say AWAITING_SIGNATURES (or SIGNED) a moment before this run reaches its wait: an
  // update that comes then is accepted and waits for the wait (or for the write's end, then refused).
  const reachedWait = () => condition(() => waits.current.kind !== 'NOT_WAITING');
  const notOver = () => {
    if (waits.current.kind === 'ENDED' || waits.cancelling) throw refused('the transaction is not waiting (for signatures or for Submit)');
  };
  setHandler(
    signUpdate,
    (signatures) =>
      inTurn(async () => {
        await reachedWait();
        const wait = waits.current;
        if (wait.kind !== 'SIGNATURES' || waits.cancelling) throw refused('the transaction is not waiting for signatures');
        try {
          wait.signed = await local(request, 'add signatures', wait.part).addSignatures(request, wait.part, signatures);
        } catch (error) {
          throw refusalOf(error);
        }
        return wait.signed.missing ?? [];
      }),
    {
      validator: (_signatures) => {
        notOver();
        if (waits.current.kind === 'SUBMIT') throw refused('the transaction is already signed: submit it with Submit Transaction');
      },
    },
  );
  setHandler(
    submitUpdate,
    () => {
      waits.submitted = true;
    },
    {
      validator: () => {
        if (waits.current.kind === 'SIGNATURES') throw refused('the transaction is waiting for signatures (Sign Transaction) before it can be submitted');
        if (waits.cancelling) throw refused('the transaction was cancelled');
      },
    },
  );
  // A write waiting for approval or signatures, or resting at SIGNED before Submit (never sent), may be cancelled.
  setHandler(
    cancelUpdate,
    () =>
      inTurn(async () => {
        await reachedWait();
        const wait = waits.current;
        if (!(wait.kind === 'APPROVAL' || wait.kind === 'SIGNATURES' || (wait.kind === 'SUBMIT' && !waits.submitted)) || waits.cancelling)
          throw refused('the transaction is not waiting (for approval, signatures or Submit)');
        if (wait.kind === 'APPROVAL') await closeApprovalFirst(request, waits, wait);
        waits.cancelling = true;
        // An approval comes before build: its cancel records the first transaction.
        const part = wait.kind === 'APPROVAL' ? 0 : wait.part;
        waits.cancelled = await untilDone(request, 'record CANCELLED', part).recordCancellation(request, part);
        return waits.cancelled;
      }),
    {
      validator: () => {
        notOver();
        if (waits.current.kind === 'SUBMIT' && waits.submitted) throw refused('the transaction was submitted');
      },
    },
  );
  setHandler(approvalDecided, (status) => {
    waits.approval ??= status;
  });
  return waits;
}

/**
 * Cancel of a write awaiting approval: the approval record decides who came first. Cancel closes it
 * only while it is PENDING (the same row Approve/Reject lock); a decision stored before that wins,
 * Cancel is refused and the write goes on as decided, even if the decision's signal is still on its way.
 */
async function closeApprovalFirst(request: WriteRequest, waits: Waits, wait: ApprovalWait): Promise<void> {
  wait.closing = true;
  try {
    const status = await untilDone(request, 'close the approval (CANCELLED)').endApproval(wait.approvalId, 'CANCELLED');
    if (status !== 'CANCELLED') {
      waits.approval ??= status;
      throw refused(`the approval was already ${status}: the write goes on as decided`);
    }
  } finally {
    wait.closing = false;
  }
}

/**
 * AWAITING_APPROVAL (before build: no lifetime runs out). Ends when Approve/Reject settle the
 * approval, Cancel, or the timeout (EXPIRED unless a decision reached the record first). Answers
 * the write's end, or nothing when it was approved and goes on to build.
 */
export async function awaitApproval(
  request: WriteRequest,
  awaiting: { approvalId: string; timeoutMs: number },
  progress: Progress,
  waits: Waits,
): Promise<WriteResult | undefined> {
  progress.step = 'awaitApproval';
  showWaiting('AWAITING_APPROVAL');
  const wait: ApprovalWait = { kind: 'APPROVAL', approvalId: awaiting.approvalId, closing: false };
  waits.current = wait;
  const deadline = Date.now() + awaiting.timeoutMs;
  for (;;) {
    const timedOut = !(await condition(() => waits.approval !== undefined || wait.closing || waits.cancelling, Math.max(1, deadline - Date.now())));
    // A Cancel closing the approval finishes first: it closed it (CANCELLED), found it decided, or failed (wait on).
    if (wait.closing) await condition(() => !wait.closing);
    if (timedOut || waits.approval !== undefined || waits.cancelling) break;
  }
  waits.current = NOT_WAITING;
  if (waits.cancelling) return cancelled(waits, progress);
  const status = waits.approval ?? (await untilDone(request, 'close the approval (EXPIRED)').endApproval(awaiting.approvalId, 'EXPIRED'));
  if (status === 'APPROVED') return undefined;
  progress.step = 'record';
  // A Cancel that closed the approval but whose workflow task was lost (its update never took effect): the write ends as cancelled.
  if (status === 'CANCELLED') return { transaction: await untilDone(request, 'record CANCELLED').recordCancellation(request, 0) };
  const reason = status === 'EXPIRED' ? 'no decision from the approvers in time (approval EXPIRED)' : 'an approver rejected the debit over the limit';
  return untilDone(request, 'record REJECTED').recordRejection(request, reason, 0);
}

/**
 * AWAITING_SIGNATURES: the missing-signature webhooks are called, then the write waits until Sign
 * Transaction supplied every signature, Cancel, or the lifetime is proven over (EXPIRED).
 */
export async function awaitSignatures(
  request: WriteRequest,
  resolved: Resolved,
  built: BuiltTransaction,
  signed: SignedTransaction,
  part: number,
  progress: Progress,
  waits: Waits,
): Promise<{ signed: SignedTransaction } | WaitEnd> {
  progress.step = 'awaitSignatures';
  showWaiting('AWAITING_SIGNATURES');
  const wait: SignaturesWait = { kind: 'SIGNATURES', part, signed };
  waits.current = wait;
  // Delivered beside the wait (a slow receiver must not hold Sign back); a delivery that gives up ends nothing.
  void webhooks(request, 'missing-signature webhooks', part)
    .callMissingSignatureWebhooks(request, signed.missing ?? [])
    .catch(() => undefined);
  const complete = () => !wait.signed.missing?.length;
  const ended = await waitWhileAlive(request, built, () => complete() || waits.cancelled !== undefined);
  waits.current = NOT_WAITING;
  if (waits.cancelling) return { ended: 'CANCELLED', result: await cancelled(waits, progress) };
  if (ended === 'EXPIRED') return { ended: 'EXPIRED', result: await expire(request, resolved, part, progress) };
  return { signed: wait.signed };
}

/**
 * Resting at SIGNED (recorded first) until Submit Transaction, Cancel, or the lifetime is proven over
 * (EXPIRED). Answers how it ended the write, or nothing when it was submitted.
 */
export async function awaitSubmit(
  request: WriteRequest,
  resolved: Resolved,
  built: BuiltTransaction,
  part: number,
  progress: Progress,
  waits: Waits,
): Promise<WaitEnd | undefined> {
  progress.step = 'record';
  await untilDone(request, 'record SIGNED', part).record(request, resolved, { status: 'SIGNED' }, part);
  progress.step = 'awaitSubmit';
  showWaiting('SIGNED');
  waits.current = { kind: 'SUBMIT', part };
  const over = (await waitWhileAlive(request, built, () => waits.submitted || waits.cancelling)) === 'EXPIRED';
  waits.current = NOT_WAITING;
  // Never sent: Cancel ends it (a durable nonce would otherwise hold its nonce until Submit).
  if (waits.cancelling) return { ended: 'CANCELLED', result: await cancelled(waits, progress) };
  if (over) return { ended: 'EXPIRED', result: await expire(request, resolved, part, progress) };
  return undefined;
}

/** The record of a write Cancel ended, once the update recorded it. */
async function cancelled(waits: Waits, progress: Progress): Promise<WriteResult> {
  await condition(() => waits.cancelled !== undefined);
  progress.step = 'record';
  return { transaction: waits.cancelled ?? null };
}

/** Records a waiting write's expiry (its message can never land): EXPIRED, debits given back. */
async function expire(request: WriteRequest, resolved: Resolved, part: number, progress: Progress): Promise<WriteResult> {
  progress.step = 'record';
  return untilDone(request, 'record EXPIRED', part).record(request, resolved, { status: 'EXPIRED' }, part);
}

/**
 * Waits until `ready`, checking every LIFETIME_CHECK_INTERVAL whether the message's lifetime is
 * proven over (a durable timer, then a local activity). A run that waited long continues as new: it
 * resumes from the record (lookup, build and sign answer what they did) and waits again.
 */
async function waitWhileAlive(request: WriteRequest, built: BuiltTransaction, ready: () => boolean): Promise<'READY' | 'EXPIRED'> {
  for (let check = 1; ; check++) {
    if (await condition(ready, LIFETIME_CHECK_INTERVAL)) return 'READY';
    if (await untilDone(request, 'check the lifetime').isLifetimeOver(request, built.lifetime)) return ready() ? 'READY' : 'EXPIRED';
    if (check >= MAX_CHECKS_PER_RUN) {
      await condition(allHandlersFinished);
      if (ready()) return 'READY';
      await continueAsNew<typeof ledgerWrite>(request);
    }
  }
}
