/**
 * KEK rotation: re-seals under the new current KEK every secret the service keeps sealed: DATABASE
 * keys, the SECRETS keystore, every backend player's threshold-key shares, each organization's
 * webhook signing secret and the webhook credentials inside account records. `sealer` must hold the
 * new KEK as current and the old ones as previous, so values not yet re-wrapped stay readable while
 * it runs. Each value is replaced on its own (compare-and-set rows, atomically replaced files), so a
 * rotation stopped anywhere leaves everything readable with old and new KEK, and is simply run again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { replaceSealedSecret } from '../db/repositories/custody-keys.repository';
import { accountsWithWebhooks, replaceAccountWebhooks, type AccountWebhooks } from '../db/repositories/account-webhooks.repository';
import { custodyKeyAad } from './key-store';
import type { Sealer } from './sealing';
import type { SecretStore } from './secret-store';
import type { ShareStore } from './threshold/share-store';
import { mapWebhookSecrets, webhookKinds } from './webhook-secrets';

export interface KekRotation {
  keyId: string;
  databaseKeys: number;
  secretsKeys: number;
  /** Threshold-key share files re-wrapped, over all backend players. */
  thresholdShares: number;
  webhookSigningSecrets: number;
  /** Sealed webhook credential values (API key values, OAuth2 client secrets and passwords) re-wrapped in account records. */
  webhookCredentials: number;
}

export interface SealedStores {
  secrets: SecretStore;
  /** Every backend player's share store. */
  shares: ShareStore[];
}

export async function rotateKek(em: EntityManager, sealer: Sealer, stores: SealedStores): Promise<KekRotation> {
  const stale = (sealed: string) => sealer.isSealed(sealed) && sealer.keyIdOf(sealed) !== sealer.currentKeyId;
  const connection = em.getConnection();

  let databaseKeys = 0;
  const keys = await connection.execute<{ address: string; sealed_secret: string }[]>(
    `select address, sealed_secret from custody_key where sealed_secret is not null`,
  );
  for (const row of keys) {
    if (!stale(row.sealed_secret)) continue;
    await replaceSealedSecret(em, row.address, row.sealed_secret, sealer.rewrap(row.sealed_secret, custodyKeyAad(row.address)));
    databaseKeys++;
  }

  const secretsKeys = await stores.secrets.rewrapAll(sealer);
  let thresholdShares = 0;
  for (const store of stores.shares) thresholdShares += store.rewrapAll(sealer);

  let webhookSigningSecrets = 0;
  const organizations = await connection.execute<{ id: string; webhook_signing_secret: string }[]>(`select id, webhook_signing_secret from organization`);
  for (const row of organizations) {
    if (!stale(row.webhook_signing_secret)) continue;
    await connection.execute(`update organization set webhook_signing_secret = ? where id = ? and webhook_signing_secret = ?`, [
      sealer.rewrap(row.webhook_signing_secret),
      row.id,
      row.webhook_signing_secret,
    ]);
    webhookSigningSecrets++;
  }

  return {
    keyId: sealer.currentKeyId,
    databaseKeys,
    secretsKeys,
    thresholdShares,
    webhookSigningSecrets,
    webhookCredentials: await rewrapAccountWebhooks(em, sealer, stale),
  };
}

/** Re-wraps the sealed credentials of every account's webhooks; an account changed meanwhile by Update Account is read again. */
async function rewrapAccountWebhooks(em: EntityManager, sealer: Sealer, stale: (sealed: string) => boolean): Promise<number> {
  let count = 0;
  let pending = await accountsWithWebhooks(em);
  for (let round = 0; pending.length > 0; round++) {
    if (round === 5) throw new Error(`account webhooks kept changing during the rotation (${pending.length} accounts): run it again`);
    const changed = new Set<string>();
    for (const { id, ...before } of pending) {
      let rewrapped = 0;
      const after = { ...before } as AccountWebhooks;
      for (const kind of webhookKinds) {
        after[kind] = before[kind].map((hook) => mapWebhookSecrets(hook, (value) => (stale(value) ? (rewrapped++, sealer.rewrap(value)) : value)));
      }
      if (rewrapped === 0) continue;
      if (await replaceAccountWebhooks(em, id, before, after)) count += rewrapped;
      else changed.add(id);
    }
    pending = changed.size ? (await accountsWithWebhooks(em)).filter((a) => changed.has(a.id)) : [];
  }
  return count;
}
