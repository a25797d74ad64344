/**
 * The write workflows' view of the activities (types only), with the options each kind of step runs
 * under, and each call's summary: what the Web UI's timeline shows for the step.
 */
import { proxyActivities, proxyLocalActivities, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import type { WriteRequest } from '../../domain/write';
import { operationWords } from '../../domain/write-summary';

type Activities = ReturnType<typeof createActivities>;

/** What `prepare`/`prepareNext` answer: the transaction built and signed. */
export type Prepared = Awaited<ReturnType<Activities['prepareNext']>>;

/**
 * Steps before anything is sent (prepare): a few quick retries ride out a blip; a fault that outlasts
 * them is retried by the write itself (`retryingFaults`) with durable timers until its deadline.
 */
export const local = summarized(proxyLocalActivities<Activities>, {
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
export const untilDone = summarized(proxyLocalActivities<Activities>, {
  startToCloseTimeout: '3m',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s' },
});
/** Webhook receivers are third parties with their own timeouts: a regular activity, run only when some account has one. */
export const webhooks = summarized(proxyActivities<Activities>, {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '250ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 20 },
});
/** Post-submit deliveries (their own workflow): retried with backoff for over 24 hours. */
const deliveryOptions: ActivityOptions = {
  startToCloseTimeout: '45s',
  scheduleToCloseTimeout: '25h',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10m' },
};
export const delivery = summarized(proxyActivities<Activities>, deliveryOptions);
/** A replay asked through the API (no write at hand: a fixed summary). */
export const replayDelivery = proxyActivities<Activities>({ ...deliveryOptions, summary: 'replay of a post-submit webhook event' });
/** A network transaction's events (the chain follower's records: no write at hand). */
export const networkDelivery = proxyActivities<Activities>({ ...deliveryOptions, summary: 'NETWORK_TRANSACTION webhook events' });
export const leftChainDelivery = proxyActivities<Activities>({ ...deliveryOptions, summary: 'webhook events of a transaction that left the chain' });

/**
 * A step's summary in the timeline: the write's operation, what the step does, and for a write of
 * several transactions which one (`Transfer Network Currency: submit → confirm → record`). Fixed
 * words and the operation only, never a value from the request: it may hold a secret.
 */
export function stepSummary(operation: WriteRequest['operation'], what: string, part = 0): string {
  return `${operationWords(operation)}: ${what}${part > 0 ? ` (transaction ${part + 1})` : ''}`;
}

/** The proxy of one call, with its summary. */
function summarized<O extends ActivityOptions | LocalActivityOptions>(proxy: (options: O) => Activities, options: O) {
  return (request: Pick<WriteRequest, 'operation'>, what: string, part = 0): Activities =>
    proxy({ ...options, summary: stepSummary(request.operation, what, part) });
}
