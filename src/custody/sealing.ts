/**
 * Envelope sealing with AES-256-GCM under the key-encryption key (KEK) from configuration.
 * Used for DATABASE-held private keys and for secrets that must not appear in clear in
 * workflow histories or the database (webhook credentials, signing secrets).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface Sealer {
  seal(plain: Uint8Array | string): string;
  unseal(sealed: string): Buffer;
  isSealed(value: string): boolean;
}

export function createSealer(keyEncryptionKeyBase64: string): Sealer {
  const kek = Buffer.from(keyEncryptionKeyBase64, 'base64');
  if (kek.length !== 32) throw new Error('KEY_ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', kek, iv);
      const body = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    unseal(sealed) {
      const [version, ivText, bodyText] = sealed.split('.');
      if (version !== VERSION || !ivText || !bodyText) throw new Error('not a sealed value');
      const body = Buffer.from(bodyText, 'base64url');
      if (body.length < 16) throw new Error('sealed value is truncated');
      const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(ivText, 'base64url'), { authTagLength: 16 });
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
    },
    isSealed(value) {
      return value.startsWith(`${VERSION}.`) && value.split('.').length === 3;
    },
  };
}

export function generateKeyEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}
