/** What Create and Extend Address Lookup Table share: component lookups resolved to addresses, and the table record's addresses after a landed transaction. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AddressLookupTable, type LedgerTransaction } from '../../../db/entities';
import { findAccountByLookup, offPlatformAddress, type TenantScope } from '../../../db/repositories/accounts.repository';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import type { AccountLookupInput } from '../../../domain/inputs/common.inputs';
import { checkDistinct } from '../../../domain/operations/address-lookup-tables/address-lookup-table.rules';

export interface Component {
  address: string;
  /** The onboarded account's offchain id, null for an offPlatform address. */
  accountId: string | null;
}

/** Each lookup's address (an onboarded account, or an offPlatform onchainId), in order, each once. */
export async function resolveComponents(em: EntityManager, scope: TenantScope, lookups: readonly AccountLookupInput[], field: string): Promise<Component[]> {
  const components: Component[] = [];
  for (const [i, lookup] of lookups.entries()) {
    const at = `${field}.${i}`;
    if (lookup.offPlatform) components.push({ address: offPlatformAddress(lookup, at), accountId: null });
    else {
      const account = await findAccountByLookup(em, scope, lookup, at);
      components.push({ address: account.address, accountId: account.id });
    }
  }
  checkDistinct(
    components.map((c) => c.address),
    field,
  );
  return components;
}

/** Appends a landed transaction's addresses to the table record (once: a replayed record finds them there). */
export function appendComponents(table: AddressLookupTable, components: readonly Component[], tx: LedgerTransaction | null, at: Date): void {
  const added = components.filter((c) => !table.componentAddresses.includes(c.address));
  table.componentAddresses = [...table.componentAddresses, ...added.map((c) => c.address)];
  table.componentAccountIds = [...new Set([...table.componentAccountIds, ...added.flatMap((c) => (c.accountId ? [c.accountId] : []))])];
  table.lastTransactionId = tx?.id ?? table.lastTransactionId ?? null;
  table.lastTransactionAt = at;
  linkRecords(tx, [table.id], true);
}
