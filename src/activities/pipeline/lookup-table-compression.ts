/**
 * V0 message compression through the organization's address lookup tables: the addresses of its
 * active tables on the cluster that a transaction built now may load (read at `confirmed`, and
 * without an extension of a slot the transaction could still land in, which the network refuses).
 * Signers are never compressed (kit keeps them static, and programs it invokes too); the tables a
 * write changes are left out. Each table's list is a prefix of the table: an index is its place.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AddressesByLookupTableAddress, Address, Instruction } from '@solana/kit';
import { scopeOf } from '../../db/repositories/accounts.repository';
import { activeTables } from '../../db/repositories/address-lookup-tables.repository';
import { usableAddresses } from '../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import type { WriteRequest } from '../../domain/write';
import type { SvmNetwork } from '../../network/svm-network';
import { readLookupTable, readSlotHashes } from '../../network/lookup-tables';

export async function lookupTablesFor(
  em: EntityManager,
  request: WriteRequest,
  network: SvmNetwork,
  instructions: readonly Instruction[],
): Promise<AddressesByLookupTableAddress> {
  const tables = await activeTables(em, scopeOf(request));
  if (tables.length === 0) return {};
  const touched = new Set<string>(instructions.flatMap((i) => (i.accounts ?? []).map((a) => a.address)));
  // A transaction lands after the newest slot SlotHashes lists.
  const newest = (await readSlotHashes(network)).reduce((max, s) => (s > max ? s : max), 0n);
  const found: AddressesByLookupTableAddress = {};
  for (const table of tables) {
    if (touched.has(table.address)) continue;
    const state = await readLookupTable(network, table.address).catch(() => null);
    if (!state) continue;
    const usable = usableAddresses(state, newest + 1n);
    if (usable.length) found[table.address as Address] = usable as Address[];
  }
  return found;
}
