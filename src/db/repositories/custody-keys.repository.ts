/** The sealed private keys custody holds in the database (table `custody_key`); sealing and unsealing stay in src/custody. */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface NewCustodyKey {
  address: string;
  organizationId: string;
  /** The key, sealed by custody: this module never sees it in clear. */
  sealedSecret: string;
  /** The request that generated it (a retry finds it again); null for an imported key. */
  requestKey: string | null;
}

/** Stores a DATABASE-held key; ON CONFLICT DO NOTHING keeps both retries and concurrent imports idempotent. */
export async function insertCustodyKey(em: EntityManager, key: NewCustodyKey): Promise<void> {
  await em.getConnection().execute(
    `insert into custody_key (address, organization_id, location, sealed_secret, request_key, created_at)
     values (?, ?, 'DATABASE', ?, ?, now()) on conflict do nothing`,
    [key.address, key.organizationId, key.sealedSecret, key.requestKey],
  );
}
