/** The sealed private keys custody holds in the database (table `custody_key`); sealing and unsealing stay in src/custody. */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface NewCustodyKey {
  address: string;
  organizationId: string;
  location: 'DATABASE' | 'SECRETS';
  /** The key, sealed by custody: this module never sees it in clear. Null for SECRETS (the key is in the secret store). */
  sealedSecret: string | null;
  /** The request that generated it (a retry finds it again); null for an imported key. */
  requestKey: string | null;
}

/** Records a held key (its secret sealed for DATABASE); ON CONFLICT DO NOTHING keeps both retries and concurrent imports idempotent. */
export async function insertCustodyKey(em: EntityManager, key: NewCustodyKey): Promise<void> {
  await em.getConnection().execute(
    `insert into custody_key (address, organization_id, location, sealed_secret, request_key, created_at)
     values (?, ?, ?, ?, ?, now()) on conflict do nothing`,
    [key.address, key.organizationId, key.location, key.sealedSecret, key.requestKey],
  );
}

/**
 * Records a generated key unless its request already stored one, in one statement; answers the
 * address the request's key has (this one, or the one stored before: a replay keeps its first key).
 * Null only when a concurrent attempt of the same request inserted at the same moment (its row is
 * not in this statement's snapshot): the caller reads it then.
 */
export async function insertGeneratedCustodyKey(em: EntityManager, key: NewCustodyKey & { requestKey: string }): Promise<string | null> {
  const [row] = await em.getConnection().execute<{ address: string }[]>(
    `with inserted as (
       insert into custody_key (address, organization_id, location, sealed_secret, request_key, created_at)
       values (?, ?, ?, ?, ?, now()) on conflict do nothing returning address)
     select address from inserted union all select address from custody_key where request_key = ? limit 1`,
    [key.address, key.organizationId, key.location, key.sealedSecret, key.requestKey, key.requestKey],
  );
  return row?.address ?? null;
}

/** Replaces a DATABASE key's sealed secret (KEK rotation); the old value guards against a concurrent change. */
export async function replaceSealedSecret(em: EntityManager, address: string, oldSealed: string, newSealed: string): Promise<void> {
  await em.getConnection().execute(`update custody_key set sealed_secret = ? where address = ? and sealed_secret = ?`, [newSealed, address, oldSealed]);
}
