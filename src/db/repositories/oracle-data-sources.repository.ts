/** Onchain data source records: the one a lookup names, and the newest price of an instrument. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OracleDataSource } from '../entities';
import { findTenantRecordByLookup } from './tenant-records.repository';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { TenantScope } from './accounts.repository';

/** The organization's data source a lookup names by onchainId and/or offchainId; NOT_FOUND otherwise. */
export function findDataSourceByLookup(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<OracleDataSource> {
  return findTenantRecordByLookup(em, OracleDataSource, 'onchain data source', scope, lookup, field);
}

/** The newest PRICE data source of an instrument in this organization that holds a value. */
export function newestPriceSource(em: EntityManager, organizationId: string, financialInstrumentId: string): Promise<OracleDataSource | null> {
  return em.findOne(
    OracleDataSource,
    { organizationId, financialInstrumentId, kind: 'PRICE', latestValue: { $ne: null } },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
}
