/** Address lookup table records: the one a lookup names, and an organization's tables usable for compression. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AddressLookupTable } from '../entities';
import { findTenantRecordByLookup } from './tenant-records.repository';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { TenantScope } from './accounts.repository';

/** The organization's table a lookup names by onchainId and/or offchainId; NOT_FOUND otherwise. */
export function findTableByLookup(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<AddressLookupTable> {
  return findTenantRecordByLookup(em, AddressLookupTable, 'address lookup table', scope, lookup, field);
}

/** Tables that may compress this organization's transactions: not deactivated, not closed, on the cluster; oldest first so the choice is stable. */
export function activeTables(em: EntityManager, scope: TenantScope): Promise<AddressLookupTable[]> {
  return em.find(
    AddressLookupTable,
    { organizationId: scope.organizationId, cluster: scope.cluster, deactivated: false, closed: false },
    { orderBy: { createdAt: 'asc', id: 'asc' }, limit: 20 },
  );
}
