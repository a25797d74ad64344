/**
 * Webhook deliveries around submission (API.md 5): pre-submit (may veto) and post-submit
 * (at least once; the receiver deduplicates by eventId). Each delivery is signed with the
 * organization's webhook signing secret: HMAC-SHA256 over `timestamp.body`.
 */
import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, LedgerTransaction, Organization, type WebhookConfig } from '../db/entities';
import type { BuiltTransaction, WriteRequest } from '../domain/write';
import type { ActivityDeps } from './deps';
import { transactionResult } from '../db/repositories/transaction-records.repository';

type Kind = 'preTransactionSubmitWebhooks' | 'postTransactionSubmitWebhooks' | 'missingSignatureWebhooks';

const eventTypes: Record<Kind, string> = {
  preTransactionSubmitWebhooks: 'TRANSACTION_PRE_SUBMIT',
  postTransactionSubmitWebhooks: 'TRANSACTION_POST_SUBMIT',
  missingSignatureWebhooks: 'TRANSACTION_MISSING_SIGNATURE',
};

export function createWebhookActivities(deps: ActivityDeps) {
  const fork = () => deps.orm.em.fork();

  async function involvedAccounts(em: EntityManager, request: WriteRequest, addresses: string[], ids: string[]): Promise<Account[]> {
    return em.find(Account, { organizationId: request.organizationId, cluster: request.cluster, $or: [{ address: { $in: addresses } }, { id: { $in: ids } }] });
  }

  /** Sends one delivery; resolves true on a 2xx within the timeout. Never throws. */
  async function deliver(hook: WebhookConfig, eventId: string, body: string, secret: string): Promise<boolean> {
    const timestamp = deps.now().toISOString();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-ledger-event-id': eventId,
      'x-ledger-timestamp': timestamp,
      'x-ledger-signature': createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'),
    };
    if (hook.apiKeyAuthConfig) headers[hook.apiKeyAuthConfig.httpHeaderName.toLowerCase()] = unsealed(hook.apiKeyAuthConfig.keyValue);
    try {
      const response = await deps.fetch(hook.endpointUrl, { method: 'POST', headers, body, signal: AbortSignal.timeout(Math.min(hook.timeout ?? 5000, 30000)) });
      await response.arrayBuffer().catch(() => undefined);
      return response.ok;
    } catch {
      return false;
    }
  }

  const unsealed = (value: string) => (deps.sealer.isSealed(value) ? deps.sealer.unseal(value).toString('utf8') : value);

  async function payload(em: EntityManager, request: WriteRequest, kind: Kind, accounts: Account[]) {
    const org = await em.findOneOrFail(Organization, { id: request.organizationId });
    const tx = await em.findOne(LedgerTransaction, { id: request.transactionId });
    const eventType = eventTypes[kind];
    const eventId = `${request.transactionId}:${eventType}`;
    const body = JSON.stringify({
      eventId,
      eventType,
      occurredAt: deps.now().toISOString(),
      organizationExternalId: request.organizationExternalId,
      transaction: tx ? transactionResult(tx) : null,
      operation: request.operation,
      accounts: accounts.map((a) => ({ onchainId: a.address, offchainId: a.id, type: a.type, managed: a.managed })),
    });
    return { eventId, body, secret: deps.sealer.unseal(org.webhookSigningSecret).toString('utf8') };
  }

  return {
    /** Calls the pre-submit webhooks of the involved accounts; VETO when one that may veto fails. */
    async callPreSubmitWebhooks(request: WriteRequest, built: BuiltTransaction): Promise<'OK' | 'VETO'> {
      const em = fork();
      const accounts = await involvedAccounts(em, request, built.signers, []);
      const hooks = accounts.flatMap((a) => a.preTransactionSubmitWebhooks);
      if (hooks.length === 0) return 'OK';
      const { eventId, body, secret } = await payload(em, request, 'preTransactionSubmitWebhooks', accounts);
      const results = await Promise.all(hooks.map(async (hook) => ({ hook, ok: await deliver(hook, eventId, body, secret) })));
      return results.some((r) => !r.ok && r.hook.doNotSubmitTransactionOnFailure) ? 'VETO' : 'OK';
    },

    /**
     * Calls the missing-signature webhooks of the accounts whose signatures the write waits for;
     * throws while any delivery fails so Temporal retries (the receiver deduplicates by eventId).
     */
    async callMissingSignatureWebhooks(request: WriteRequest, missing: string[]): Promise<void> {
      const em = fork();
      const accounts = await involvedAccounts(em, request, missing, []);
      const hooks = accounts.flatMap((a) => a.missingSignatureWebhooks);
      if (hooks.length === 0) return;
      const { eventId, body, secret } = await payload(em, request, 'missingSignatureWebhooks', accounts);
      const failed = (await Promise.all(hooks.map((hook) => deliver(hook, eventId, body, secret)))).filter((ok) => !ok).length;
      if (failed) throw new Error(`${failed} of ${hooks.length} missing-signature webhook deliveries failed; retrying`);
    },

    /** Calls the post-submit webhooks; throws while any delivery fails so Temporal retries with backoff. */
    async callPostSubmitWebhooks(request: WriteRequest): Promise<void> {
      const em = fork();
      const tx = await em.findOne(LedgerTransaction, { id: request.transactionId });
      const accounts = await involvedAccounts(em, request, tx?.signers ?? [], tx?.accountIds ?? []);
      const hooks = accounts.flatMap((a) => a.postTransactionSubmitWebhooks);
      if (hooks.length === 0) return;
      const { eventId, body, secret } = await payload(em, request, 'postTransactionSubmitWebhooks', accounts);
      const failed = (await Promise.all(hooks.map((hook) => deliver(hook, eventId, body, secret)))).filter((ok) => !ok).length;
      if (failed) throw new Error(`${failed} of ${hooks.length} post-submit webhook deliveries failed; retrying`);
    },
  };
}
