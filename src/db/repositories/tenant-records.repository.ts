/** The organization's own record of a kind that a lookup names by onchainId and/or offchainId (no offchainReferences, no other tenant's). */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import { notFound, validationError } from '../../domain/errors';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { TenantScope } from './accounts.repository';

/** Reads only; VALIDATION_ERROR when the lookup names neither id, NOT_FOUND ("no such <noun>") when no record of the tenant matches. */
export async function findTenantRecordByLookup<E extends { id: string; address: string; organizationId: string; cluster: string }>(
  em: EntityManager,
  entity: EntityName<E>,
  noun: string,
  scope: TenantScope,
  lookup: AccountLookupInput,
  field: string,
): Promise<E> {
  if (!lookup.onchainId && !lookup.offchainId) throw validationError(field, `${field} needs onchainId or offchainId`);
  const where: Record<string, unknown> = { organizationId: scope.organizationId, cluster: scope.cluster };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.address = lookup.onchainId;
  const record = await em.findOne(entity, where as FilterQuery<E>);
  if (!record) throw notFound(field, `${field}: no such ${noun}`);
  return record;
}
