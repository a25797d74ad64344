import { randomBytes } from 'node:crypto';
import { createSealer, generateKeyEncryptionKey } from '../../src/custody/sealing';

const kek = randomBytes(32).toString('base64');

/** Flips one bit of the byte at `index` of a base64url part. */
function flipByte(part: string, index: number): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[index] ^= 0x01;
  return bytes.toString('base64url');
}

describe('sealing secrets under the key-encryption key', () => {
  const sealer = createSealer(kek);

  it('gives back exactly the secret text that was sealed', () => {
    const sealed = sealer.seal('webhook-secret-ü');
    expect(sealer.unseal(sealed).toString('utf8')).toBe('webhook-secret-ü');
  });

  it('gives back exactly the key bytes that were sealed', () => {
    const key = randomBytes(64);
    expect(Buffer.compare(sealer.unseal(sealer.seal(key)), key)).toBe(0);
  });

  it('round-trips an empty secret', () => {
    expect(sealer.unseal(sealer.seal('')).length).toBe(0);
  });

  it('never shows the secret in the sealed text, and seals the same secret differently each time', () => {
    const a = sealer.seal('my-private-key-material');
    const b = sealer.seal('my-private-key-material');
    expect(a).not.toContain('my-private-key-material');
    expect(a).not.toContain(Buffer.from('my-private-key-material').toString('base64url'));
    expect(a).not.toBe(b);
  });

  it('can be opened by another sealer with the same key (after a restart)', () => {
    const sealed = sealer.seal('persisted');
    expect(createSealer(kek).unseal(sealed).toString()).toBe('persisted');
  });

  it('detects a tampered body', () => {
    const [version, kid, iv, body] = sealer.seal('pay 1 SOL').split(':');
    expect(() => sealer.unseal([version, kid, iv, flipByte(body, 0)].join(':'))).toThrow();
  });

  it('detects a tampered authentication tag', () => {
    const [version, kid, iv, body] = sealer.seal('pay 1 SOL').split(':');
    const last = Buffer.from(body, 'base64url').length - 1;
    expect(() => sealer.unseal([version, kid, iv, flipByte(body, last)].join(':'))).toThrow();
  });

  it('detects a tampered nonce', () => {
    const [version, kid, iv, body] = sealer.seal('pay 1 SOL').split(':');
    expect(() => sealer.unseal([version, kid, flipByte(iv, 3), body].join(':'))).toThrow();
  });

  it('refuses a truncated value', () => {
    const [version, kid, iv, body] = sealer.seal('pay 1 SOL').split(':');
    const bytes = Buffer.from(body, 'base64url');
    expect(() => sealer.unseal([version, kid, iv, bytes.subarray(0, bytes.length - 1).toString('base64url')].join(':'))).toThrow();
  });

  // Bug: unseal takes "the last 16 bytes" as the GCM tag without checking the body is long enough
  // and without pinning authTagLength (src/custody/sealing.ts:30-32), so a value whose tag was cut
  // to 4 bytes still opens (Node only warns, DEP0182): truncation goes undetected and forging a
  // short secret takes 2^32 tries instead of 2^128. Should pass { authTagLength: 16 } / refuse short bodies.
  it('refuses a value whose authentication tag was cut to 4 bytes', () => {
    const [version, kid, iv, body] = sealer.seal('abcdefgh').split(':');
    const bytes = Buffer.from(body, 'base64url');
    const shortTag = Buffer.concat([bytes.subarray(0, bytes.length - 16), bytes.subarray(bytes.length - 16, bytes.length - 12)]);
    expect(() => sealer.unseal([version, kid, iv, shortTag.toString('base64url')].join(':'))).toThrow();
  });

  it('refuses to open with a different key', () => {
    const sealed = sealer.seal('secret');
    const other = createSealer(generateKeyEncryptionKey());
    expect(() => other.unseal(sealed)).toThrow();
  });

  it('refuses text that is not a sealed value', () => {
    expect(() => sealer.unseal('plain text')).toThrow('not a sealed value');
    const [, kid, iv, body] = sealer.seal('x').split(':');
    expect(() => sealer.unseal(['v3', kid, iv, body].join(':'))).toThrow('not a sealed value');
  });
});

describe('isSealed', () => {
  const sealer = createSealer(kek);

  it('recognises a sealed value', () => {
    expect(sealer.isSealed(sealer.seal('x'))).toBe(true);
  });

  it.each([
    ['a base58 private key', '4NMwxzmYj2uvHuq8xoqhY8RXg63KSVJM1DXkpbmkUY7YQWuoyQgFnnzn6yo3CMnqZasnNPNuAT2TLwQsCaKkUddp'],
    ['plain text', 'hunter2'],
    ['a value with too few parts', 'v1.abc'],
    ['a value with too many parts', 'v1.a.b.c'],
    ['another version', 'v3:a:b:c'],
    ['a v2 value with too few parts', 'v2:a:b'],
  ])('does not take %s for a sealed value', (_what, value) => {
    expect(sealer.isSealed(value)).toBe(false);
  });
});

describe('the key-encryption key', () => {
  it('must be exactly 32 bytes: 31 and 33 are refused', () => {
    expect(() => createSealer(randomBytes(31).toString('base64'))).toThrow('32 bytes');
    expect(() => createSealer(randomBytes(33).toString('base64'))).toThrow('32 bytes');
    expect(() => createSealer('')).toThrow('32 bytes');
  });

  it('generateKeyEncryptionKey makes a usable 32-byte key, different each time', () => {
    const a = generateKeyEncryptionKey();
    expect(Buffer.from(a, 'base64')).toHaveLength(32);
    expect(generateKeyEncryptionKey()).not.toBe(a);
    const sealer = createSealer(a);
    expect(sealer.unseal(sealer.seal('ok')).toString()).toBe('ok');
  });
});
