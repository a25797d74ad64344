/**
 * The one write workflow: lookup → limit check → then, for each network transaction the write needs,
 * build → sign → (pre-submit webhook, with the signed transaction) → submit → confirm → record;
 * post-submit webhooks are handed to their own workflow. Deterministic orchestration only; every step is an activity.
 *
 * One workflow task per write (DESIGN.md, "Cost"): every step runs in a local activity, and the steps
 * are grouped into as few of them as the rules allow (`prepare`: lookup to sign; `deliver`: submit to
 * record; see src/activities/pipeline/stages.ts), since each costs the worker an activation; the
 * search attributes are set once, at the end. A local activity's result is kept only when the task
 * completes, so a worker that dies mid-task replays every step from lookup: each step reads the
 * write's record first (a replayed lookup answers the resolution of the possibly-sent message, build
 * answers that message again, sign reproduces its signature, submit resends the same bytes), so the
 * network never sees a second, different transaction for one write.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  ContinueAsNew,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { createActivities } from '../activities';
import type { BuiltTransaction, LedgerStatus, Refusal, Resolved, SignedTransaction, SuppliedSignature, TransactionResult, WriteOutage, WriteRequest, WriteResult } from '../domain/write';
import { approvalDecidedSignal, cancellingQueryName, DEFAULT_WRITE_DEADLINE_MS, searchAttributeNames, writeOutageMemo, writeUpdates } from '../domain/write';
import { isErrorCode, isRefusalCode } from '../domain/errors';

type Activities = ReturnType<typeof createActivities>;

/** Where a running write is: prepare (lookup → sign), preSubmitWebhook, deliver (submit → record), record, postSubmitWebhook, done. */
export const currentStepQuery = defineQuery<string>('currentStep');

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

export const statusKey = defineSearchAttributeKey(searchAttributeNames.status, SearchAttributeType.KEYWORD);
export const signatureKey = defineSearchAttributeKey(searchAttributeNames.signature, SearchAttributeType.KEYWORD);

/**
 * Steps before anything is sent (prepare): a few quick retries ride out a blip; a fault that outlasts
 * them is retried by the write itself (`retryingFaults`) with durable timers until its deadline.
 */
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '1s', maximumAttempts: 3 },
});
/**
 * Steps after the bytes may have reached the network (deliver: submit → confirm → record), and every
 * step that only records what the write decided (a refusal, a rejection, a cancel, an expiry): they
 * must not give up, or chain and records would disagree; a fault (the database away) is never the
 * write's outcome. They retry until done (deliver and record keep every failure retryable; the others
 * stop on a refusal); a stuck step shows in the Web UI. Confirm ends on its own once the lifetime is over.
 */
const untilDone = proxyLocalActivities<Activities>({
  startToCloseTimeout: '3m',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s' },
});
/** Webhook receivers are third parties with their own timeouts: a regular activity, run only when some account has one. */
const webhooks = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '250ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 20 },
});

/** A transaction whose lifetime ran out before landing is rebuilt with a new one, at most this often. */
const MAX_LIFETIMES = 3;

type Progress = { step: string; outage?: WriteOutage };

/** The write's own retries of a fault before anything is sent: waits of 1 s doubling up to this. */
const MAX_FAULT_WAIT_MS = 30_000;

/** A wait after sign: for the signatures Sign Transaction brings, or for Submit Transaction; what the updates brought. */
interface Wait {
  kind?: 'APPROVAL' | 'SIGNATURES' | 'SUBMIT';
  /** The approval the write waits for (AWAITING_APPROVAL). */
  approvalId?: string;
  /** What the approval was settled as (Approve/Reject's signal, or the record Cancel found decided). */
  approval?: string;
  /** Cancel is closing the approval: the approval wait ends only once it knows who settled it. */
  closingApproval: boolean;
  part: number;
  /** The message as signed so far (Sign Transaction adds to it). */
  signed?: SignedTransaction;
  submitted: boolean;
  /** Set when Cancel starts; `cancelled` holds the record once it is CANCELLED. */
  cancelling: boolean;
  cancelled?: TransactionResult | null;
  /** The write left its last wait: Sign and Cancel are refused from here on. */
  ended: boolean;
}

/** How often a waiting write checks whether its message's lifetime is proven over. */
const LIFETIME_CHECK_INTERVAL = '10s';
/** Checks in one run before it continues as new (a durable nonce waits without end; history must not grow without bound). */
const MAX_CHECKS_PER_RUN = 500;

const refused = (message: string, field = 'itemData.transaction') => ApplicationFailure.create({ type: 'VALIDATION_ERROR', message, nonRetryable: true, details: [{ field, context: {} }] });
type Prepared = Awaited<ReturnType<Activities['prepareNext']>>;

export async function ledgerWrite(request: WriteRequest): Promise<WriteResult> {
  const progress: Progress = { step: 'prepare' };
  setHandler(currentStepQuery, () => progress.step);
  try {
    return await write(request, progress);
  } catch (error) {
    // A fault that ends the run before its end (a step past its retries, a bug) still leaves LedgerStatus FAILED.
    if (!(error instanceof ContinueAsNew) && progress.step !== 'done' && patched('write-status-on-fault')) {
      upsertSearchAttributes([{ key: statusKey, value: 'FAILED' }]);
    }
    throw error;
  }
}

async function write(request: WriteRequest, progress: Progress): Promise<WriteResult> {
  const wait = waitHandlers(request);

  let resolved: Resolved;
  let first: Prepared | undefined;
  let awaitingApproval: { approvalId: string; timeoutMs: number } | undefined;
  try {
    ({ resolved, prepared: first, awaitingApproval } = await retryingFaults(request, progress, () => local.prepare(request)));
  } catch (error) {
    return refuse(request, error, progress);
  }
  if (awaitingApproval) {
    const ended = await awaitApproval(request, awaitingApproval, progress, wait);
    if (ended) return finish(progress, ended, ended.transaction?.status ?? 'REJECTED');
  }

  if (!resolved.needsTransaction) {
    progress.step = 'record';
    const result = await untilDone.record(request, resolved, null, 0);
    return finish(progress, result, 'FINALIZED');
  }

  const transactions: TransactionResult[] = [];
  let last: Sent = { result: { transaction: null } };
  for (let part = 0; part < (resolved.transactionCount ?? 1); part++) {
    const sent = await sendOne(request, resolved, part, progress, wait, part === 0 ? first : undefined);
    if (sent.refused) return sent.result;
    last = { ...sent, signature: sent.signature ?? last.signature };
    if (sent.result.transaction) transactions.push(sent.result.transaction);
    if (!sent.result.transaction?.success || !sent.signature || !(request.submit || wait.submitted)) break;
  }
  const result: WriteResult = { ...last.result, ...(resolved.transactionCount ? { transactions } : {}) };
  if (resolved.webhooks.postSubmit && (request.submit || wait.submitted) && last.signature && !wait.cancelled) {
    progress.step = 'postSubmitWebhook';
    await untilDone.startPostSubmitDelivery(request);
  }
  // A Sign or Cancel that arrived as the wait ended (or before it began) finishes before the run does.
  wait.ended = true;
  await condition(allHandlersFinished);
  return finish(progress, result, last.result.transaction?.status ?? 'FAILED', last.signature);
}

/** What one network transaction of the write ended with, and its signature when it was signed; `refused`: the write's refusal, already finished. */
type Sent = { result: WriteResult; signature?: string; refused?: boolean };

/**
 * One network transaction of the write, from build to record (`prepared`: already built and
 * signed, by `prepare`); rebuilt only after its lifetime is proven over.
 */
async function sendOne(request: WriteRequest, resolved: Resolved, part: number, progress: Progress, wait: Wait, prepared?: Prepared): Promise<Sent> {
  for (let lifetime = 1; ; lifetime++) {
    let built;
    let signed;
    try {
      if (!prepared) {
        progress.step = 'prepare';
        prepared = await retryingFaults(request, progress, () => local.prepareNext(request, resolved, part));
      }
      ({ built, signed } = prepared);
      prepared = undefined;
    } catch (error) {
      return refuseOne(request, error, part, progress);
    }
    const { signature } = signed;
    // A waiting write is never signed again with another lifetime: its expiry ends it (API.md 8).
    let waited = false;
    if (signed.missing?.length) {
      waited = true;
      const ended = await awaitSignatures(request, resolved, built, signed, part, progress, wait);
      if ('result' in ended) return { ...ended, signature };
      signed = ended.signed;
    }
    // From here the message is fully signed.
    if (!request.submit && !wait.submitted) {
      waited = true;
      progress.step = 'record';
      await untilDone.record(request, resolved, { status: 'SIGNED' }, part);
      progress.step = 'awaitSubmit';
      Object.assign(wait, { kind: 'SUBMIT', part, signed });
      const over = (await waitWhileAlive(request, built, () => wait.submitted || wait.cancelling)) === 'EXPIRED';
      wait.kind = undefined;
      // Never sent: Cancel ends it (a durable nonce would otherwise hold its nonce until Submit).
      if (wait.cancelling) return { result: await cancelled(wait, progress) };
      if (over) return { result: await expire(request, resolved, part, progress), signature };
    }

    // The webhook sees the fully signed message once its signature is recorded (in history). A reused
    // message too: a crash may have come between sign and this call (the activity answers from its
    // log for webhooks already asked, and OK for a message possibly sent).
    if (resolved.webhooks.preSubmit) {
      progress.step = 'preSubmitWebhook';
      try {
        if ((await webhooks.callPreSubmitWebhooks(request, built, signed, part)) === 'VETO') {
          progress.step = 'record';
          return { result: await untilDone.recordRejection(request, 'a pre-submit webhook failed and asked not to submit the transaction', part) };
        }
      } catch (error) {
        return refuseOne(request, error, part, progress);
      }
    }

    progress.step = 'deliver';
    const delivered = await untilDone.deliver(request, resolved, built, signed, part, waited || lifetime >= MAX_LIFETIMES);
    // Proven expired: the next prepare proves it once more before it makes a new message.
    if (delivered.expired) continue;
    return { result: delivered.result, signature };
  }
}

/** The first transaction's refusal is the write's; a later one ends the write after what landed. */
async function refuseOne(request: WriteRequest, error: unknown, part: number, progress: Progress): Promise<Sent> {
  if (part === 0) return { result: await refuse(request, error, progress), refused: true };
  const refusal = refusalOf(error);
  return { result: { transaction: await untilDone.recordFailure(request, refusal.type ?? 'UNAVAILABLE', refusal.message, part) } };
}

/** Registers Sign, Submit and Cancel (free until one arrives: nothing runs on the common path). Sign and Cancel run one at a time. */
function waitHandlers(request: WriteRequest): Wait {
  const wait: Wait = { part: 0, submitted: false, cancelling: false, closingApproval: false, ended: false };
  setHandler(cancellingQuery, () => wait.cancelling);
  let serial: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(step: () => Promise<T>): Promise<T> => {
    const run = serial.then(step);
    serial = run.catch(() => undefined);
    return run;
  };
  // The record may say AWAITING_SIGNATURES (or SIGNED) a moment before this run reaches its wait: an
  // update that comes then is accepted and waits for the wait (or for the write's end, then refused).
  const reachedWait = () => condition(() => wait.kind !== undefined || wait.ended);
  const notOver = () => {
    if (wait.ended || wait.cancelling) throw refused('the transaction is not waiting (for signatures or for Submit)');
  };
  const waitingForSignatures = () => {
    if (wait.kind !== 'SIGNATURES' || wait.cancelling) throw refused('the transaction is not waiting for signatures');
  };
  setHandler(signUpdate, (signatures) => inTurn(async () => {
    await reachedWait();
    waitingForSignatures();
    try {
      wait.signed = await local.addSignatures(request, wait.part, signatures);
    } catch (error) {
      throw refusalOf(error);
    }
    return wait.signed.missing ?? [];
  }), {
    validator: (_signatures) => {
      notOver();
      if (wait.kind === 'SUBMIT') throw refused('the transaction is already signed: submit it with Submit Transaction');
    },
  });
  setHandler(submitUpdate, () => {
    wait.submitted = true;
  }, {
    validator: () => {
      if (wait.kind === 'SIGNATURES') throw refused('the transaction is waiting for signatures (Sign Transaction) before it can be submitted');
      if (wait.cancelling) throw refused('the transaction was cancelled');
    },
  });
  // A write waiting for signatures, or resting at SIGNED before Submit (never sent), may be cancelled.
  const cancellable = () => {
    if (!(wait.kind === 'APPROVAL' || wait.kind === 'SIGNATURES' || (wait.kind === 'SUBMIT' && !wait.submitted)) || wait.cancelling) throw refused('the transaction is not waiting (for approval, signatures or Submit)');
  };
  setHandler(cancelUpdate, () => inTurn(async () => {
    await reachedWait();
    cancellable();
    if (wait.kind === 'APPROVAL') await closeApprovalFirst(wait);
    wait.cancelling = true;
    wait.cancelled = await untilDone.recordCancellation(request, wait.part);
    return wait.cancelled;
  }), {
    validator: () => {
      notOver();
      if (wait.kind === 'SUBMIT' && wait.submitted) throw refused('the transaction was submitted');
    },
  });
  setHandler(approvalDecided, (status) => {
    wait.approval ??= status;
  });
  return wait;
}

/**
 * Cancel of a write awaiting approval: the approval record decides who came first. Cancel closes it
 * only while it is PENDING (the same row Approve/Reject lock); a decision stored before that wins,
 * Cancel is refused and the write goes on as decided, even if the decision's signal is still on its way.
 */
async function closeApprovalFirst(wait: Wait): Promise<void> {
  wait.closingApproval = true;
  try {
    const status = await untilDone.endApproval(wait.approvalId!, 'CANCELLED');
    if (status !== 'CANCELLED') {
      wait.approval ??= status;
      throw refused(`the approval was already ${status}: the write goes on as decided`);
    }
  } finally {
    wait.closingApproval = false;
  }
}

/**
 * AWAITING_APPROVAL (before build: no lifetime runs out). Ends when Approve/Reject settle the
 * approval, Cancel, or the timeout (EXPIRED unless a decision reached the record first). Answers
 * the write's end, or nothing when it was approved and goes on to build.
 */
async function awaitApproval(request: WriteRequest, awaiting: { approvalId: string; timeoutMs: number }, progress: Progress, wait: Wait): Promise<WriteResult | undefined> {
  progress.step = 'awaitApproval';
  Object.assign(wait, { kind: 'APPROVAL', approvalId: awaiting.approvalId });
  const deadline = Date.now() + awaiting.timeoutMs;
  for (;;) {
    const timedOut = !(await condition(() => wait.approval !== undefined || wait.closingApproval || wait.cancelling, Math.max(1, deadline - Date.now())));
    // A Cancel closing the approval finishes first: it closed it (CANCELLED), found it decided, or failed (wait on).
    if (wait.closingApproval) await condition(() => !wait.closingApproval);
    if (timedOut || wait.approval !== undefined || wait.cancelling) break;
  }
  wait.kind = undefined;
  if (wait.cancelling) return cancelled(wait, progress);
  const status = wait.approval ?? (await untilDone.endApproval(awaiting.approvalId, 'EXPIRED'));
  if (status === 'APPROVED') return undefined;
  progress.step = 'record';
  // A Cancel that closed the approval but whose workflow task was lost (its update never took effect): the write ends as cancelled.
  if (status === 'CANCELLED') return { transaction: await untilDone.recordCancellation(request, 0) };
  const reason = status === 'EXPIRED' ? 'no decision from the approvers in time (approval EXPIRED)' : 'an approver rejected the debit over the limit';
  return untilDone.recordRejection(request, reason, 0);
}

/**
 * AWAITING_SIGNATURES: the missing-signature webhooks are called, then the write waits until Sign
 * Transaction supplied every signature, Cancel, or the lifetime is proven over (EXPIRED).
 */
async function awaitSignatures(request: WriteRequest, resolved: Resolved, built: BuiltTransaction, signed: SignedTransaction, part: number, progress: Progress, wait: Wait): Promise<{ signed: SignedTransaction } | { result: WriteResult }> {
  progress.step = 'awaitSignatures';
  Object.assign(wait, { kind: 'SIGNATURES', part, signed });
  // Delivered beside the wait (a slow receiver must not hold Sign back); a delivery that gives up ends nothing.
  void webhooks.callMissingSignatureWebhooks(request, signed.missing ?? []).catch(() => undefined);
  const complete = () => !wait.signed?.missing?.length;
  const ended = await waitWhileAlive(request, built, () => complete() || wait.cancelled !== undefined);
  wait.kind = undefined;
  if (wait.cancelling) return { result: await cancelled(wait, progress) };
  if (ended === 'EXPIRED') return { result: await expire(request, resolved, part, progress) };
  return { signed: wait.signed! };
}

/** The record of a write Cancel ended, once the update recorded it. */
async function cancelled(wait: Wait, progress: Progress): Promise<WriteResult> {
  await condition(() => wait.cancelled !== undefined);
  progress.step = 'record';
  return { transaction: wait.cancelled ?? null };
}

/** Records a waiting write's expiry (its message can never land): EXPIRED, debits given back. */
async function expire(request: WriteRequest, resolved: Resolved, part: number, progress: Progress): Promise<WriteResult> {
  progress.step = 'record';
  return untilDone.record(request, resolved, { status: 'EXPIRED' }, part);
}

/**
 * Waits until `ready`, checking every LIFETIME_CHECK_INTERVAL whether the message's lifetime is
 * proven over (a durable timer, then a local activity). A run that waited long continues as new: it
 * resumes from the record (lookup, build and sign answer what they did) and waits again.
 */
async function waitWhileAlive(request: WriteRequest, built: BuiltTransaction, ready: () => boolean): Promise<'READY' | 'EXPIRED'> {
  for (let check = 1; ; check++) {
    if (await condition(ready, LIFETIME_CHECK_INTERVAL)) return 'READY';
    if (await untilDone.isLifetimeOver(request, built.lifetime)) return ready() ? 'READY' : 'EXPIRED';
    if (check >= MAX_CHECKS_PER_RUN) {
      await condition(allHandlersFinished);
      if (ready()) return 'READY';
      await continueAsNew<typeof ledgerWrite>(request);
    }
  }
}

/**
 * Runs a step of `prepare` (nothing sent yet) until it answers or refuses: a fault (the node or the
 * database away: anything but a refusal with a code) that outlasts the step's quick retries is tried
 * again after a durable timer, 1 s doubling up to 30 s, while the memo `outage` tells the API so,
 * until the write's deadline: WriteRequest.deadlineMs after the step began (the write's start for
 * its first prepare; an approval or an earlier transaction of the write is progress, and the wait for
 * it does not count). Past it the fault is thrown: `refuse` records that nothing was sent, unless the
 * record shows a message that may have been.
 */
async function retryingFaults<T>(request: WriteRequest, progress: Progress, step: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + (request.deadlineMs ?? DEFAULT_WRITE_DEADLINE_MS);
  for (let round = 0; ; round++) {
    try {
      const value = await step();
      if (progress.outage) upsertMemo({ [writeOutageMemo]: null });
      progress.outage = undefined;
      return value;
    } catch (error) {
      if (!isFault(error) || Date.now() >= deadline || !patched('faults-retried-until-deadline')) throw error;
      const waitMs = Math.min(MAX_FAULT_WAIT_MS, 1000 * 2 ** round, Math.max(1, deadline - Date.now()));
      progress.outage = {
        message: refusalOf(error).message,
        since: progress.outage?.since ?? new Date().toISOString(),
        retryAt: new Date(Date.now() + waitMs).toISOString(),
        deadline: new Date(deadline).toISOString(),
      };
      upsertMemo({ [writeOutageMemo]: progress.outage });
      await sleep(waitMs);
    }
  }
}

/** A step's failure without a code of ours: a service it needs failed (or a bug), which is no answer to give. */
function isFault(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return !(cause instanceof ApplicationFailure && isErrorCode(cause.type));
}

/** The failure a step ended with, as a refusal with a stable code (a fault that outlasted its retries is UNAVAILABLE). */
function refusalOf(error: unknown): ApplicationFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type && (isErrorCode(cause.type) || !patched('faults-retried-until-deadline'))) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return ApplicationFailure.create({ type: 'UNAVAILABLE', message: `nothing was sent: a service the write needs did not answer until the write's deadline (${reason})`, nonRetryable: true });
}

/**
 * Ends a write refused before anything was sent: its record FAILED with the reason. A business
 * refusal (a 4xx code: the answer, not a fault) completes the workflow with it, LedgerStatus
 * REFUSED; a fault (UNAVAILABLE, INTERNAL: retries ran out, a bug) fails it, LedgerStatus FAILED, as
 * does a refusal whose record holds a possibly-sent message (left open: the API starts a run that
 * reconciles it). Histories from before `write-refusal-completes` fail on every refusal.
 */
async function refuse(request: WriteRequest, error: unknown, progress: Progress): Promise<WriteResult> {
  const refusal = refusalOf(error);
  progress.step = 'record';
  const transaction = await untilDone.recordFailure(request, refusal.type ?? 'UNAVAILABLE', refusal.message, 0);
  const answer = businessRefusal(refusal);
  if (answer && (transaction === null || transaction.status === 'FAILED') && patched('write-refusal-completes')) {
    return finish(progress, { transaction, refusal: answer }, 'REFUSED');
  }
  upsertSearchAttributes([{ key: statusKey, value: 'FAILED' }]);
  progress.step = 'done';
  throw refusal;
}

/** The refusal a client is answered with (a code of a 4xx status), or undefined for a fault. */
function businessRefusal(failure: ApplicationFailure): Refusal | undefined {
  const code = failure.type;
  if (!isRefusalCode(code)) return undefined;
  const details = (failure.details?.[0] ?? {}) as { field?: string | null; context?: Record<string, unknown> };
  return { code, message: failure.message, field: details.field ?? null, context: details.context ?? {} };
}

/** One search-attribute update per write, at its end (each is a history event and a visibility write). */
function finish(progress: Progress, result: WriteResult, status: LedgerStatus, signature?: string): WriteResult {
  upsertSearchAttributes([
    ...(signature ? [{ key: signatureKey, value: signature }] : []),
    { key: statusKey, value: status },
  ]);
  progress.step = 'done';
  return result;
}

const delivery = proxyActivities<Activities>({
  startToCloseTimeout: '45s',
  scheduleToCloseTimeout: '25h',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10m' },
});

/** At-least-once delivery of the post-submit webhooks of one write, with backoff for over 24 hours. */
export async function deliverPostSubmitWebhooks(request: WriteRequest): Promise<void> {
  await delivery.callPostSubmitWebhooks(request);
}

/** Replay of a post-submit event (PATCH /transactions/webhook-deliveries/replay), retried as the original delivery is. */
export async function replayWebhookEvent(organizationId: string, eventId: string, requestedAt: string): Promise<void> {
  await delivery.replayWebhookEvent(organizationId, eventId, requestedAt);
}
