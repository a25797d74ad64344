/**
 * Token debit limits as an account keeps them: a `mintAuthority` lookup is resolved to the
 * authority's address when the limit is set (Create / Update Account), so the limit check compares
 * that address with the instrument's mint authority. An address never changes, so the match holds
 * for the life of the limit.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findAccountByLookup, offPlatformAddress, type TenantScope } from '../../../db/repositories/accounts.repository';
import type { DebitLimit } from '../../../domain/debit-limits';
import type { TokenDebitLimitInput } from '../../../domain/operations/accounts/account.inputs';

/** undefined: the request sets no token limits. A lookup naming no account is NOT_FOUND naming the entry's field. */
export async function storedTokenDebitLimits(
  em: EntityManager,
  scope: TenantScope,
  limits: TokenDebitLimitInput[] | undefined,
  f = 'itemData.tokenDebitLimits',
): Promise<DebitLimit[] | undefined> {
  if (!limits) return undefined;
  const stored: DebitLimit[] = [];
  for (const [i, { mintAuthority, ...limit }] of limits.entries()) {
    const field = `${f}.${i}.mintAuthority`;
    if (typeof mintAuthority !== 'object') {
      stored.push({ ...limit, ...(mintAuthority ? { mintAuthority } : {}) });
      continue;
    }
    const address = mintAuthority.offPlatform ? offPlatformAddress(mintAuthority, field) : (await findAccountByLookup(em, scope, mintAuthority, field)).address;
    stored.push({ ...limit, mintAuthority: address });
  }
  return stored;
}
