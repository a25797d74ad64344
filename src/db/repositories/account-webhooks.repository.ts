/** The webhooks stored on account records, read and replaced whole (KEK rotation re-wraps their sealed credentials). */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookConfig } from '../entities';

export interface AccountWebhooks {
  missingSignatureWebhooks: WebhookConfig[];
  preTransactionSubmitWebhooks: WebhookConfig[];
  postTransactionSubmitWebhooks: WebhookConfig[];
}

/** Accounts that have at least one webhook, with their webhooks as stored. */
export async function accountsWithWebhooks(em: EntityManager): Promise<({ id: string } & AccountWebhooks)[]> {
  const rows = await em.getConnection().execute<{ id: string; m: WebhookConfig[]; pre: WebhookConfig[]; post: WebhookConfig[] }[]>(
    `select id, missing_signature_webhooks m, pre_transaction_submit_webhooks pre, post_transaction_submit_webhooks post from account
     where missing_signature_webhooks <> '[]'::jsonb or pre_transaction_submit_webhooks <> '[]'::jsonb or post_transaction_submit_webhooks <> '[]'::jsonb`,
  );
  return rows.map((r) => ({ id: r.id, missingSignatureWebhooks: r.m, preTransactionSubmitWebhooks: r.pre, postTransactionSubmitWebhooks: r.post }));
}

/** Replaces an account's webhooks only if they are still `before` (compare-and-set: a concurrent Update Account wins); true when replaced. */
export async function replaceAccountWebhooks(em: EntityManager, id: string, before: AccountWebhooks, after: AccountWebhooks): Promise<boolean> {
  const json = (w: AccountWebhooks) => [
    JSON.stringify(w.missingSignatureWebhooks),
    JSON.stringify(w.preTransactionSubmitWebhooks),
    JSON.stringify(w.postTransactionSubmitWebhooks),
  ];
  const result = await em.getConnection().execute<{ affectedRows: number }>(
    `update account set missing_signature_webhooks = ?::jsonb, pre_transaction_submit_webhooks = ?::jsonb, post_transaction_submit_webhooks = ?::jsonb
     where id = ? and missing_signature_webhooks = ?::jsonb and pre_transaction_submit_webhooks = ?::jsonb and post_transaction_submit_webhooks = ?::jsonb`,
    [...json(after), id, ...json(before)],
    'run',
  );
  return result.affectedRows > 0;
}
