/** Durable nonce account records (spec 2.8) as the API shows them. */
import type { Account, DurableNonceAccount } from '../../db/entities';
import type { DurableNonceAccountBody } from '../../domain/responses/durable-nonce.responses';
import { presentAccount } from './account.presenter';

/** `accounts`: the nonce account's and the authority's records by offchain id; `nonceHash`: the value to show. */
export function presentDurableNonceAccount(row: DurableNonceAccount, accounts: Map<string, Account>, nonceHash: string | null): DurableNonceAccountBody {
  const authority = row.authorityAccountId ? accounts.get(row.authorityAccountId) : undefined;
  return {
    // The nonce account is always the record's organization's own.
    nonceAccount: presentAccount(accounts.get(row.id)!, 'detailed', row.organizationId),
    nonceAuthority: {
      onchain: { id: row.authorityAddress },
      offchain: { id: row.authorityAccountId ?? null },
      managed: authority?.managed ?? false,
      tenantOrganizationId: authority?.organizationId ?? null,
    },
    nonceHash,
    inUse: row.inUseByTransactionId && row.inUseAt ? { transactionOffchainId: row.inUseByTransactionId, transactionAt: row.inUseAt.toISOString() } : null,
  };
}
