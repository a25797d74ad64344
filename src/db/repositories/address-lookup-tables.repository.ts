/** Address lookup table records: the one a lookup names, and an organization's tables usable for compression. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AddressLookupTable } from '../entities';
import { notFound, validationError } from '../../domain/errors';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { TenantScope } from './accounts.repository';

/** The organization's table a lookup names by onchainId and/or offchainId; NOT_FOUND otherwise. */
export async function findTableByLookup(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<AddressLookupTable> {
  if (!lookup.onchainId && !lookup.offchainId) throw validationError(field, `${field} needs onchainId or offchainId`);
  const where: Record<string, unknown> = { organizationId: scope.organizationId, cluster: scope.cluster };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.address = lookup.onchainId;
  const table = await em.findOne(AddressLookupTable, where);
  if (!table) throw notFound(field, `${field}: no such address lookup table`);
  return table;
}

/** Tables that may compress this organization's transactions: not deactivated, not closed, on the cluster; oldest first so the choice is stable. */
export function activeTables(em: EntityManager, scope: TenantScope): Promise<AddressLookupTable[]> {
  return em.find(
    AddressLookupTable,
    { organizationId: scope.organizationId, cluster: scope.cluster, deactivated: false, closed: false },
    { orderBy: { createdAt: 'asc', id: 'asc' }, limit: 20 },
  );
}
