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
  ApplicationFailure,
  defineQuery,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { createActivities } from '../activities';
import type { Resolved, TransactionResult, TransactionStatus, WriteRequest, WriteResult } from '../domain/write';
import { searchAttributeNames } from '../domain/write';

type Activities = ReturnType<typeof createActivities>;

/** Where a running write is: prepare (lookup → sign), preSubmitWebhook, deliver (submit → record), record, postSubmitWebhook, done. */
export const currentStepQuery = defineQuery<string>('currentStep');

export const statusKey = defineSearchAttributeKey(searchAttributeNames.status, SearchAttributeType.KEYWORD);
export const signatureKey = defineSearchAttributeKey(searchAttributeNames.signature, SearchAttributeType.KEYWORD);

/** Steps before anything is sent: a fault that outlasts the retries refuses the write (UNAVAILABLE). */
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 10 },
});
/**
 * Steps after the bytes may have reached the network (deliver: submit → confirm → record): they must
 * not give up, or chain and records would disagree. They retry until done (the activities keep every
 * failure retryable); a stuck step shows in the Web UI. Confirm ends on its own once the lifetime is over.
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

type Progress = { step: string };
type Prepared = Awaited<ReturnType<Activities['prepareNext']>>;

export async function ledgerWrite(request: WriteRequest): Promise<WriteResult> {
  const progress: Progress = { step: 'prepare' };
  setHandler(currentStepQuery, () => progress.step);

  let resolved: Resolved;
  let first: Prepared | undefined;
  try {
    ({ resolved, prepared: first } = await local.prepare(request));
  } catch (error) {
    return refuse(request, error, progress);
  }

  if (!resolved.needsTransaction) {
    progress.step = 'record';
    const result = await untilDone.record(request, resolved, null, 0);
    return finish(progress, result, 'FINALIZED');
  }

  const transactions: TransactionResult[] = [];
  let last: Sent = { result: { transaction: null } };
  for (let part = 0; part < (resolved.transactionCount ?? 1); part++) {
    const sent = await sendOne(request, resolved, part, progress, part === 0 ? first : undefined);
    last = { ...sent, signature: sent.signature ?? last.signature };
    if (sent.result.transaction) transactions.push(sent.result.transaction);
    if (!sent.result.transaction?.success || !sent.signature || !request.submit) break;
  }
  const result: WriteResult = { ...last.result, ...(resolved.transactionCount ? { transactions } : {}) };
  if (resolved.webhooks.postSubmit && request.submit && last.signature) {
    progress.step = 'postSubmitWebhook';
    await local.startPostSubmitDelivery(request);
  }
  return finish(progress, result, last.result.transaction?.status ?? 'FAILED', last.signature);
}

/** What one network transaction of the write ended with, and its signature when it was signed. */
type Sent = { result: WriteResult; signature?: string };

/**
 * One network transaction of the write, from build to record (`prepared`: already built and
 * signed, by `prepare`); rebuilt only after its lifetime is proven over.
 */
async function sendOne(request: WriteRequest, resolved: Resolved, part: number, progress: Progress, prepared?: Prepared): Promise<Sent> {
  for (let lifetime = 1; ; lifetime++) {
    let built;
    let signed;
    try {
      if (!prepared) {
        progress.step = 'prepare';
        prepared = await local.prepareNext(request, resolved, part);
      }
      ({ built, signed } = prepared);
      prepared = undefined;
      // The webhook sees the signed message once prepare's result (its signature recorded) is in
      // history. A reused message too: a crash may have come between sign and this call (the
      // activity answers from its log for webhooks already asked, and OK for a message possibly sent).
      if (resolved.webhooks.preSubmit) {
        progress.step = 'preSubmitWebhook';
        if ((await webhooks.callPreSubmitWebhooks(request, built, signed, part)) === 'VETO') {
          progress.step = 'record';
          return { result: await local.recordRejection(request, 'a pre-submit webhook failed and asked not to submit the transaction', part) };
        }
      }
    } catch (error) {
      // The first transaction's refusal is the write's; a later one ends the write after what landed.
      if (part === 0) return refuse(request, error, progress);
      const refusal = refusalOf(error);
      return { result: { transaction: await local.recordFailure(request, refusal.type ?? 'UNAVAILABLE', refusal.message, part) } };
    }
    const { signature } = signed;
    if (!request.submit) {
      progress.step = 'record';
      return { result: await untilDone.record(request, resolved, { status: 'SIGNED' }, part), signature };
    }

    progress.step = 'deliver';
    const delivered = await untilDone.deliver(request, resolved, built, signed, part, lifetime >= MAX_LIFETIMES);
    // Proven expired: the next prepare proves it once more before it makes a new message.
    if (delivered.expired) continue;
    return { result: delivered.result, signature };
  }
}

/** The failure a step ended with, as a refusal with a stable code (a fault that outlasted its retries is UNAVAILABLE). */
function refusalOf(error: unknown): ApplicationFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type) return cause;
  return ApplicationFailure.create({ type: 'UNAVAILABLE', message: `a service the write needs did not answer: ${(cause as Error)?.message ?? String(cause)}`, nonRetryable: true });
}

/** Ends a write refused before anything was sent: its record FAILED with the reason, then the refusal. */
async function refuse(request: WriteRequest, error: unknown, progress: Progress): Promise<never> {
  const refusal = refusalOf(error);
  progress.step = 'record';
  await local.recordFailure(request, refusal.type ?? 'UNAVAILABLE', refusal.message, 0);
  upsertSearchAttributes([{ key: statusKey, value: 'FAILED' }]);
  progress.step = 'done';
  throw refusal;
}

/** One search-attribute update per write, at its end (each is a history event and a visibility write). */
function finish(progress: Progress, result: WriteResult, status: TransactionStatus, signature?: string): WriteResult {
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
