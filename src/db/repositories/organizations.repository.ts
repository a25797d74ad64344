/** Organizations (the tenants) and their API keys: the records behind the admin CLI and the launcher's dev key. */
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { approversNamed, type DebitLimitLists } from '../../domain/debit-limits';
import { ApiKey, Organization } from '../entities';

/** The organization with this external id, or null. */
export function findOrganization(em: EntityManager, externalId: string): Promise<Organization | null> {
  return em.findOne(Organization, { externalId });
}

export interface NewOrganization {
  externalId: string;
  name: string | null;
  /** Sealed by custody: the database never holds it in clear. */
  webhookSigningSecret: string;
}

/** Inserts an organization unless its external id is taken (a concurrent create wins), then returns the stored one. Idempotent by external id. */
export async function insertOrganization(em: EntityManager, row: NewOrganization): Promise<Organization> {
  await em
    .getConnection()
    .execute(
      `insert into organization (id, external_id, name, webhook_signing_secret, created_at) values (?, ?, ?, ?, now()) on conflict (external_id) do nothing`,
      [randomUUID(), row.externalId, row.name, row.webhookSigningSecret],
    );
  return em.findOneOrFail(Organization, { externalId: row.externalId }, { refresh: true });
}

export interface NewApiKey {
  organizationId: string;
  /** The key's SHA-256 (custody's hashApiKey): the key itself is never stored. */
  keyHash: string;
  keyPrefix: string;
  /** Qualified roles (`<platform>_<ROLE>`). */
  roles: string[];
}

/** Stores a new, unrevoked API key of an organization (flushing the EntityManager); not idempotent: each call is a new key. */
export async function insertApiKey(em: EntityManager, row: NewApiKey): Promise<ApiKey> {
  const record = em.create(ApiKey, { id: randomUUID(), ...row, createdAt: new Date(), revokedAt: null });
  await em.flush();
  return record;
}

/** Where API key changes are announced (NOTIFY, delivered on commit): the API drops its cached callers. */
export const API_KEY_CHANNEL = 'ledger_api_keys';

/** Announces that the key with this hash changed (created, revoked), inside the caller's transaction. */
export async function announceApiKeyChange(em: EntityManager, keyHash: string): Promise<void> {
  await em.getConnection().execute('select pg_notify(?, ?)', [API_KEY_CHANNEL, keyHash]);
}

/** Every organization, oldest first. */
export function listOrganizations(em: EntityManager): Promise<Organization[]> {
  return em.find(Organization, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** API keys, oldest first: of one organization or all; revoked ones only when asked. */
export function listApiKeys(em: EntityManager, filter: { organizationId?: string; includeRevoked: boolean }): Promise<ApiKey[]> {
  return em.find(
    ApiKey,
    { ...(filter.organizationId ? { organizationId: filter.organizationId } : {}), ...(filter.includeRevoked ? {} : { revokedAt: null }) },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

/** Revokes a key (idempotent: a revoked key keeps its first revocation time) and announces it. Null when no such key. */
export async function revokeApiKey(em: EntityManager, id: string, at: Date): Promise<ApiKey | null> {
  return em.transactional(async (tx) => {
    const key = await tx.findOne(ApiKey, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!key) return null;
    key.revokedAt ??= at;
    await tx.flush();
    await announceApiKeyChange(tx, key.keyHash);
    return key;
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Which of the approvers the limits name (`approversForOverride`) are unrevoked API keys of the organization that may approve: role APPROVE or ADMIN
 * (ids that are not UUIDs are none). Roles are stored qualified (`<platform>_<ROLE>`) with the one
 * platform name of the installation, so the role's own name is the part after the last `_`.
 */
export async function usableApprovers(em: EntityManager, organizationId: string, limits: DebitLimitLists): Promise<Set<string>> {
  const candidates = [
    ...new Set(
      approversNamed(limits)
        .map((a) => a.id)
        .filter((id) => UUID.test(id)),
    ),
  ];
  if (!candidates.length) return new Set();
  const keys = await em.find(ApiKey, { id: { $in: candidates }, organizationId, revokedAt: null }, { fields: ['id', 'roles'] });
  const mayApprove = (roles: string[]) => roles.some((role) => role.endsWith('_APPROVE') || role.endsWith('_ADMIN'));
  return new Set(keys.filter((key) => mayApprove(key.roles)).map((key) => key.id));
}
