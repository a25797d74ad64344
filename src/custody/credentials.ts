/**
 * The credentials the service issues: each organization's webhook signing secret (stored sealed) and
 * API keys (opaque random secrets, shown once and stored only as their SHA-256). Generation and
 * hashing live here; the records are written by src/db/repositories/organizations.repository.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Organization } from '../db/entities';
import { announceApiKeyChange, findOrganization, insertApiKey, insertOrganization } from '../db/repositories/organizations.repository';
import { qualifiedRole, type Role } from '../domain/roles';
import type { Sealer } from './sealing';

/** The stored form of an API key (SHA-256, hex): what is kept and what authentication looks up. Pure. */
export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** Returns the organization with this external id, creating it (with a new sealed webhook signing secret) when missing. Idempotent. */
export async function ensureOrganization(
  em: EntityManager,
  sealer: Sealer,
  externalId: string,
  name?: string,
): Promise<{ organization: Organization; created: boolean }> {
  const existing = await findOrganization(em, externalId);
  if (existing) return { organization: existing, created: false };
  const organization = await insertOrganization(em, {
    externalId,
    name: name ?? null,
    webhookSigningSecret: sealer.seal(randomBytes(32).toString('base64url')),
  });
  return { organization, created: true };
}

/** Makes an API key: an opaque random secret, shown once and stored only as its SHA-256. Not idempotent: each call is a new key. */
export async function createApiKey(
  em: EntityManager,
  organization: Organization,
  roles: Role[],
  platformName: string,
): Promise<{ apiKey: string; id: string; roles: string[] }> {
  const apiKey = `lk_${randomBytes(32).toString('base64url')}`;
  const keyHash = hashApiKey(apiKey);
  const record = await insertApiKey(em, {
    organizationId: organization.id,
    keyHash,
    keyPrefix: apiKey.slice(0, 10),
    roles: roles.map((r) => qualifiedRole(platformName, r)),
  });
  // An API that refused this key a moment ago (cached as unknown) forgets that.
  await announceApiKeyChange(em, keyHash);
  return { apiKey, id: record.id, roles: record.roles };
}
