/**
 * The one write workflow: lookup → limit check → build → pre-submit webhook → sign → submit →
 * confirm → record → post-submit webhook. Deterministic orchestration only; every step is an
 * activity. Short steps (lookup to submit, record) are local activities: no server round trips,
 * and each result is recorded before the next step, so a worker that dies after submit resumes
 * at confirm with the same bytes. Confirm, which waits, is a regular activity with heartbeats.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  defineQuery,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { createActivities } from '../activities';
import type { Outcome, TransactionStatus, WriteRequest, WriteResult } from '../domain/write';
import { searchAttributeNames } from '../domain/write';

type Activities = ReturnType<typeof createActivities>;

export const currentStepQuery = defineQuery<string>('currentStep');

export const statusKey = defineSearchAttributeKey(searchAttributeNames.status, SearchAttributeType.KEYWORD);
export const signatureKey = defineSearchAttributeKey(searchAttributeNames.signature, SearchAttributeType.KEYWORD);

const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 10 },
});
/**
 * Recording happens after the network moved value: it must not give up, or chain and records would
 * disagree. It retries until it succeeds (idempotent), and a stuck record step shows in the Web UI.
 */
const recording = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '1m' },
});
const chain = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '250ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 20 },
});
const confirmation = proxyActivities<Activities>({
  startToCloseTimeout: '3m',
  // The step heartbeats twice a second: a dead worker's confirm is retried elsewhere within seconds.
  heartbeatTimeout: '3s',
  retry: { initialInterval: '250ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 20 },
});

/** A transaction whose lifetime ran out before landing is rebuilt with a new one, at most this often. */
const MAX_LIFETIMES = 3;

export async function ledgerWrite(request: WriteRequest): Promise<WriteResult> {
  const progress = { step: 'lookup' };
  setHandler(currentStepQuery, () => progress.step);
  try {
    return await write(request, progress);
  } catch (error) {
    // A refused write leaves its transaction record (if any) FAILED with the reason, then fails as it was.
    const refusal = error instanceof ActivityFailure ? error.cause : error;
    if (refusal instanceof ApplicationFailure) {
      await local.recordFailure(request, refusal.type ?? 'INTERNAL', refusal.message);
      upsertSearchAttributes([{ key: statusKey, value: 'FAILED' }]);
    }
    throw error;
  }
}

async function write(request: WriteRequest, progress: { step: string }): Promise<WriteResult> {
  const status = (value: TransactionStatus) => upsertSearchAttributes([{ key: statusKey, value }]);

  const resolved = await local.lookup(request);
  progress.step = 'limitCheck';
  await local.checkLimits(request, resolved);

  if (!resolved.needsTransaction) {
    progress.step = 'record';
    return local.record(request, resolved, null);
  }

  for (let lifetime = 1; ; lifetime++) {
    progress.step = 'build';
    const built = await local.build(request, resolved);

    if (resolved.webhooks.preSubmit) {
      progress.step = 'preSubmitWebhook';
      const verdict = await chain.callPreSubmitWebhooks(request, built);
      if (verdict === 'VETO') {
        progress.step = 'record';
        status('REJECTED');
        return local.recordRejection(request, 'a pre-submit webhook failed and asked not to submit the transaction');
      }
    }

    progress.step = 'sign';
    const signed = await local.sign(request, built, resolved.signers);
    // One upsert per visible milestone: each is a history event and a visibility write.
    upsertSearchAttributes([
      { key: signatureKey, value: signed.signature },
      { key: statusKey, value: request.submit ? 'SUBMITTED' : 'SIGNED' },
    ]);
    if (!request.submit) {
      progress.step = 'record';
      return local.record(request, resolved, { status: 'SIGNED' });
    }

    progress.step = 'submit';
    // A local activity: the signed bytes are already in history, so a retry on another worker re-sends the same bytes.
    const sent = await local.submit(request, signed);
    let outcome: Outcome;
    if (sent.rejected) {
      outcome = { status: 'FAILED', errorMessage: sent.rejected };
    } else {
      progress.step = 'confirm';
      outcome = await confirmation.confirm(request, signed, built);
    }

    if (outcome.status === 'EXPIRED' && lifetime < MAX_LIFETIMES) {
      await local.markExpired(request);
      continue;
    }

    progress.step = 'record';
    const result = await recording.record(request, resolved, outcome);
    status(result.transaction?.status ?? 'FAILED');

    if (resolved.webhooks.postSubmit) {
      progress.step = 'postSubmitWebhook';
      // Delivery retries for a day; it runs on as its own workflow and does not hold up the answer.
      await startChild(deliverPostSubmitWebhooks, {
        workflowId: `${workflowInfo().workflowId}-post-submit`,
        args: [request],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    }
    progress.step = 'done';
    return result;
  }
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
