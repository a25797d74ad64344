/**
 * Debit API keys (spec 2.3, docs/custody-policy.md): an account whose `solDebitApiKeys` (network
 * currency) or `tokenDebitApiKeys` (tokens) is not empty may be debited only by a request made with
 * one of those API keys (ids as the admin CLI prints them). Checked at lookup, before anything is
 * built or held, for every debit a write makes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../db/entities';
import { forbidden } from '../domain/errors';
import type { Debit, WriteRequest } from '../domain/write';

/** Throws FORBIDDEN naming the debited account's field when the request's API key may not debit it. */
export async function enforceDebitApiKeys(em: EntityManager, request: WriteRequest, debits: Debit[]): Promise<void> {
  const ids = [...new Set(debits.flatMap((d) => (d.accountId ? [d.accountId] : [])))];
  if (ids.length === 0) return;
  const accounts = await em.find(Account, { id: { $in: ids } }, { fields: ['id', 'address', 'solDebitApiKeys', 'tokenDebitApiKeys'] });
  for (const debit of debits) {
    const account = accounts.find((a) => a.id === debit.accountId);
    if (!account) continue;
    const token = debit.asset !== 'NETWORK_CURRENCY';
    const keys = token ? account.tokenDebitApiKeys : account.solDebitApiKeys;
    if (keys.length && !keys.includes(request.apiKeyId)) {
      const list = token ? 'tokenDebitApiKeys' : 'solDebitApiKeys (networkCurrencyDebitApiKeys)';
      throw forbidden(
        `account ${account.address} may be debited (${token ? 'tokens' : 'network currency'}) only with the API keys in its ${list}`,
        debit.field ?? 'itemData',
      );
    }
  }
}
