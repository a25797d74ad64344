/**
 * Instrument lookups (an account lookup naming the mint): by offchain id, mint address or AL ID, within
 * the tenant, or another tenant's instrument shared across tenants when the lookup names that tenant.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FinancialInstrument } from '../entities';
import { LedgerError, notFound, validationError } from '../../domain/errors';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import { findAccountByLookup, lookupOrganizationId, offPlatformAddress, type TenantScope } from './accounts.repository';

export async function findInstrumentByLookup(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<FinancialInstrument> {
  const organizationId = await lookupOrganizationId(em, scope, lookup, field);
  const where: Record<string, unknown> = { organizationId, cluster: scope.cluster };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.mintAddress = lookup.onchainId;
  if (lookup.offchainReferences?.alId) where.alId = lookup.offchainReferences.alId;
  if (Object.keys(where).length === 2) throw validationError(field, `${field} needs onchainId, offchainId or offchainReferences.alId`);
  const found = await em.findOne(FinancialInstrument, where);
  if (!found) throw notFound(field, `${field}: no such financial instrument`);
  // Another tenant's unshared instrument stays invisible: the same answer as no instrument at all.
  if (organizationId !== scope.organizationId && !found.sharedAcrossTenants) throw notFound(field, `${field}: no such financial instrument`);
  return found;
}

/** Authorities a request may name beside an instrument, checked against the instrument's own. */
export type NamedAuthority = 'mintAuthority' | 'freezeAuthority' | 'permanentDelegateAuthority';

const authorityWords: Record<NamedAuthority, string> = {
  mintAuthority: 'mint authority',
  freezeAuthority: 'freeze authority',
  permanentDelegateAuthority: 'permanent delegate',
};

/**
 * An authority named in a request (a position lookup's `mintAuthority`/`freezeAuthority`, a movement's
 * `permanentDelegateAuthority`, Inactivate Position's `freezeAuthority`) must be the instrument's own,
 * whether or not the operation signs with it: FREEZE_AUTHORITY_NOT_FOUND for the freeze authority,
 * VALIDATION_ERROR for the others, naming `field`. An offPlatform lookup is compared by address.
 */
export async function checkNamedAuthority(
  em: EntityManager,
  scope: TenantScope,
  instrument: FinancialInstrument,
  name: NamedAuthority,
  given: AccountLookupInput,
  field: string,
): Promise<void> {
  const code = name === 'freezeAuthority' ? 'FREEZE_AUTHORITY_NOT_FOUND' : 'VALIDATION_ERROR';
  const ref = instrument.authorities[name];
  const named = given.offPlatform ? offPlatformAddress(given, field) : (await findAccountByLookup(em, scope, given, field)).address;
  if (!ref) throw new LedgerError(code, `the instrument ${instrument.mintAddress} has no ${authorityWords[name]}; ${named} cannot be it`, field);
  if (named !== ref.address) throw new LedgerError(code, `${named} is not the instrument's ${authorityWords[name]}`, field);
}

/** The `mintAuthority` and `freezeAuthority` a position lookup names (spec 2.1) must be its instrument's own; see checkNamedAuthority. */
export async function checkPositionLookupAuthorities(
  em: EntityManager,
  scope: TenantScope,
  instrument: FinancialInstrument,
  lookup: { mintAuthority?: AccountLookupInput; freezeAuthority?: AccountLookupInput },
  field: string,
): Promise<void> {
  for (const name of ['mintAuthority', 'freezeAuthority'] as const) {
    const given = lookup[name];
    if (given) await checkNamedAuthority(em, scope, instrument, name, given, `${field}.${name}`);
  }
}
