/**
 * The one write workflow: lookup → limit check → then, for each network transaction the write needs,
 * build → sign → (pre-submit webhook, with the signed transaction) → submit → confirm → record;
 * post-submit webhooks are handed to their own workflow. Deterministic orchestration only; every step is an activity.
 *
 * One workflow task per write (docs/write-engine.md, "One workflow task per write"): every step runs in a local activity, and the steps
 * are grouped into as few of them as the rules allow (`prepare`: lookup to sign; `deliver`: submit to
 * record; see src/activities/pipeline/stages.ts), since each costs the worker an activation;
 * `LedgerStatus` is set as the write enters a wait and at its end. A local activity's result is kept only when the task
 * completes, so a worker that dies mid-task replays every step from lookup: each step reads the
 * write's record first (a replayed lookup answers the resolution of the possibly-sent message, build
 * answers that message again, sign reproduces its signature, submit resends the same bytes), so the
 * network never sees a second, different transaction for one write.
 */
import { allHandlersFinished, condition, ContinueAsNew, patched, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Resolved, TransactionResult, WriteRequest, WriteResult } from '../../domain/write';
import { local, untilDone, webhooks, type Prepared } from './proxies';
import { retryingFaults } from './faults';
import { currentStepQuery, finish, statusKey, type Progress } from './progress';
import { refusalOf, refuse } from './refusals';
import { awaitApproval, awaitSignatures, awaitSubmit, waitHandlers, type Waits } from './waits';

export { currentStepQuery, signatureKey, statusKey } from './progress';
export { approvalDecided, cancellingQuery, cancelUpdate, signUpdate, submitUpdate } from './waits';

/** A transaction whose lifetime ran out before landing is rebuilt with a new one, at most this often. */
const MAX_LIFETIMES = 3;

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
  const waits = waitHandlers(request);

  let resolved: Resolved;
  let first: Prepared | undefined;
  let awaitingApproval: { approvalId: string; timeoutMs: number } | undefined;
  try {
    ({
      resolved,
      prepared: first,
      awaitingApproval,
    } = await retryingFaults(request, progress, () => local(request, 'lookup → check debit limit → build → sign').prepare(request)));
  } catch (error) {
    return refuse(request, error, progress);
  }
  if (awaitingApproval) {
    const ended = await awaitApproval(request, awaitingApproval, progress, waits);
    if (ended) return finish(progress, ended, ended.transaction?.status ?? 'REJECTED');
  }

  if (!resolved.needsTransaction) {
    progress.step = 'record';
    const result = await untilDone(request, 'record').record(request, resolved, null, 0);
    return finish(progress, result, 'FINALIZED');
  }

  const transactions: TransactionResult[] = [];
  let last: Sent = { result: { transaction: null } };
  for (let part = 0; part < (resolved.transactionCount ?? 1); part++) {
    const sent = await sendOne(request, resolved, part, progress, waits, part === 0 ? first : undefined);
    if (sent.refused) return sent.result;
    last = { ...sent, signature: sent.signature ?? last.signature };
    if (sent.result.transaction) transactions.push(sent.result.transaction);
    if (!sent.result.transaction?.success || !sent.signature || !(request.submit || waits.submitted)) break;
  }
  const result: WriteResult = { ...last.result, ...(resolved.transactionCount ? { transactions } : {}) };
  if (resolved.webhooks.postSubmit && (request.submit || waits.submitted) && last.signature && !waits.cancelled) {
    progress.step = 'postSubmitWebhook';
    await untilDone(request, 'hand over the post-submit webhooks').startPostSubmitDelivery(request);
  }
  // A Sign or Cancel that arrived as the wait ended (or before it began) finishes before the run does.
  waits.current = { kind: 'ENDED' };
  await condition(allHandlersFinished);
  return finish(progress, result, last.result.transaction?.status ?? 'FAILED', last.signature);
}

/** What one network transaction of the write ended with, and its signature when it was signed; `refused`: the write's refusal, already finished. */
type Sent = { result: WriteResult; signature?: string; refused?: boolean };

/**
 * One network transaction of the write, from build to record (`prepared`: already built and
 * signed, by `prepare`); rebuilt only after its lifetime is proven over.
 */
async function sendOne(request: WriteRequest, resolved: Resolved, part: number, progress: Progress, waits: Waits, prepared?: Prepared): Promise<Sent> {
  for (let lifetime = 1; ; lifetime++) {
    let built;
    let signed;
    try {
      if (!prepared) {
        progress.step = 'prepare';
        prepared = await retryingFaults(request, progress, () => local(request, 'build → sign', part).prepareNext(request, resolved, part));
      }
      ({ built, signed } = prepared);
      prepared = undefined;
    } catch (error) {
      return refuseOne(request, error, part, progress);
    }
    // signed.signature, the fee payer's: null while the fee payer's own is awaited (autoSign: false), known once it signed.
    // A waiting write is never signed again with another lifetime: its expiry ends it (docs/signatures.md, "Lifetimes while waiting").
    let waited = false;
    if (signed.missing?.length) {
      waited = true;
      const ended = await awaitSignatures(request, resolved, built, signed, part, progress, waits);
      if ('result' in ended) return { result: ended.result, signature: signed.signature ?? undefined };
      signed = ended.signed;
    }
    // From here the message is fully signed.
    if (!request.submit && !waits.submitted) {
      waited = true;
      const ended = await awaitSubmit(request, resolved, built, part, progress, waits);
      // A cancelled SIGNED write ends without its signature; an expired one with it.
      if (ended) return ended.ended === 'CANCELLED' ? { result: ended.result } : { result: ended.result, signature: signed.signature ?? undefined };
    }

    // The webhook sees the fully signed message once its signature is recorded (in history). A reused
    // message too: a crash may have come between sign and this call (the activity answers from its
    // log for webhooks already asked, and OK for a message possibly sent).
    if (resolved.webhooks.preSubmit) {
      progress.step = 'preSubmitWebhook';
      try {
        if ((await webhooks(request, 'pre-submit webhook', part).callPreSubmitWebhooks(request, built, signed, part)) === 'VETO') {
          progress.step = 'record';
          return {
            result: await untilDone(request, 'record REJECTED', part).recordRejection(
              request,
              'a pre-submit webhook failed and asked not to submit the transaction',
              part,
            ),
          };
        }
      } catch (error) {
        return refuseOne(request, error, part, progress);
      }
    }

    progress.step = 'deliver';
    const delivered = await untilDone(request, 'submit → confirm → record', part).deliver(
      request,
      resolved,
      built,
      signed,
      part,
      waited || lifetime >= MAX_LIFETIMES,
    );
    // Proven expired: the next prepare proves it once more before it makes a new message.
    if (delivered.expired) continue;
    return { result: delivered.result, signature: signed.signature ?? undefined };
  }
}

/** The first transaction's refusal is the write's; a later one ends the write after what landed. */
async function refuseOne(request: WriteRequest, error: unknown, part: number, progress: Progress): Promise<Sent> {
  if (part === 0) return { result: await refuse(request, error, progress), refused: true };
  const refusal = refusalOf(error);
  return {
    result: { transaction: await untilDone(request, 'record FAILED', part).recordFailure(request, refusal.type ?? 'UNAVAILABLE', refusal.message, part) },
  };
}
