/**
 * Envelope sealing with AES-256-GCM under a keyring of key-encryption keys (KEKs): one current KEK
 * seals, every KEK in the ring unseals, so old and new are both readable while a rotation re-wraps.
 * Used for DATABASE-held private keys and for secrets that must not appear in clear in
 * workflow histories or the database (webhook credentials, signing secrets).
 *
 * Format `v2:<kid>:<iv>:<ciphertext+tag>` (base64url). The key id (kid) names the KEK that sealed it,
 * so unsealing needs no trial decryption; the optional additional data (AAD) binds a value to its
 * record and field (e.g. `custody_key:<address>:sealed_secret`), so a sealed value copied onto
 * another record does not unseal. `v1.<iv>.<body>` (no kid, no AAD) stays readable until re-wrapped.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface Sealer {
  seal(plain: Uint8Array | string, aad?: string): string;
  unseal(sealed: string, aad?: string): Buffer;
  isSealed(value: string): boolean;
  /** The key id of the current KEK (the one seal uses). */
  readonly currentKeyId: string;
  /** The key id a sealed value names ('v1' for the legacy format, which names none). */
  keyIdOf(sealed: string): string;
  /** The same secret sealed under the current KEK with the given AAD (a v1 value read without AAD). */
  rewrap(sealed: string, aad?: string): string;
}

/** A KEK's id: a short fingerprint, so no id has to be configured next to each key. Pure. */
export function keyIdOf(kek: Buffer): string {
  return createHash('sha256').update('ledger-kek-id').update(kek).digest('base64url').slice(0, 12);
}

function decodeKek(base64: string): Buffer {
  const kek = Buffer.from(base64, 'base64');
  if (kek.length !== 32) throw new Error('a key-encryption key must be 32 bytes, base64-encoded');
  return kek;
}

function open(kek: Buffer, iv: Buffer, body: Buffer, aad: string | undefined): Buffer {
  if (body.length < 16) throw new Error('sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', kek, iv, { authTagLength: 16 });
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - 16));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
  } catch {
    // Never echo the value: a wrong KEK and a value moved to another record look the same.
    throw new Error('sealed value does not open with this key and record');
  }
}

/** `current` seals; `previous` KEKs (base64) only unseal, for values not yet re-wrapped. */
export function createSealer(currentBase64: string, previousBase64: string[] = []): Sealer {
  const current = decodeKek(currentBase64);
  const currentKeyId = keyIdOf(current);
  const ring = new Map<string, Buffer>([[currentKeyId, current]]);
  for (const b of previousBase64) {
    const kek = decodeKek(b);
    ring.set(keyIdOf(kek), kek);
  }
  const isV1 = (v: string) => v.startsWith('v1.') && v.split('.').length === 3;
  const isV2 = (v: string) => v.startsWith('v2:') && v.split(':').length === 4;

  const sealer: Sealer = {
    currentKeyId,
    seal(plain, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain), cipher.final(), cipher.getAuthTag()]);
      return `v2:${currentKeyId}:${iv.toString('base64url')}:${body.toString('base64url')}`;
    },
    unseal(sealed, aad) {
      if (isV2(sealed)) {
        const [, kid, ivText, bodyText] = sealed.split(':');
        const kek = ring.get(kid!);
        if (!kek) throw new Error(`sealed with key-encryption key ${kid}, which is not in the keyring`);
        return open(kek, Buffer.from(ivText!, 'base64url'), Buffer.from(bodyText!, 'base64url'), aad);
      }
      if (isV1(sealed)) {
        // v1 carries no key id and was sealed without AAD: try each KEK of the ring.
        const [, ivText, bodyText] = sealed.split('.');
        for (const kek of ring.values()) {
          try {
            return open(kek, Buffer.from(ivText!, 'base64url'), Buffer.from(bodyText!, 'base64url'), undefined);
          } catch {
            /* the next KEK */
          }
        }
        throw new Error('sealed value does not open with any key-encryption key in the keyring');
      }
      throw new Error('not a sealed value');
    },
    isSealed: (value) => isV1(value) || isV2(value),
    keyIdOf: (sealed) => (isV2(sealed) ? sealed.split(':')[1]! : 'v1'),
    rewrap(sealed, aad) {
      const plain = sealer.unseal(sealed, isV1(sealed) ? undefined : aad);
      try {
        return sealer.seal(plain, aad);
      } finally {
        plain.fill(0);
      }
    },
  };
  return sealer;
}

export function generateKeyEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}
