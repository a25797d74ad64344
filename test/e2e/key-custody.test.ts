/**
 * Key custody end to end: a DATABASE and a SECRETS account sign transfers; the KEK is rotated with the
 * admin CLI while the service runs with old and new KEKs readable (the deployment step before a
 * rotation); both sign again afterwards and Fetch Account Private Key returns the same keys; a
 * SECRETS key is never in PostgreSQL, not even sealed.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCipheriv, randomBytes } from 'node:crypto';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { forkEm } from '../../src/main/runtime';
import { createSealer, generateKeyEncryptionKey } from '../../src/custody/sealing';

const run = promisify(execFile);
const oldKek = generateKeyEncryptionKey();
const newKek = generateKeyEncryptionKey();
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ keyEncryptionKey: oldKek, previousKeyEncryptionKeys: [newKek] });
});
afterAll(async () => {
  await stack?.close();
});

const createAccount = async (itemData: Record<string, unknown>) => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 2 }, ...itemData } });
  expect(created.status).toBe(201);
  return created.body.newAccount as { offchainId: string; onchainId: string };
};
const transfer = async (source: { offchainId: string }, destination: { offchainId: string }) => {
  const sent = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', { itemData: { source, destination, value: { amount: 0.1 } } });
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({ success: true });
};
const privateKey = async (account: { offchainId: string }) => {
  const fetched = await stack.call('POST', '/api/v1/accounts/private-key', { itemData: { account } });
  expect(fetched.status).toBe(200);
  return fetched.body as { privateKey: string; privateKeyLocation: string[] };
};
const lamports = async (account: { offchainId: string }) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account } })).body;

/** A key sealed in the format before key ids and AAD (v1), as rows written before this change hold it. */
function sealV1(kek: string, plain: Uint8Array): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(kek, 'base64'), iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** Every table's rows as text: what a database dump would hold. */
async function databaseText(): Promise<string> {
  const connection = forkEm(stack.runtime.orm).getConnection();
  const tables = await connection.execute<{ table_name: string }[]>(`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`);
  const texts: string[] = [];
  for (const { table_name } of tables) texts.push(JSON.stringify(await connection.execute(`select * from "${table_name}"`)));
  return texts.join('\n');
}

it('signs with DATABASE and SECRETS keys before and after a KEK rotation, and keeps SECRETS keys out of PostgreSQL', async () => {
  const database = await createAccount({ privateKeyDetails: { location: ['DATABASE'] } });
  const secrets = await createAccount({ privateKeyDetails: { location: ['SECRETS'] } });
  const sink = await createAccount({ seed: { amount: 0.01 } });
  await transfer(database, sink);
  await transfer(secrets, sink);

  const before = { database: await privateKey(database), secrets: await privateKey(secrets) };
  expect(before.database.privateKeyLocation).toEqual(['DATABASE']);
  expect(before.secrets.privateKeyLocation).toEqual(['SECRETS']);
  const secretsSeed = getBase58Encoder().encode(before.secrets.privateKey).slice(0, 32);
  const dump = await databaseText();
  for (const text of [before.secrets.privateKey, getBase58Decoder().decode(secretsSeed), Buffer.from(secretsSeed).toString('base64'), Buffer.from(secretsSeed).toString('hex')]) expect(dump).not.toContain(text);
  const rows = await forkEm(stack.runtime.orm).getConnection().execute<{ address: string; location: string; sealed_secret: string | null }[]>(`select address, location, sealed_secret from custody_key where address in (?, ?)`, [database.onchainId, secrets.onchainId]);
  expect(Object.fromEntries(rows.map((r) => [r.address, r.location]))).toEqual({ [database.onchainId]: 'DATABASE', [secrets.onchainId]: 'SECRETS' });
  expect(rows.find((r) => r.address === secrets.onchainId)!.sealed_secret).toBeNull();
  const oldId = createSealer(oldKek).currentKeyId;
  expect(rows.find((r) => r.address === database.onchainId)!.sealed_secret!.startsWith(`v2:${oldId}:`)).toBe(true);

  // A DATABASE key sealed before this change (v1: no key id, no AAD) still signs, and the rotation upgrades it.
  const databaseSeed = getBase58Encoder().encode(before.database.privateKey).slice(0, 32);
  await forkEm(stack.runtime.orm).getConnection().execute(`update custody_key set sealed_secret = ? where address = ?`, [sealV1(oldKek, databaseSeed), database.onchainId]);
  await transfer(database, sink);

  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/main.ts'), 'keys', 'rotate-kek', '--new-key-env', 'NEW_KEK'], {
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: stack.config.databaseUrl, DATA_DIR: stack.config.dataDir, KEY_ENCRYPTION_KEY: oldKek, NEW_KEK: newKek },
  });
  if (!stdout) throw new Error(stderr);
  const rotation = JSON.parse(stdout);
  const newId = createSealer(newKek).currentKeyId;
  expect(rotation.keyId).toBe(newId);
  expect(rotation.databaseKeys).toBeGreaterThanOrEqual(2);
  expect(rotation.secretsKeys).toBe(1);
  expect(stdout).not.toContain(newKek);
  const sealed = await forkEm(stack.runtime.orm).getConnection().execute<{ sealed_secret: string }[]>(`select sealed_secret from custody_key where sealed_secret is not null`);
  for (const row of sealed) expect(row.sealed_secret.startsWith(`v2:${newId}:`)).toBe(true);
  // Only the new KEK opens them now.
  expect(() => createSealer(oldKek).unseal(sealed[0]!.sealed_secret)).toThrow('not in the keyring');

  const balanceBefore = await lamports(sink);
  await transfer(database, sink);
  await transfer(secrets, sink);
  expect(BigInt((await lamports(sink)).onchain.balance.lamports) - BigInt(balanceBefore.onchain.balance.lamports)).toBe(200_000_000n);
  expect((await privateKey(database)).privateKey).toBe(before.database.privateKey);
  expect((await privateKey(secrets)).privateKey).toBe(before.secrets.privateKey);
});

it('refuses a key kept in two locations, naming the field', async () => {
  const refused = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, privateKeyDetails: { location: ['DATABASE', 'SECRETS'] } } });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].field).toBe('itemData.privateKeyDetails.location');
});
