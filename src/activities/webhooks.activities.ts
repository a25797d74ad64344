/**
 * Webhook deliveries around submission (docs/webhooks.md): pre-submit (with the fully signed transaction;
 * may veto) and post-submit (at least once; the receiver deduplicates by eventId), and the replay of
 * a post-submit event. Every attempt is logged (WebhookDelivery) with its attempt number per webhook.
 *
 * Event ids are stable across retries and replays: `<transaction id>:TRANSACTION_POST_SUBMIT` once
 * per write, `<part's transaction id>:TRANSACTION_PRE_SUBMIT:<signature>` once per signed message
 * (a message rebuilt after its lifetime ran out is a new event, which the receiver must approve anew).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { Account, LedgerTransaction, Organization, WebhookDelivery, type WebhookConfig, type WebhookFailure } from '../db/entities';
import { partTransactionId } from '../domain/ids';
import type { BuiltTransaction, SignedTransaction, WriteRequest } from '../domain/write';
import type { ActivityDeps } from './deps';
import { transactionResult } from '../db/repositories/transaction-records.repository';
import { createWebhookSender, type SendOutcome } from './webhooks/send';

export const webhookEventTypes = { pre: 'TRANSACTION_PRE_SUBMIT', post: 'TRANSACTION_POST_SUBMIT', missingSignature: 'TRANSACTION_MISSING_SIGNATURE' } as const;

/** What an event is about: the write's identity, enough to rebuild a post-submit event for a replay. */
type Subject = Pick<WriteRequest, 'organizationId' | 'organizationExternalId' | 'cluster' | 'operation'> & { transactionId: string };

export function createWebhookActivities(deps: ActivityDeps) {
  const fork = () => deps.orm.em.fork();
  const unseal = (value: string) => (deps.sealer.isSealed(value) ? deps.sealer.unseal(value).toString('utf8') : value);
  const send = createWebhookSender({ fetch: deps.fetch, now: deps.now, policy: deps.webhookUrlPolicy, unseal });

  async function involvedAccounts(em: EntityManager, subject: Subject, addresses: string[], ids: string[]): Promise<Account[]> {
    return em.find(Account, { organizationId: subject.organizationId, cluster: subject.cluster, $or: [{ address: { $in: addresses } }, { id: { $in: ids } }] });
  }

  /** The payload of every delivery (docs/webhooks.md; plus `signedTransaction` for pre-submit) and the organization's signing secret. */
  async function event(em: EntityManager, subject: Subject, eventId: string, eventType: string, accounts: Account[], extra: Record<string, unknown> = {}) {
    const org = await em.findOneOrFail(Organization, { id: subject.organizationId });
    const tx = await em.findOne(LedgerTransaction, { id: subject.transactionId });
    const body = JSON.stringify({
      eventId,
      eventType,
      occurredAt: deps.now().toISOString(),
      organizationExternalId: subject.organizationExternalId,
      transaction: tx ? transactionResult(tx) : null,
      operation: subject.operation,
      accounts: accounts.map((a) => ({ onchainId: a.address, offchainId: a.id, type: a.type, managed: a.managed })),
      ...extra,
    });
    return { body, secret: deps.sealer.unseal(org.webhookSigningSecret).toString('utf8') };
  }

  /** Sends one attempt and logs it; the attempt number counts this webhook's earlier attempts at the event. */
  async function attempt(subject: Subject, hook: WebhookConfig, eventId: string, eventType: string, body: string, secret: string): Promise<SendOutcome> {
    const em = fork();
    const earlier = await em.count(WebhookDelivery, {
      organizationId: subject.organizationId,
      eventId,
      endpointUrl: hook.endpointUrl,
      webhookName: hook.name ?? null,
    });
    const at = deps.now();
    const outcome = await send(hook, eventId, body, secret);
    em.create(WebhookDelivery, {
      id: randomUUID(),
      organizationId: subject.organizationId,
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
  async function lastAttempt(subject: Subject, hook: WebhookConfig, eventId: string): Promise<SendOutcome | null> {
    const row = await fork().findOne(
      WebhookDelivery,
      { organizationId: subject.organizationId, eventId, endpointUrl: hook.endpointUrl, webhookName: hook.name ?? null },
      { orderBy: { attempt: 'desc' } },
    );
    return row ? { httpStatus: row.httpStatus ?? null, error: row.error ?? null } : null;
  }

  /** Whether this webhook already took the event (a 2xx; since `since` for a replay): a retry of the event skips it. */
  async function delivered(subject: Subject, hook: WebhookConfig, eventId: string, since?: Date): Promise<boolean> {
    const where = {
      organizationId: subject.organizationId,
      eventId,
      endpointUrl: hook.endpointUrl,
      webhookName: hook.name ?? null,
      error: null,
      ...(since ? { at: { $gte: since } } : {}),
    };
    return (await fork().count(WebhookDelivery, where)) > 0;
  }

  /** Delivers the post-submit event to the involved accounts' webhooks that have not taken it (since `since`, for a replay). */
  async function postSubmit(subject: Subject, since?: Date): Promise<void> {
    const em = fork();
    const tx = await em.findOne(LedgerTransaction, { id: subject.transactionId });
    const accounts = await involvedAccounts(em, subject, tx?.signers ?? [], tx?.accountIds ?? []);
    const hooks = accounts.flatMap((a) => a.postTransactionSubmitWebhooks);
    if (hooks.length === 0) return;
    const eventId = `${subject.transactionId}:${webhookEventTypes.post}`;
    const { body, secret } = await event(em, subject, eventId, webhookEventTypes.post, accounts);
    const pending = (await Promise.all(hooks.map(async (hook) => ((await delivered(subject, hook, eventId, since)) ? null : hook)))).filter((h) => h !== null);
    const failed = (await Promise.all(pending.map((hook) => attempt(subject, hook, eventId, webhookEventTypes.post, body, secret)))).filter(
      (o) => o.error,
    ).length;
    if (failed) throw new Error(`${failed} of ${pending.length} post-submit webhook deliveries failed; retrying`);
  }

  return {
    /**
     * Calls the pre-submit webhooks of the signers' accounts with the signed wire transaction, after
     * sign recorded it (the workflow calls this only once prepare's result is in its history, so the
     * message a webhook approves is the one submitted). VETO when one that may veto fails; every
     * failure is added to the transaction's `webhookFailures`. One attempt per webhook and message (a
     * pre-submit receiver is in the write's path), so it is idempotent: a webhook already asked about
     * this message (a retry, or a run resumed after a crash between sign and this call's scheduling)
     * is answered from the log, not asked again. A message possibly sent already is past any veto.
     */
    async callPreSubmitWebhooks(request: WriteRequest, built: BuiltTransaction, signed: SignedTransaction, part = 0): Promise<'OK' | 'VETO'> {
      const em = fork();
      const subject: Subject = { ...request, transactionId: partTransactionId(request.transactionId, part) };
      const record = await em.findOne(LedgerTransaction, { id: subject.transactionId });
      if (record && record.status !== 'SIGNED' && record.status !== 'REJECTED') return 'OK';
      const accounts = await involvedAccounts(em, subject, built.signers, []);
      const hooks = accounts.flatMap((a) => a.preTransactionSubmitWebhooks);
      if (hooks.length === 0) return 'OK';
      const eventId = `${subject.transactionId}:${webhookEventTypes.pre}:${signed.signature}`;
      const { body, secret } = await event(em, subject, eventId, webhookEventTypes.pre, accounts, { signedTransaction: signed.wireBase64 });
      const results = await Promise.all(
        hooks.map(async (hook) => {
          const asked = await lastAttempt(subject, hook, eventId);
          return { hook, asked: asked !== null, outcome: asked ?? (await attempt(subject, hook, eventId, webhookEventTypes.pre, body, secret)) };
        }),
      );
      const failures: WebhookFailure[] = results
        .filter((r) => r.outcome.error && !r.asked)
        .map((r) => ({
          webhookName: r.hook.name ?? null,
          eventType: webhookEventTypes.pre,
          httpStatus: r.outcome.httpStatus,
          error: r.outcome.error!,
          at: deps.now().toISOString(),
        }));
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
     * Calls the missing-signature webhooks of the accounts whose signatures the write waits for, once
     * per write (eventId `<transaction id>:TRANSACTION_MISSING_SIGNATURE`); throws while any has not
     * taken it so Temporal retries (the receiver deduplicates by eventId).
     */
    async callMissingSignatureWebhooks(request: WriteRequest, missing: string[]): Promise<void> {
      const em = fork();
      const subject: Subject = request;
      const accounts = await involvedAccounts(em, subject, missing, []);
      const hooks = accounts.flatMap((a) => a.missingSignatureWebhooks);
      if (hooks.length === 0) return;
      const eventId = `${subject.transactionId}:${webhookEventTypes.missingSignature}`;
      const { body, secret } = await event(em, subject, eventId, webhookEventTypes.missingSignature, accounts, { missingSigners: missing });
      const pending = (await Promise.all(hooks.map(async (hook) => ((await delivered(subject, hook, eventId)) ? null : hook)))).filter((h) => h !== null);
      const failed = (await Promise.all(pending.map((hook) => attempt(subject, hook, eventId, webhookEventTypes.missingSignature, body, secret)))).filter(
        (o) => o.error,
      ).length;
      if (failed) throw new Error(`${failed} of ${pending.length} missing-signature webhook deliveries failed; retrying`);
    },

    /** Calls the post-submit webhooks not yet delivered; throws while any fails so Temporal retries with backoff. */
    async callPostSubmitWebhooks(request: WriteRequest): Promise<void> {
      await postSubmit(request);
    },

    /**
     * Delivers a logged post-submit event again to every current post-submit webhook of its accounts
     * (same eventId, the next attempt number); throws while any has not taken it since `requestedAt`,
     * so its workflow retries it as the original delivery is retried. Only post-submit events replay
     * (a pre-submit one decided its transaction once).
     */
    async replayWebhookEvent(organizationId: string, eventId: string, requestedAt: string): Promise<void> {
      const em = fork();
      const logged = await em.findOne(WebhookDelivery, { organizationId, eventId }, { orderBy: { at: 'desc' } });
      if (!logged || logged.eventType !== webhookEventTypes.post)
        throw ApplicationFailure.create({ type: 'NOT_FOUND', message: 'no post-submit event with this eventId', nonRetryable: true });
      const tx = await em.findOneOrFail(LedgerTransaction, { id: logged.transactionId });
      const org = await em.findOneOrFail(Organization, { id: organizationId });
      await postSubmit(
        {
          organizationId,
          organizationExternalId: org.externalId,
          cluster: tx.cluster,
          operation: tx.operation as WriteRequest['operation'],
          transactionId: tx.id,
        },
        new Date(requestedAt),
      );
    },
  };
}
