/**
 * Key custody end to end: DATABASE, SECRETS and threshold (dkgKeys) accounts sign transfers and an
 * account's webhook authenticates with OAuth2; the KEK is rotated while the service runs with old and
 * new KEKs readable (the deployment step before a rotation), first stopped halfway (everything stays
 * readable), then to the end with the admin CLI. A service that then knows only the new KEK still
 * signs with every kind of key and still delivers the webhook. A SECRETS key is never in PostgreSQL,
 * not even sealed.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createCipheriv, randomBytes } from 'node:crypto';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { temporalTarget, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait';
import { forkEm, openRuntime, thresholdShareStores, type Runtime } from '../../src/main/runtime';
import { startApi, type ApiServer } from '../../src/main/api';
import { createSealer, generateKeyEncryptionKey } from '../../src/custody/sealing';
import { createKeystoreDirectory } from '../../src/custody/secret-store';
import { rotateKek } from '../../src/custody/kek-rotation';

const run = promisify(execFile);
const oldKek = generateKeyEncryptionKey();
const newKek = generateKeyEncryptionKey();
const oldId = createSealer(oldKek).currentKeyId;
const newId = createSealer(newKek).currentKeyId;
let stack: Stack;

/** An OAuth2 token endpoint that only answers the right client secret, and a webhook receiver. */
const CLIENT_SECRET = `secret-${randomBytes(8).toString('hex')}`;
const tokenRequests: { clientSecret: string | null; granted: boolean }[] = [];
const deliveries: { authorization?: string; body: string }[] = [];
let tokenServer: http.Server;
let receiver: http.Server;
let tokenUrl: string;
let receiverUrl: string;
const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });
const listen = async (server: http.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  stack = await startStack({ keyEncryptionKey: oldKek, previousKeyEncryptionKeys: [newKek] });
  tokenServer = http.createServer(async (req, res) => {
    const clientSecret = new URLSearchParams(await readBody(req)).get('client_secret');
    const granted = clientSecret === CLIENT_SECRET;
    tokenRequests.push({ clientSecret, granted });
    if (!granted) return res.writeHead(401).end();
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ access_token: `token-${tokenRequests.length}`, token_type: 'Bearer', expires_in: 3600 }));
  });
  tokenUrl = `${await listen(tokenServer)}/token`;
  receiver = http.createServer(async (req, res) => {
    deliveries.push({ authorization: req.headers.authorization, body: await readBody(req) });
    res.writeHead(200).end();
  });
  receiverUrl = await listen(receiver);
});
afterAll(async () => {
  await newKekOnly?.api.close();
  await newKekOnly?.runtime.close();
  await new Promise((resolve) => tokenServer?.close(resolve));
  await new Promise((resolve) => receiver?.close(resolve));
  await stack?.close();
});

type AccountRef = { offchainId: string; onchainId: string };
type Call = (method: string, urlPath: string, body?: unknown) => Promise<{ status: number; body: any }>;
const viaStack: Call = (method, urlPath, body) => stack.call(method, urlPath, body);

const createAccount = async (itemData: Record<string, unknown>) => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 2 }, ...itemData } });
  expect(created.status).toBe(201);
  return created.body.newAccount as AccountRef;
};
const transfer = async (source: { offchainId: string }, destination: { offchainId: string }, call: Call = viaStack) => {
  const sent = await call('POST', '/api/v1/accounts/transfer-network-currency', { itemData: { source, destination, value: { amount: 0.1 } } });
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({ success: true });
  return sent.body as { offchainId: string };
};
const privateKey = async (account: { offchainId: string }, call: Call = viaStack) => {
  const fetched = await call('POST', '/api/v1/accounts/private-key', { itemData: { account } });
  expect(fetched.status).toBe(200);
  return fetched.body as { privateKey: string; privateKeyLocation: string[] };
};
const lamports = async (account: { offchainId: string }) =>
  BigInt((await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account } })).body.onchain.balance.lamports);
/** The post-submit delivery of one transaction at the receiver. */
const deliveryOf = (transaction: { offchainId: string }) =>
  waitFor(async () => deliveries.find((d) => JSON.parse(d.body).transaction?.offchainId === transaction.offchainId), 30_000);

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
  const tables = await connection.execute<{ table_name: string }[]>(
    `select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
  );
  const texts: string[] = [];
  for (const { table_name } of tables) texts.push(JSON.stringify(await connection.execute(`select * from "${table_name}"`)));
  return texts.join('\n');
}

/** The key ids of every threshold share file, per player. */
function shareKeyIds(): Record<string, string[]> {
  const root = path.join(stack.config.dataDir, 'dkg-players');
  return Object.fromEntries(
    stack.config.dkgPlayers.map((code) => {
      const dir = path.join(root, code);
      const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.share')) : [];
      return [code, files.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).sealedShare.split(':')[1] as string)];
    }),
  );
}
/** The key ids of the sealed webhook credentials stored on account records. */
async function webhookCredentialKeyIds(): Promise<string[]> {
  const rows = await forkEm(stack.runtime.orm)
    .getConnection()
    .execute<{ hooks: { oauth2AuthConfig?: { clientSecret?: string } }[] }[]>(
      `select post_transaction_submit_webhooks hooks from account where post_transaction_submit_webhooks <> '[]'::jsonb`,
    );
  return rows.flatMap((r) => r.hooks.map((h) => h.oauth2AuthConfig!.clientSecret!.split(':')[1]!));
}

const accounts = {} as Record<'database' | 'secrets' | 'threshold' | 'hooked' | 'sink', AccountRef>;
let before: { database: string; secrets: string };
let newKekOnly: { runtime: Runtime; api: ApiServer } | undefined;

it('signs with DATABASE, SECRETS and threshold keys and delivers an OAuth2 webhook, keeping SECRETS keys out of PostgreSQL', async () => {
  accounts.database = await createAccount({ privateKeyDetails: { location: ['DATABASE'] } });
  accounts.secrets = await createAccount({ privateKeyDetails: { location: ['SECRETS'] } });
  accounts.threshold = await createAccount({ privateKeyDetails: { dkgKeys: [{ keyUsage: 'SIGNING', isDefault: true, session: { threshold: 2 } }] } });
  accounts.hooked = await createAccount({
    postTransactionSubmitWebhooks: [
      {
        name: 'oauth',
        endpointUrl: `${receiverUrl}/hook`,
        oauth2AuthConfig: { accessTokenUrl: tokenUrl, flowType: 'CLIENT_CREDENTIALS', clientId: 'ledger', clientSecret: CLIENT_SECRET },
      },
    ],
  });
  accounts.sink = await createAccount({ seed: { amount: 0.01 } });
  for (const source of [accounts.database, accounts.secrets, accounts.threshold]) await transfer(source, accounts.sink);
  expect((await deliveryOf(await transfer(accounts.hooked, accounts.sink))).authorization).toMatch(/^Bearer token-\d+$/);

  const keys = { database: await privateKey(accounts.database), secrets: await privateKey(accounts.secrets) };
  before = { database: keys.database.privateKey, secrets: keys.secrets.privateKey };
  expect(keys.database.privateKeyLocation).toEqual(['DATABASE']);
  expect(keys.secrets.privateKeyLocation).toEqual(['SECRETS']);
  const secretsSeed = getBase58Encoder().encode(before.secrets).slice(0, 32);
  const dump = await databaseText();
  for (const text of [
    before.secrets,
    getBase58Decoder().decode(secretsSeed),
    Buffer.from(secretsSeed).toString('base64'),
    Buffer.from(secretsSeed).toString('hex'),
  ])
    expect(dump).not.toContain(text);
  expect(dump).not.toContain(CLIENT_SECRET);
  const rows = await forkEm(stack.runtime.orm)
    .getConnection()
    .execute<{ address: string; location: string; sealed_secret: string | null }[]>(
      `select address, location, sealed_secret from custody_key where address in (?, ?)`,
      [accounts.database.onchainId, accounts.secrets.onchainId],
    );
  expect(Object.fromEntries(rows.map((r) => [r.address, r.location]))).toEqual({
    [accounts.database.onchainId]: 'DATABASE',
    [accounts.secrets.onchainId]: 'SECRETS',
  });
  expect(rows.find((r) => r.address === accounts.secrets.onchainId)!.sealed_secret).toBeNull();
  expect(rows.find((r) => r.address === accounts.database.onchainId)!.sealed_secret!.startsWith(`v2:${oldId}:`)).toBe(true);
  expect(shareKeyIds()).toEqual({ 'player-1': [oldId], 'player-2': [oldId], 'player-3': [oldId] });
  expect(await webhookCredentialKeyIds()).toEqual([oldId]);

  // A DATABASE key sealed before key ids and AAD (v1) still signs, and the rotation upgrades it.
  const databaseSeed = getBase58Encoder().encode(before.database).slice(0, 32);
  await forkEm(stack.runtime.orm)
    .getConnection()
    .execute(`update custody_key set sealed_secret = ? where address = ?`, [sealV1(oldKek, databaseSeed), accounts.database.onchainId]);
  await transfer(accounts.database, accounts.sink);
});

it('leaves every key readable with old and new KEK when a rotation stops halfway', async () => {
  const sealer = createSealer(newKek, [oldKek]);
  // The rotation dies at the second player's share store: keys and the first player's shares are re-wrapped, the rest are not.
  const shares = thresholdShareStores(stack.config, sealer).map((store) =>
    store.playerCode === 'player-2'
      ? {
          ...store,
          rewrapAll: () => {
            throw new Error('killed mid-rotation');
          },
        }
      : store,
  );
  await expect(
    rotateKek(forkEm(stack.runtime.orm), sealer, { secrets: createKeystoreDirectory(path.join(stack.config.dataDir, 'secrets'), sealer), shares }),
  ).rejects.toThrow('killed mid-rotation');
  expect(shareKeyIds()).toEqual({ 'player-1': [newId], 'player-2': [oldId], 'player-3': [oldId] });
  expect(await webhookCredentialKeyIds()).toEqual([oldId]);

  // The service (old and new KEK readable) still signs with every kind of key and still delivers the webhook.
  for (const source of [accounts.database, accounts.secrets, accounts.threshold]) await transfer(source, accounts.sink);
  expect((await deliveryOf(await transfer(accounts.hooked, accounts.sink))).authorization).toMatch(/^Bearer /);
});

it('re-wraps every key, share and credential with the admin CLI, so a service with only the new KEK signs and delivers', async () => {
  const { stdout, stderr } = await run(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '../../src/cli/main.ts'), 'keys', 'rotate-kek', '--new-key-env', 'NEW_KEK'],
    {
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: stack.config.databaseUrl,
        DATA_DIR: stack.config.dataDir,
        KEY_ENCRYPTION_KEY: oldKek,
        NEW_KEK: newKek,
      },
    },
  );
  if (!stdout) throw new Error(stderr);
  const rotation = JSON.parse(stdout);
  // What the stopped rotation left: two players' shares, the signing secrets and the webhook's client secret.
  expect(rotation).toMatchObject({ keyId: newId, databaseKeys: 0, secretsKeys: 0, thresholdShares: 2, webhookCredentials: 1 });
  expect(rotation.webhookSigningSecrets).toBeGreaterThanOrEqual(1);
  expect(stdout).not.toContain(newKek);
  const sealed = await forkEm(stack.runtime.orm)
    .getConnection()
    .execute<{ sealed_secret: string }[]>(`select sealed_secret from custody_key where sealed_secret is not null`);
  for (const row of sealed) expect(row.sealed_secret.startsWith(`v2:${newId}:`)).toBe(true);
  expect(() => createSealer(oldKek).unseal(sealed[0]!.sealed_secret)).toThrow('not in the keyring');
  expect(shareKeyIds()).toEqual({ 'player-1': [newId], 'player-2': [newId], 'player-3': [newId] });
  expect(await webhookCredentialKeyIds()).toEqual([newId]);
  // Run again, it finds nothing left to do.
  const again = JSON.parse(
    (
      await run(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/main.ts'), 'keys', 'rotate-kek', '--new-key-env', 'NEW_KEK'], {
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          DATABASE_URL: stack.config.databaseUrl,
          DATA_DIR: stack.config.dataDir,
          KEY_ENCRYPTION_KEY: newKek,
          NEW_KEK: newKek,
        },
      })
    ).stdout,
  );
  expect(again).toEqual({ keyId: newId, databaseKeys: 0, secretsKeys: 0, thresholdShares: 0, webhookSigningSecrets: 0, webhookCredentials: 0 });

  // The service after the rotation's last step: the new KEK only, the old one gone from the keyring.
  const config = {
    ...stack.config,
    databaseUrl: stack.config.databaseUrl!,
    keyEncryptionKey: newKek,
    previousKeyEncryptionKeys: [],
    temporal: { ...stack.config.temporal, taskQueue: uniqueTaskQueue('new-kek') },
  };
  const runtime = await openRuntime(config, () => {});
  newKekOnly = { runtime, api: await startApi(config, runtime, temporalTarget(), () => {}, { port: 0, hostWorker: true }) };
  const viaNewKek: Call = async (method, urlPath, body) => {
    const response = await fetch(newKekOnly!.api.url + urlPath, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  const sinkBefore = await lamports(accounts.sink);
  for (const source of [accounts.database, accounts.secrets, accounts.threshold]) await transfer(source, accounts.sink, viaNewKek);
  expect((await lamports(accounts.sink)) - sinkBefore).toBe(300_000_000n);
  expect((await privateKey(accounts.database, viaNewKek)).privateKey).toBe(before.database);
  expect((await privateKey(accounts.secrets, viaNewKek)).privateKey).toBe(before.secrets);

  // Its worker has no token yet: it unseals the client secret with the new KEK to get one, then delivers.
  const tokensBefore = tokenRequests.length;
  const delivery = await deliveryOf(await transfer(accounts.hooked, accounts.sink, viaNewKek));
  expect(tokenRequests.slice(tokensBefore)).toEqual([{ clientSecret: CLIENT_SECRET, granted: true }]);
  expect(delivery.authorization).toBe(`Bearer token-${tokensBefore + 1}`);
});

it('refuses a key kept in two locations, naming the field', async () => {
  const refused = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, privateKeyDetails: { location: ['DATABASE', 'SECRETS'] } } });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].field).toBe('itemData.privateKeyDetails.location');
});
