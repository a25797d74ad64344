/** Organizations and API keys: the admin operations behind the CLI (and the launcher's dev key). */
import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, Organization } from '../db/entities';
import type { Sealer } from '../custody/sealing';
import { hashApiKey } from '../api/middleware';
import { qualifiedRole, type Role } from '../domain/roles';

/** Returns the organization with this external id, creating it when missing. Idempotent. */
export async function ensureOrganization(em: EntityManager, sealer: Sealer, externalId: string, name?: string): Promise<{ organization: Organization; created: boolean }> {
  const existing = await em.findOne(Organization, { externalId });
  if (existing) return { organization: existing, created: false };
  await em.getConnection().execute(
    `insert into organization (id, external_id, name, webhook_signing_secret, created_at) values (?, ?, ?, ?, now()) on conflict (external_id) do nothing`,
    [randomUUID(), externalId, name ?? null, sealer.seal(randomBytes(32).toString('base64url'))],
  );
  return { organization: await em.findOneOrFail(Organization, { externalId }, { refresh: true }), created: true };
}

/** Makes an API key: an opaque random secret, shown once and stored only as its SHA-256. */
export async function createApiKey(em: EntityManager, organization: Organization, roles: Role[], platformName: string): Promise<{ apiKey: string; id: string; roles: string[] }> {
  const apiKey = `lk_${randomBytes(32).toString('base64url')}`;
  const record = em.create(ApiKey, {
    id: randomUUID(),
    organizationId: organization.id,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKey.slice(0, 10),
    roles: roles.map((r) => qualifiedRole(platformName, r)),
    createdAt: new Date(),
    revokedAt: null,
  });
  await em.flush();
  return { apiKey, id: record.id, roles: record.roles };
}
