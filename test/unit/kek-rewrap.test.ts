/**
 * The file stores' KEK re-wrap (threshold shares, SECRETS keystore) and the webhook credential
 * mapper that rotation and sealing share: after a re-wrap every value opens with the new KEK alone,
 * and a second pass finds nothing to do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createSealer, generateKeyEncryptionKey } from '../../src/custody/sealing';
import { createDirectoryShareStore } from '../../src/custody/threshold/share-store';
import { createKeystoreDirectory } from '../../src/custody/secret-store';
import { mapWebhookSecrets, sealWebhookSecrets } from '../../src/custody/webhook-secrets';

const oldKek = generateKeyEncryptionKey();
const newKek = generateKeyEncryptionKey();
const ADDRESSES = ['4fo5ahGxbJqR4jDHWfdLZSQNDKGYUhBFTqjQL4GurEmJ', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'];
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kek-rewrap-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('re-wraps every share of a player store so that the new KEK alone opens them, and a second pass re-wraps none', () => {
  const shares = ADDRESSES.map(() => ({ identifier: randomBytes(32).toString('hex'), signingShare: new Uint8Array(randomBytes(32)) }));
  const before = createDirectoryShareStore(dir, 'player-1', createSealer(oldKek));
  ADDRESSES.forEach((a, i) => before.save(a, shares[i]!));
  const rotating = createSealer(newKek, [oldKek]);
  expect(before.rewrapAll(rotating)).toBe(2);
  expect(before.rewrapAll(rotating)).toBe(0);
  const after = createDirectoryShareStore(dir, 'player-1', createSealer(newKek));
  ADDRESSES.forEach((a, i) => expect(after.load(a)).toEqual(shares[i]));
  expect(() => createDirectoryShareStore(dir, 'player-1', createSealer(oldKek)).load(ADDRESSES[0]!)).toThrow('not in the keyring');
  expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
});

it('re-wraps the SECRETS keystore files, keeping each bound to its address', async () => {
  const seed = new Uint8Array(randomBytes(32));
  await createKeystoreDirectory(dir, createSealer(oldKek)).put(ADDRESSES[0]!, seed);
  expect(await createKeystoreDirectory(dir, createSealer(newKek)).rewrapAll(createSealer(newKek, [oldKek]))).toBe(1);
  expect(await createKeystoreDirectory(dir, createSealer(newKek)).get(ADDRESSES[0]!)).toEqual(seed);
  // Moved to another address's name, it no longer opens.
  fs.renameSync(path.join(dir, `${ADDRESSES[0]}.key`), path.join(dir, `${ADDRESSES[1]}.key`));
  await expect(createKeystoreDirectory(dir, createSealer(newKek)).get(ADDRESSES[1]!)).rejects.toThrow('does not open');
});

it('changes exactly the secret fields of a webhook: API key value, OAuth2 client secret and password', () => {
  const hook = {
    endpointUrl: 'https://hooks.example.com',
    name: 'n',
    apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: 'k' },
    oauth2AuthConfig: { accessTokenUrl: 'https://t.example.com', clientId: 'id', clientSecret: 's', password: 'p' },
  };
  expect(mapWebhookSecrets(hook, (v) => `<${v}>`)).toEqual({
    ...hook,
    apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: '<k>' },
    oauth2AuthConfig: { ...hook.oauth2AuthConfig, clientSecret: '<s>', password: '<p>' },
  });
  const sealer = createSealer(oldKek);
  const sealed = sealWebhookSecrets(sealer, { postTransactionSubmitWebhooks: [hook] }).postTransactionSubmitWebhooks![0]!;
  expect(JSON.stringify(sealed)).not.toMatch(/"(k|s|p)"/);
  expect(sealer.unseal(sealed.oauth2AuthConfig.clientSecret).toString()).toBe('s');
});
