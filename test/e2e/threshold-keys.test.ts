/**
 * dkgKeys: a 2-of-3 threshold key generated among the backend players is an ordinary account on
 * the network (a transfer it signs lands), and the whole key is written down nowhere: not in a
 * player's store, a database row, a response or a workflow history.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ed25519, ed25519_FROST } from '@noble/curves/ed25519.js';
import { getAddressEncoder, getBase58Decoder, type Address } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { createDirectoryShareStore } from '../../src/custody/threshold/share-store';
import { forkEm } from '../../src/main/runtime';

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack();
  client = new Client({ connection: await Connection.connect({ address: stack.config.temporal.address! }), namespace: stack.config.temporal.namespace });
});
afterAll(async () => {
  await client?.connection.close();
  await stack?.close();
});

const players = ['player-1', 'player-2', 'player-3'];
const playerDir = (code: string) => path.join(stack.config.dataDir, 'dkg-players', code);
const createThresholdAccount = () =>
  stack.call('POST', '/api/v1/accounts', {
    itemData: {
      managed: true,
      seed: { amount: 2 },
      privateKeyDetails: { dkgKeys: [{ keyUsage: 'SIGNING', useBackendPlayersCodes: players, isDefault: true, session: { threshold: 2 } }] },
    },
  });

async function historyText(transactionOffchainId: string): Promise<string> {
  const details = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: transactionOffchainId } } });
  const history = await client.workflow.getHandle(details.body.workflowId).fetchHistory();
  const decoded: string[] = [];
  const walk = (node: unknown): void => {
    if (node instanceof Uint8Array) decoded.push(Buffer.from(node).toString('utf8'));
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(history);
  return decoded.join('\n');
}

/** Every row of every table of the service's database, as text. */
async function databaseText(): Promise<string> {
  const conn = forkEm(stack.runtime.orm).getConnection();
  const tables = await conn.execute<{ tablename: string }[]>(`select tablename from pg_tables where schemaname = 'public'`);
  const parts: string[] = [];
  for (const { tablename } of tables) parts.push(JSON.stringify(await conn.execute(`select row_to_json(t)::text as j from "${tablename}" t`)));
  return parts.join('\n');
}

it('creates a 2-of-3 dkgKeys account whose transfer, signed by two players, is CONFIRMED on the local node', async () => {
  const created = await createThresholdAccount();
  expect(created.status).toBe(201);
  const account = created.body.newAccount as { onchainId: string; offchainId: string };
  const vault = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount as { offchainId: string };
  const sent = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: account.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount: 1 } },
  });
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
  const balance = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: account.offchainId } } })).body;
  expect(balance.onchain.balance.lamports).toBe(1_000_000_000);

  // Each player holds one share and no more; two shares rebuild the group key, which is the account address.
  const stores = players.map((code) => createDirectoryShareStore(playerDir(code), code, stack.runtime.sealer));
  const shares = stores.map((s) => s.load(account.onchainId)!);
  expect(shares.every(Boolean)).toBe(true);
  const secret = ed25519_FROST.combineSecret([shares[0]!, shares[2]!], { min: 2, max: 3 });
  const message = new TextEncoder().encode('check');
  const groupKey = new Uint8Array(getAddressEncoder().encode(account.onchainId as Address));
  expect(ed25519.verify(ed25519_FROST.sign(message, secret), message, groupKey)).toBe(true);

  // The whole secret scalar, in any encoding, appears in no store, row, response or history.
  const encodings = [
    Buffer.from(secret).toString('hex'),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    getBase58Decoder().decode(secret),
    Buffer.from(secret).reverse().toString('hex'),
  ];
  const storeText = players.flatMap((code) => fs.readdirSync(playerDir(code)).map((f) => fs.readFileSync(path.join(playerDir(code), f), 'utf8'))).join('\n');
  const texts = {
    stores: storeText,
    database: await databaseText(),
    responses: JSON.stringify([created.body, sent.body]),
    history: (await historyText(created.body.svmTransaction.offchainId)) + (await historyText(sent.body.offchainId)),
  };
  expect(texts.database).toContain(account.onchainId);
  for (const [where, text] of Object.entries(texts))
    for (const encoded of encodings) expect({ where, found: text.includes(encoded) }).toEqual({ where, found: false });

  // Nor can it be fetched: no one holds it whole.
  const fetched = await stack.call('POST', '/api/v1/accounts/private-key', { itemData: { account: { offchainId: account.offchainId } } });
  expect(fetched.status).toBe(400);
  expect(fetched.body.errors[0].message).toContain('threshold key');
});

it('signs with any 2 of the 3 players, reuses its signature over a message already signed, and cannot sign with 1', async () => {
  const account = (await createThresholdAccount()).body.newAccount as { onchainId: string };
  const signer = account.onchainId as Address;
  const em = forkEm(stack.runtime.orm);
  const sign = async (text: string) => {
    const transaction = { messageBytes: new TextEncoder().encode(text), signatures: { [signer]: null } } as unknown as Parameters<
      typeof stack.runtime.keyStore.signTransaction
    >[2];
    const { transaction: signed, missing } = await stack.runtime.keyStore.signTransaction(em, [signer], transaction);
    expect(missing).toEqual([]);
    return new Uint8Array(signed.signatures[signer]!);
  };
  const groupKey = new Uint8Array(getAddressEncoder().encode(signer));
  const first = await sign('message one');
  expect(ed25519.verify(first, new TextEncoder().encode('message one'), groupKey)).toBe(true);
  // FROST nonces are random: only the recorded signature makes a replayed sign step send the same transaction.
  expect(Buffer.from(await sign('message one')).equals(Buffer.from(first))).toBe(true);

  fs.rmSync(path.join(playerDir('player-1'), `${signer}.share`));
  expect(ed25519.verify(await sign('message two'), new TextEncoder().encode('message two'), groupKey)).toBe(true);
  fs.rmSync(path.join(playerDir('player-3'), `${signer}.share`));
  await expect(sign('message three')).rejects.toThrow('needs 2 players, 1 available');
});

it('refuses a threshold above the players or a player that is not configured, naming the field', async () => {
  const over = await stack.call('POST', '/api/v1/accounts', {
    itemData: { managed: true, privateKeyDetails: { dkgKeys: [{ useBackendPlayersCodes: ['player-1', 'player-2'], session: { threshold: 3 } }] } },
  });
  expect(over.status).toBe(400);
  expect(JSON.stringify(over.body.errors[0])).toContain('session.threshold');
  const stranger = await stack.call('POST', '/api/v1/accounts', {
    itemData: { managed: true, privateKeyDetails: { dkgKeys: [{ useBackendPlayersCodes: ['player-1', 'player-9'], session: { threshold: 2 } }] } },
  });
  expect(stranger.status).toBe(400);
  expect(JSON.stringify(stranger.body.errors[0])).toContain('useBackendPlayersCodes');
});
