/** The webhook delivery log of a transaction, and the replay of one event (docs/webhooks.md). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerTransaction, WebhookDelivery } from '../../db/entities';
import { startWebhookReplay } from '../../client/webhook-replays';
import { LedgerError, notFound } from '../../domain/errors';
import { replayWebhookDeliveryBody, singleTransactionBody } from '../codecs/transaction.codecs';
import { findTransaction } from './transactions.routes';
import { singleReadsOf } from './single-route';
import type { ApiDeps, Caller } from '../context';
import { route, type RouteSpec } from '../route';
import { actingScope } from '../tenancy';
import { webhookDeliveriesResponse, type WebhookDeliveriesBody } from '../../domain/responses/webhook-delivery.responses';

/** How long a replay answer waits for its first attempt (a receiver's timeout is at most 30 s). */
const REPLAY_WAIT_MS = 35_000;
const POLL_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const present = (rows: WebhookDelivery[]): WebhookDeliveriesBody => ({
  items: rows.map((r) => ({
    eventId: r.eventId,
    eventType: r.eventType,
    webhookName: r.webhookName ?? null,
    attempt: r.attempt,
    at: r.at,
    httpStatus: r.httpStatus ?? null,
    error: r.error ?? null,
  })),
});

const ordered = { orderBy: { at: 'asc', attempt: 'asc' } } as const;

/**
 * The transaction whose deliveries the caller reads: its own, or another organization's write that
 * called the caller's webhooks (the owner of a shared account, docs/webhooks.md "Whose webhooks"):
 * only the caller's own delivery rows are shown of it. Any other is the caller's NOT_FOUND.
 */
async function transactionWithDeliveries(em: EntityManager, caller: Caller, lookup: { offchainId?: string; onchainId?: string }): Promise<LedgerTransaction> {
  try {
    return await findTransaction(em, caller, lookup);
  } catch (error) {
    if (!(error instanceof LedgerError) || error.code !== 'NOT_FOUND') throw error;
    const where: Record<string, unknown> = {};
    if (lookup.offchainId) where.id = lookup.offchainId;
    if (lookup.onchainId) where.signature = lookup.onchainId;
    for (const tx of await em.find(LedgerTransaction, where, { limit: 10 }))
      if (await em.count(WebhookDelivery, { organizationId: caller.organizationId, transactionId: tx.id })) return tx;
    throw error;
  }
}

export function webhookDeliveryRoutes(deps: ApiDeps): RouteSpec[] {
  const fork = (): EntityManager => deps.orm.em.fork();
  return [
    singleReadsOf(deps, singleTransactionBody, ({ em, caller, body }) => transactionWithDeliveries(em, caller, body.itemData.transaction))({
      operationId: 'fetchWebhookDeliveries',
      path: '/api/v1/transactions/webhook-deliveries',
      tag: 'Transactions',
      summary:
        "Fetch Webhook Deliveries: every delivery attempt of the pre- and post-submit webhooks of a transaction, named by offchainId (or onchainId, as Fetch Transaction Details) (the first transaction of a write carries its post-submit event), oldest first. Only the calling organization's webhooks are listed; the owner of a shared account also reads its own deliveries of another organization's transaction that its account signed or paid for. Attempts count per webhook and event; a failed attempt says why (httpStatus null when the receiver never answered: timeout, network error, a private address refused after DNS, an OAuth2 token endpoint failure).",
      response: webhookDeliveriesResponse,
      present: async (tx, { em, caller }) => present(await em.find(WebhookDelivery, { organizationId: caller.organizationId, transactionId: tx.id }, ordered)),
    }),
    route({
      operationId: 'replayWebhookDelivery',
      method: 'patch',
      path: '/api/v1/transactions/webhook-deliveries/replay',
      tag: 'Transactions',
      summary:
        "Replay Webhook Delivery: a post-submit webhook event delivered again to the current post-submit webhooks of its accounts, with the same eventId (receivers deduplicate by it) and each webhook's next attempt number, durably: a workflow per replay retries failed deliveries with the original delivery's backoff (over 24 h). Answers the event's deliveries once the replay's first attempts are logged (at most 35 s). Post-submit and NETWORK_TRANSACTION events replay; a pre-submit event decided its transaction once (404 as an unknown event).",
      role: 'WRITE',
      body: replayWebhookDeliveryBody,
      successStatus: 200,
      response: webhookDeliveriesResponse,
      async handler(ctx, body) {
        const { em, caller } = await actingScope(ctx, deps, body.tenancyConfig);
        const { eventId } = body.itemData;
        const where = { organizationId: caller.organizationId, eventId };
        const logged = await em.findOne(WebhookDelivery, where, { orderBy: { at: 'desc' } });
        // Post-submit events and the chain follower's NETWORK_TRANSACTION events (docs/chain-follower.md) replay.
        if (!logged || (logged.eventType !== 'TRANSACTION_POST_SUBMIT' && logged.eventType !== 'NETWORK_TRANSACTION'))
          throw notFound('itemData.eventId', 'no post-submit event with this eventId');
        const requestedAt = deps.now();
        const replay = await startWebhookReplay(deps, { caller, eventId, requestId: ctx.state.requestId, requestedAt });
        let ended = false;
        void replay.ended.then(() => (ended = true));
        for (const deadline = Date.now() + REPLAY_WAIT_MS; !ended && Date.now() < deadline; await sleep(POLL_MS)) {
          if (await fork().count(WebhookDelivery, { ...where, at: { $gte: requestedAt } })) break;
        }
        return present(await fork().find(WebhookDelivery, where, ordered));
      },
    }),
  ];
}
