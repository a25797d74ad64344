/** Instrument lookups (an account lookup naming the mint): by offchain id, mint address or AL ID, within the tenant. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FinancialInstrument } from '../entities';
import { notFound, validationError } from '../../domain/errors';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { TenantScope } from './accounts.repository';

export async function findInstrumentByLookup(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<FinancialInstrument> {
  const where: Record<string, unknown> = { organizationId: scope.organizationId, cluster: scope.cluster };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.mintAddress = lookup.onchainId;
  if (lookup.offchainReferences?.alId) where.alId = lookup.offchainReferences.alId;
  if (Object.keys(where).length === 2) throw validationError(field, `${field} needs onchainId, offchainId or offchainReferences.alId`);
  const found = await em.findOne(FinancialInstrument, where);
  if (!found) throw notFound(field, `${field}: no such financial instrument`);
  return found;
}
