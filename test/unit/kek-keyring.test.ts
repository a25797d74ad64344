import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCipheriv, randomBytes } from 'node:crypto';
import { createSealer, generateKeyEncryptionKey } from '../../src/custody/sealing';
import { createKeystoreDirectory } from '../../src/custody/secret-store';

const ADDRESS = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

/** A value in the format sealed before key ids and AAD (v1). */
function sealV1(kekBase64: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(kekBase64, 'base64'), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

describe('sealing', () => {
  const kek = generateKeyEncryptionKey();

  it('names the KEK that sealed a value and opens it with the same record', () => {
    const sealer = createSealer(kek);
    const sealed = sealer.seal('seed', 'custody_key:A:sealed_secret');
    expect(sealed.startsWith(`v2:${sealer.currentKeyId}:`)).toBe(true);
    expect(sealer.keyIdOf(sealed)).toBe(sealer.currentKeyId);
    expect(sealer.isSealed(sealed)).toBe(true);
    expect(sealer.unseal(sealed, 'custody_key:A:sealed_secret').toString()).toBe('seed');
  });

  it('refuses a sealed value moved to another record or field (AAD mismatch), without echoing it', () => {
    const sealer = createSealer(kek);
    const sealed = sealer.seal('seed', 'custody_key:A:sealed_secret');
    expect(() => sealer.unseal(sealed, 'custody_key:B:sealed_secret')).toThrow('does not open');
    expect(() => sealer.unseal(sealed, 'custody_key:A:other_field')).toThrow('does not open');
    expect(() => sealer.unseal(sealed)).toThrow('does not open');
  });

  it('refuses a value sealed by a KEK that is not in the keyring, naming its key id', () => {
    const other = createSealer(generateKeyEncryptionKey());
    const sealed = other.seal('seed');
    expect(() => createSealer(kek).unseal(sealed)).toThrow(`key-encryption key ${other.currentKeyId}, which is not in the keyring`);
  });

  it('reads legacy v1 values with any KEK of the ring', () => {
    const legacy = sealV1(kek, 'old secret');
    const next = generateKeyEncryptionKey();
    expect(createSealer(kek).unseal(legacy).toString()).toBe('old secret');
    expect(createSealer(next, [kek]).unseal(legacy, 'ignored: v1 has no AAD').toString()).toBe('old secret');
    expect(() => createSealer(next).unseal(legacy)).toThrow('any key-encryption key');
  });

  it('rotation re-wraps under the new KEK, readable by old and new during the rotation, and only by the new after', () => {
    const old = createSealer(kek);
    const sealed = old.seal('seed', 'r:f');
    const newKek = generateKeyEncryptionKey();
    const rotating = createSealer(newKek, [kek]);
    expect(rotating.unseal(sealed, 'r:f').toString()).toBe('seed');
    const rewrapped = rotating.rewrap(sealed, 'r:f');
    expect(rotating.keyIdOf(rewrapped)).toBe(rotating.currentKeyId);
    expect(rotating.keyIdOf(rewrapped)).not.toBe(old.currentKeyId);
    expect(createSealer(newKek).unseal(rewrapped, 'r:f').toString()).toBe('seed');
    expect(() => old.unseal(rewrapped, 'r:f')).toThrow('not in the keyring');
    // A legacy value gains its AAD when re-wrapped.
    const fromV1 = rotating.rewrap(sealV1(kek, 'legacy'), 'r:f');
    expect(createSealer(newKek).unseal(fromV1, 'r:f').toString()).toBe('legacy');
    expect(() => createSealer(newKek).unseal(fromV1, 'r:g')).toThrow('does not open');
  });

  it('refuses a KEK that is not 32 bytes', () => {
    expect(() => createSealer(Buffer.alloc(16).toString('base64'))).toThrow('32 bytes');
  });
});

describe('keystore directory (SECRETS)', () => {
  it('keeps one sealed file per key, bound to its address, and re-wraps every file on rotation', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'keystore-'));
    const kek = generateKeyEncryptionKey();
    const seed = randomBytes(32);
    const store = createKeystoreDirectory(directory, createSealer(kek));
    await store.put(ADDRESS, seed);
    const file = path.join(directory, `${ADDRESS}.key`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).not.toContain(seed.toString('base64'));
    expect(Buffer.from((await store.get(ADDRESS))!)).toEqual(seed);

    // A file copied under another address does not open.
    const other = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
    fs.copyFileSync(file, path.join(directory, `${other}.key`));
    await expect(store.get(other)).rejects.toThrow('does not open');
    fs.rmSync(path.join(directory, `${other}.key`));

    const newKek = generateKeyEncryptionKey();
    const rotating = createSealer(newKek, [kek]);
    expect(await createKeystoreDirectory(directory, rotating).rewrapAll(rotating)).toBe(1);
    expect(await createKeystoreDirectory(directory, rotating).rewrapAll(rotating)).toBe(0);
    expect(Buffer.from((await createKeystoreDirectory(directory, createSealer(newKek)).get(ADDRESS))!)).toEqual(seed);
    await expect(store.get(ADDRESS)).rejects.toThrow('not in the keyring');
    expect(fs.readdirSync(directory)).toEqual([`${ADDRESS}.key`]);
  });

  it('refuses a name that is not an address (no path outside the directory)', async () => {
    const store = createKeystoreDirectory(fs.mkdtempSync(path.join(os.tmpdir(), 'keystore-')), createSealer(generateKeyEncryptionKey()));
    await expect(store.get('../../etc/passwd')).rejects.toThrow('not an address');
  });
});
