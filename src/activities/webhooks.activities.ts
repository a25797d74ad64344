/**
 * Webhook deliveries around submission (docs/webhooks.md): pre-submit (with the fully signed transaction;
 * may veto) and post-submit (at least once; the receiver deduplicates by eventId), and the replay of
 * a post-submit event. Every attempt is logged (WebhookDelivery) with its attempt number per webhook.
 *
 * Event ids are stable across retries and replays: `<transaction id>:TRANSACTION_POST_SUBMIT` once
 * per write, `<part's transaction id>:TRANSACTION_PRE_SUBMIT:<signature>` once per signed message
 * (a message rebuilt after its lifetime ran out is a new event, which the receiver must approve anew).
 *
 * Each organization whose accounts hear the write (the writer's, and the owner of a shared account
 * that signs or pays: hearsWrite) gets its own delivery: its accounts in the payload, its signing
 * secret, its webhooks' stored credentials, and its delivery log rows.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { Account, LedgerTransaction, Organization, WebhookDelivery, type WebhookConfig, type WebhookFailure } from '../db/entities';
import { partTransactionId } from '../domain/ids';
import type { BuiltTransaction, SignedTransaction, WriteRequest } from '../domain/write';
import { hearsWrite } from '../domain/operations/accounts/webhook-recipients.rules';
import type { ActivityDeps } from './deps';
import { transactionOrigin, transactionResult } from '../db/repositories/transaction-records.repository';
import { createWebhookSender, type SendOutcome } from './webhooks/send';
import { LEFT_CHAIN_SUFFIX, leftChainEventId, networkEventId } from '../follower/ids';

export const webhookEventTypes = {
  pre: 'TRANSACTION_PRE_SUBMIT',
  post: 'TRANSACTION_POST_SUBMIT',
  missingSignature: 'TRANSACTION_MISSING_SIGNATURE',
  network: 'NETWORK_TRANSACTION',
} as const;

/** What an event is about: the write's identity (the writing organization), enough to rebuild a post-submit event for a replay. */
type Subject = Pick<WriteRequest, 'organizationId' | 'organizationExternalId' | 'cluster' | 'operation'> & { transactionId: string };

/** An organization whose accounts hear the event: their webhooks are called, signed with its secret and logged under it. */
interface Recipient {
  organizationId: string;
  accounts: Account[];
}

export function createWebhookActivities(deps: ActivityDeps) {
  const fork = () => deps.orm.em.fork();
  const unseal = (value: string) => (deps.sealer.isSealed(value) ? deps.sealer.unseal(value).toString('utf8') : value);
  const send = createWebhookSender({ fetch: deps.fetch, now: deps.now, policy: deps.webhookUrlPolicy, unseal });

  /**
   * Who hears the event, the writer first: the writer's accounts among the signers (and `ids`, the
   * records the transaction touched), and each other organization's records of a signer shared with
   * the writer (hearsWrite), grouped by organization. `only` keeps one organization (a replay).
   */
  async function recipients(em: EntityManager, subject: Subject, signers: string[], ids: string[], only?: string): Promise<Recipient[]> {
    const own = await em.find(Account, {
      organizationId: subject.organizationId,
      cluster: subject.cluster,
      $or: [{ address: { $in: signers } }, { id: { $in: ids } }],
    });
    const others = signers.length
      ? await em.find(
          Account,
          { organizationId: { $ne: subject.organizationId }, cluster: subject.cluster, address: { $in: signers } },
          { orderBy: { id: 'asc' } },
        )
      : [];
    const byOrganization = new Map<string, Account[]>([[subject.organizationId, own]]);
    for (const account of others.filter((a) => hearsWrite(a, subject)))
      byOrganization.set(account.organizationId, [...(byOrganization.get(account.organizationId) ?? []), account]);
    return [...byOrganization]
      .filter(([organizationId, accounts]) => accounts.length > 0 && (only === undefined || organizationId === only))
      .map(([organizationId, accounts]) => ({ organizationId, accounts }));
  }

  /** The payload of a recipient's deliveries (docs/webhooks.md; plus `signedTransaction` for pre-submit) and the recipient's signing secret. */
  async function event(em: EntityManager, subject: Subject, to: Recipient, eventId: string, eventType: string, extra: Record<string, unknown> = {}) {
    const org = await em.findOneOrFail(Organization, { id: to.organizationId });
    const tx = await em.findOne(LedgerTransaction, { id: subject.transactionId });
    const body = JSON.stringify({
      eventId,
      eventType,
      occurredAt: deps.now().toISOString(),
      organizationExternalId: subject.organizationExternalId,
      // The transaction result with its origin, as Fetch Transaction shows it (docs/webhooks.md).
      transaction: tx ? { ...transactionResult(tx), origin: transactionOrigin(tx) } : null,
      operation: subject.operation,
      accounts: to.accounts.map((a) => ({ onchainId: a.address, offchainId: a.id, type: a.type, managed: a.managed })),
      ...extra,
    });
    return { body, secret: deps.sealer.unseal(org.webhookSigningSecret).toString('utf8') };
  }

  /** Sends one attempt and logs it; the attempt number counts this webhook's earlier attempts at the event. */
  async function attempt(
    subject: Subject,
    to: Recipient,
    hook: WebhookConfig,
    eventId: string,
    eventType: string,
    body: string,
    secret: string,
  ): Promise<SendOutcome> {
    const em = fork();
    const earlier = await em.count(WebhookDelivery, {
      organizationId: to.organizationId,
      eventId,
      endpointUrl: hook.endpointUrl,
      webhookName: hook.name ?? null,
    });
    const at = deps.now();
    const outcome = await send(hook, eventId, body, secret);
    em.create(WebhookDelivery, {
      id: randomUUID(),
      organizationId: to.organizationId,
      transactionId: subject.transactionId,
      eventId,
      eventType,
      webhookName: hook.name ?? null,
      endpointUrl: hook.endpointUrl,
      attempt: earlier + 1,
      at,
      httpStatus: outcome.httpStatus,
      error: outcome.error,
    });
    await em.flush();
    return outcome;
  }

  /** This webhook's last logged attempt at the event, if any. */
  async function lastAttempt(to: Recipient, hook: WebhookConfig, eventId: string): Promise<SendOutcome | null> {
    const row = await fork().findOne(
      WebhookDelivery,
      { organizationId: to.organizationId, eventId, endpointUrl: hook.endpointUrl, webhookName: hook.name ?? null },
      { orderBy: { attempt: 'desc' } },
    );
    return row ? { httpStatus: row.httpStatus ?? null, error: row.error ?? null } : null;
  }

  /** Whether this webhook already took the event (a 2xx; since `since` for a replay): a retry of the event skips it. */
  async function delivered(to: Recipient, hook: WebhookConfig, eventId: string, since?: Date): Promise<boolean> {
    const where = {
      organizationId: to.organizationId,
      eventId,
      endpointUrl: hook.endpointUrl,
      webhookName: hook.name ?? null,
      error: null,
      ...(since ? { at: { $gte: since } } : {}),
    };
    return (await fork().count(WebhookDelivery, where)) > 0;
  }

  /**
   * Delivers an at-least-once event (post-submit, missing signature) to each recipient's webhooks of
   * `list` that have not taken it (since `since`, for a replay); throws while any failed so Temporal retries.
   */
  async function deliverToAll(
    em: EntityManager,
    subject: Subject,
    to: Recipient[],
    list: 'postTransactionSubmitWebhooks' | 'missingSignatureWebhooks',
    eventId: string,
    eventType: string,
    extra: Record<string, unknown> = {},
    since?: Date,
  ): Promise<void> {
    let failed = 0;
    let tried = 0;
    for (const recipient of to) {
      const hooks = recipient.accounts.flatMap((a) => a[list]);
      if (hooks.length === 0) continue;
      const { body, secret } = await event(em, subject, recipient, eventId, eventType, extra);
      const pending = (await Promise.all(hooks.map(async (hook) => ((await delivered(recipient, hook, eventId, since)) ? null : hook)))).filter(
        (h) => h !== null,
      );
      const outcomes = await Promise.all(pending.map((hook) => attempt(subject, recipient, hook, eventId, eventType, body, secret)));
      tried += pending.length;
      failed += outcomes.filter((o) => o.error).length;
    }
    if (failed) throw new Error(`${failed} of ${tried} ${eventType} webhook deliveries failed; retrying`);
  }

  /** Delivers the post-submit event to the recipients' webhooks that have not taken it (since `since`; `only` one organization, for a replay). */
  async function postSubmit(subject: Subject, since?: Date, only?: string, eventId = `${subject.transactionId}:${webhookEventTypes.post}`): Promise<void> {
    const em = fork();
    const tx = await em.findOne(LedgerTransaction, { id: subject.transactionId });
    const to = await recipients(em, subject, tx?.signers ?? [], tx?.accountIds ?? [], only);
    await deliverToAll(em, subject, to, 'postTransactionSubmitWebhooks', eventId, webhookEventTypes.post, {}, since);
  }

  /**
   * Delivers a network transaction's NETWORK_TRANSACTION events (docs/chain-follower.md): one event per
   * account of the record (its own eventId), to that account's post-submit webhooks that have not
   * taken it (since `since`, for a replay; `onlyEventId`: one event); throws while any failed so Temporal retries.
   * `leftChain`: the second event of a record whose transaction left the chain (its own eventIds).
   */
  async function networkEvents(transactionId: string, since?: Date, onlyEventId?: string, leftChain = false): Promise<void> {
    const em = fork();
    const tx = await em.findOne(LedgerTransaction, { id: transactionId });
    if (!tx || tx.origin !== 'NETWORK') return;
    const org = await em.findOneOrFail(Organization, { id: tx.organizationId });
    const subject: Subject = {
      organizationId: org.id,
      organizationExternalId: org.externalId,
      cluster: tx.cluster,
      operation: tx.operation as Subject['operation'],
      transactionId,
    };
    const accounts = await em.find(Account, { organizationId: tx.organizationId, id: { $in: tx.accountIds } }, { orderBy: { id: 'asc' } });
    const failures: unknown[] = [];
    for (const account of accounts) {
      const eventId = leftChain ? leftChainEventId(networkEventId(tx.id, account.id)) : networkEventId(tx.id, account.id);
      if (onlyEventId !== undefined && eventId !== onlyEventId) continue;
      await deliverToAll(
        em,
        subject,
        [{ organizationId: org.id, accounts: [account] }],
        'postTransactionSubmitWebhooks',
        eventId,
        webhookEventTypes.network,
        {},
        since,
      ).catch((error: unknown) => failures.push(error));
    }
    if (failures.length) throw failures[0];
  }

  /** The record's organization as an event's subject. */
  async function subjectOf(em: EntityManager, tx: LedgerTransaction): Promise<Subject> {
    const org = await em.findOneOrFail(Organization, { id: tx.organizationId });
    return {
      organizationId: org.id,
      organizationExternalId: org.externalId,
      cluster: tx.cluster,
      operation: tx.operation as Subject['operation'],
      transactionId: tx.id,
    };
  }

  return {
    /**
     * The second post-submit (or NETWORK_TRANSACTION) event of a record whose transaction left the chain
     * before finalization (docs/finality.md): the record now FAILED, under its own eventIds. Started by
     * the finality tick inside the database transaction that ends the record, so it waits (retried)
     * until that commit is visible: a crash before the commit leaves the record followed, and the next
     * tick starts the same workflow id again.
     */
    async callLeftChainWebhooks(transactionId: string): Promise<void> {
      const em = fork();
      const tx = await em.findOne(LedgerTransaction, { id: transactionId });
      if (!tx) return;
      if (tx.status !== 'FAILED') throw ApplicationFailure.create({ type: 'NOT_YET_RECORDED', message: 'the record has not ended FAILED yet' });
      if (tx.origin === 'NETWORK') return networkEvents(transactionId, undefined, undefined, true);
      await postSubmit(await subjectOf(em, tx), undefined, undefined, leftChainEventId(`${tx.id}:${webhookEventTypes.post}`));
    },

    /** Delivers a network transaction's NETWORK_TRANSACTION events at least once (its own workflow retries for over 24 hours). */
    async callNetworkTransactionWebhooks(transactionId: string): Promise<void> {
      await networkEvents(transactionId);
    },

    /**
     * Calls the pre-submit webhooks of the signers' accounts (the writer's, and a shared account's
     * owner's) with the signed wire transaction, after sign recorded it (the workflow calls this only
     * once prepare's result is in its history, so the message a webhook approves is the one
     * submitted). VETO when one that may veto fails, whoever's it is; every failure is added to the
     * transaction's `webhookFailures` (another organization's named only by its account's address:
     * its webhooks are owner-only configuration). One attempt per webhook and message (a pre-submit
     * receiver is in the write's path), so it is idempotent: a webhook already asked about this
     * message (a retry, or a run resumed after a crash between sign and this call's scheduling) is
     * answered from the log, not asked again. A message possibly sent already is past any veto.
     */
    async callPreSubmitWebhooks(request: WriteRequest, built: BuiltTransaction, signed: SignedTransaction, part = 0): Promise<'OK' | 'VETO'> {
      const em = fork();
      const subject: Subject = { ...request, transactionId: partTransactionId(request.transactionId, part) };
      const record = await em.findOne(LedgerTransaction, { id: subject.transactionId });
      if (record && record.status !== 'SIGNED' && record.status !== 'REJECTED') return 'OK';
      const to = (await recipients(em, subject, built.signers, [])).filter((r) => r.accounts.some((a) => a.preTransactionSubmitWebhooks.length > 0));
      if (to.length === 0) return 'OK';
      const eventId = `${subject.transactionId}:${webhookEventTypes.pre}:${signed.signature}`;
      const results = (
        await Promise.all(
          to.map(async (recipient) => {
            const { body, secret } = await event(em, subject, recipient, eventId, webhookEventTypes.pre, { signedTransaction: signed.wireBase64 });
            return Promise.all(
              recipient.accounts
                .flatMap((a) => a.preTransactionSubmitWebhooks)
                .map(async (hook) => {
                  const asked = await lastAttempt(recipient, hook, eventId);
                  const outcome = asked ?? (await attempt(subject, recipient, hook, eventId, webhookEventTypes.pre, body, secret));
                  return { recipient, hook, asked: asked !== null, outcome };
                }),
            );
          }),
        )
      ).flat();
      const failures: WebhookFailure[] = results
        .filter((r) => r.outcome.error && !r.asked)
        .map((r) => {
          const own = r.recipient.organizationId === subject.organizationId;
          const addresses = r.recipient.accounts.map((a) => a.address).join(', ');
          return {
            webhookName: own ? (r.hook.name ?? null) : null,
            eventType: webhookEventTypes.pre,
            httpStatus: r.outcome.httpStatus,
            error: own ? r.outcome.error! : `a pre-submit webhook of the organization owning ${addresses} failed`,
            at: deps.now().toISOString(),
          };
        });
      if (failures.length) {
        const tx = await em.findOne(LedgerTransaction, { id: subject.transactionId });
        if (tx) {
          tx.webhookFailures = [...(tx.webhookFailures ?? []), ...failures];
          await em.flush();
        }
      }
      return results.some((r) => r.outcome.error && r.hook.doNotSubmitTransactionOnFailure) ? 'VETO' : 'OK';
    },

    /**
     * Calls the missing-signature webhooks of the accounts whose signatures the write waits for (the
     * writer's, and a shared account's owner's), once per write (eventId
     * `<transaction id>:TRANSACTION_MISSING_SIGNATURE`); throws while any has not taken it so Temporal
     * retries (the receiver deduplicates by eventId).
     */
    async callMissingSignatureWebhooks(request: WriteRequest, missing: string[]): Promise<void> {
      const em = fork();
      const subject: Subject = request;
      const to = await recipients(em, subject, missing, []);
      const eventId = `${subject.transactionId}:${webhookEventTypes.missingSignature}`;
      await deliverToAll(em, subject, to, 'missingSignatureWebhooks', eventId, webhookEventTypes.missingSignature, { missingSigners: missing });
    },

    /** Calls the post-submit webhooks not yet delivered; throws while any fails so Temporal retries with backoff. */
    async callPostSubmitWebhooks(request: WriteRequest): Promise<void> {
      await postSubmit(request);
    },

    /**
     * Delivers a logged post-submit event again to every current post-submit webhook of the asking
     * organization's accounts (same eventId, the next attempt number); throws while any has not taken
     * it since `requestedAt`, so its workflow retries it as the original delivery is retried. Only
     * post-submit events replay (a pre-submit one decided its transaction once). The event is the
     * writer's, so an owner of a shared account replays its own deliveries of another organization's write.
     */
    async replayWebhookEvent(organizationId: string, eventId: string, requestedAt: string): Promise<void> {
      const em = fork();
      const logged = await em.findOne(WebhookDelivery, { organizationId, eventId }, { orderBy: { at: 'desc' } });
      if (logged?.eventType === webhookEventTypes.network)
        return networkEvents(logged.transactionId, new Date(requestedAt), eventId, eventId.endsWith(LEFT_CHAIN_SUFFIX));
      if (!logged || logged.eventType !== webhookEventTypes.post)
        throw ApplicationFailure.create({ type: 'NOT_FOUND', message: 'no post-submit event with this eventId', nonRetryable: true });
      const tx = await em.findOneOrFail(LedgerTransaction, { id: logged.transactionId });
      // The logged event's own id: a left-chain event replays as itself.
      await postSubmit(await subjectOf(em, tx), new Date(requestedAt), organizationId, logged.eventId);
    },
  };
}
