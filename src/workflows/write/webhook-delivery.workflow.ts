/** The post-submit webhooks' own workflows: a write hands its delivery over and ends; a replay asked through the API runs the same way. */
import type { WriteRequest } from '../../domain/write';
import { delivery, leftChainDelivery, networkDelivery, replayDelivery } from './proxies';

/** At-least-once delivery of the post-submit webhooks of one write, with backoff for over 24 hours. */
export async function deliverPostSubmitWebhooks(request: WriteRequest): Promise<void> {
  await delivery(request, 'post-submit webhooks').callPostSubmitWebhooks(request);
}

/** Replay of a post-submit event (PATCH /transactions/webhook-deliveries/replay), retried as the original delivery is. */
export async function replayWebhookEvent(organizationId: string, eventId: string, requestedAt: string): Promise<void> {
  await replayDelivery.replayWebhookEvent(organizationId, eventId, requestedAt);
}

/** At-least-once delivery of a network transaction's NETWORK_TRANSACTION events (docs/chain-follower.md), retried as post-submit deliveries are. */
export async function deliverNetworkTransactionWebhooks(transactionId: string): Promise<void> {
  await networkDelivery.callNetworkTransactionWebhooks(transactionId);
}

/** At-least-once delivery of the second event of a record whose transaction left the chain before finalization (docs/finality.md). */
export async function deliverLeftChainWebhooks(transactionId: string): Promise<void> {
  await leftChainDelivery.callLeftChainWebhooks(transactionId);
}
