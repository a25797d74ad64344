/** Onchain data source records: the one a lookup names, and the newest price of an instrument. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OracleDataSource } from '../entities';
import { notFound, validationError } from '../../domain/errors';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { TenantScope } from './accounts.repository';

/** The organization's data source a lookup names by onchainId and/or offchainId; NOT_FOUND otherwise. */
export async function findDataSourceByLookup(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<OracleDataSource> {
  if (!lookup.onchainId && !lookup.offchainId) throw validationError(field, `${field} needs onchainId or offchainId`);
  const where: Record<string, unknown> = { organizationId: scope.organizationId, cluster: scope.cluster };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.address = lookup.onchainId;
  const source = await em.findOne(OracleDataSource, where);
  if (!source) throw notFound(field, `${field}: no such onchain data source`);
  return source;
}

/** The newest PRICE data source of an instrument in this organization that holds a value. */
export function newestPriceSource(em: EntityManager, organizationId: string, financialInstrumentId: string): Promise<OracleDataSource | null> {
  return em.findOne(
    OracleDataSource,
    { organizationId, financialInstrumentId, kind: 'PRICE', latestValue: { $ne: null } },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
}
