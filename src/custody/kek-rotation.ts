/**
 * KEK rotation: re-seals every held key (DATABASE rows and the SECRETS keystore) and each
 * organization's webhook signing secret under the new current KEK. `sealer` must hold the new KEK as
 * current and the old ones as previous, so values not yet re-wrapped stay readable while it runs.
 * Each value is re-wrapped on its own (compare-and-set), so an interrupted rotation is simply run again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { replaceSealedSecret } from '../db/repositories/custody-keys.repository';
import { custodyKeyAad } from './key-store';
import type { Sealer } from './sealing';
import type { SecretStore } from './secret-store';

export interface KekRotation {
  keyId: string;
  databaseKeys: number;
  secretsKeys: number;
  webhookSigningSecrets: number;
}

export async function rotateKek(em: EntityManager, sealer: Sealer, secrets: SecretStore): Promise<KekRotation> {
  const connection = em.getConnection();
  let databaseKeys = 0;
  const keys = await connection.execute<{ address: string; sealed_secret: string }[]>(`select address, sealed_secret from custody_key where sealed_secret is not null`);
  for (const row of keys) {
    if (sealer.keyIdOf(row.sealed_secret) === sealer.currentKeyId) continue;
    await replaceSealedSecret(em, row.address, row.sealed_secret, sealer.rewrap(row.sealed_secret, custodyKeyAad(row.address)));
    databaseKeys++;
  }
  let webhookSigningSecrets = 0;
  const organizations = await connection.execute<{ id: string; webhook_signing_secret: string }[]>(`select id, webhook_signing_secret from organization`);
  for (const row of organizations) {
    if (sealer.keyIdOf(row.webhook_signing_secret) === sealer.currentKeyId) continue;
    await connection.execute(`update organization set webhook_signing_secret = ? where id = ? and webhook_signing_secret = ?`, [sealer.rewrap(row.webhook_signing_secret), row.id, row.webhook_signing_secret]);
    webhookSigningSecrets++;
  }
  return { keyId: sealer.currentKeyId, databaseKeys, secretsKeys: await secrets.rewrapAll(sealer), webhookSigningSecrets };
}
