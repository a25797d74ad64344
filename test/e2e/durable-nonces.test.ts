/**
 * Durable nonce accounts (spec 2.8, 4.1, 4.2; docs/durable-nonces.md) on the real stack: Create Durable
 * Nonce Accounts, the bulk and single reads, and writes with messageLifetimeStrategy DURABLE_NONCE
 * (advance-nonce first, one nonce per transaction, released when the transaction lands or fails,
 * and still landing long after a recent blockhash would have expired). Each scenario runs in its
 * own organization so it controls that organization's pool of nonce accounts.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  address,
  createSolanaRpc,
  generateKeyPair,
  getAddressFromPublicKey,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { getNonceDecoder, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import type { Steps } from '../../src/activities';
import { roleNames } from '../../src/domain/roles';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let rpc: Rpc<SolanaRpcApi>;
/** A pre-submit webhook receiver that always fails (a veto with doNotSubmitTransactionOnFailure). */
let vetoer: http.Server;
let vetoUrl: string;
/** Writes whose idempotency key starts with this wait, between sign and submit, until the chain is this many blocks further. */
const LATE = 'late-';
const LATE_BLOCKS = 170n;

/** Writes whose idempotency key starts with this build twice, as a replay after a crash between build and its task's completion does. */
const TWICE = 'twice-';

/** Holds a marked write's submit until the node has produced LATE_BLOCKS more blocks (a blockhash lives 150); builds a marked write twice. */
const lateSubmit = (steps: Steps): Steps => ({
  ...steps,
  async build(request, resolved, part) {
    if (request.idempotencyKey?.startsWith(TWICE)) await steps.build(request, resolved, part);
    return steps.build(request, resolved, part);
  },
  async submit(request, signed, part) {
    if (request.idempotencyKey?.startsWith(LATE)) {
      const start = await rpc.getBlockHeight({ commitment: 'confirmed' }).send();
      while ((await rpc.getBlockHeight({ commitment: 'finalized' }).send()) < start + LATE_BLOCKS) await new Promise((r) => setTimeout(r, 100));
    }
    return steps.submit(request, signed, part);
  },
});

beforeAll(async () => {
  // Short blocks, so 150 of them pass in a few seconds.
  stack = await startStack({ blockTimeMs: 30, wrapSteps: lateSubmit });
  rpc = createSolanaRpc(stack.node.url);
  vetoer = http.createServer((_req, res) => res.writeHead(500).end());
  await new Promise<void>((resolve) => vetoer.listen(0, '127.0.0.1', resolve));
  vetoUrl = `http://127.0.0.1:${(vetoer.address() as AddressInfo).port}/veto`;
});
afterAll(async () => {
  vetoer?.close();
  await stack?.close();
});

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ReturnType<Stack['call']>;

/** A fresh organization with its own key, a funded managed wallet and a managed authority. */
async function tenant() {
  const key = await stack.newApiKey(
    `nonce-${randomBytes(4).toString('hex')}`,
    roleNames.filter((r) => r !== 'ADMIN'),
  );
  const call: Call = (method, path, body, headers) => stack.call(method, path, body, { apiKey: key, headers });
  const account = async (itemData: Record<string, unknown>) => {
    const created = await call('POST', '/api/v1/accounts', { itemData });
    expect(created.status).toBe(201);
    return created.body.newAccount as { onchainId: string; offchainId: string };
  };
  const wallet = await account({ managed: true, seed: { amount: 5 } });
  const authority = await account({ managed: true });
  const createNonces = (count: number, extra: Record<string, unknown> = {}) =>
    call('POST', '/api/v1/durable-nonce-accounts', {
      itemData: {
        nonceAccount: { offchainReferences: { type: 'NONCE', code: 'DESK' }, ...extra },
        numberOfNonceAccounts: count,
        nonceAuthority: { offchainId: authority.offchainId },
      },
    });
  const nonces = async (itemQuery: Record<string, unknown> = {}) => {
    const page = await call('POST', '/api/v1/durable-nonce-accounts/bulk', { itemQuery });
    expect(page.status).toBe(200);
    return page.body as { count: number; items: any[] };
  };
  const details = (onchainId: string) => call('POST', '/api/v1/durable-nonce-accounts/single', { itemData: { nonceAccount: { onchainId } } });
  /** A network-currency transfer from the wallet to the authority with a durable nonce lifetime. */
  const transfer = (lamports: string, extra: { key?: string; submitTransaction?: boolean } = {}) =>
    call(
      'POST',
      '/api/v1/accounts/transfer-network-currency',
      {
        itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: authority.offchainId }, value: { lamports } },
        svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE', ...(extra.submitTransaction === false ? { submitTransaction: false } : {}) },
      },
      { 'Idempotency-Key': extra.key ?? `t-${randomBytes(6).toString('hex')}` },
    );
  return { call, account, wallet, authority, createNonces, nonces, details, transfer };
}

/** The chain's view of a nonce account: owner, size, authority and nonce value. */
async function onchainNonce(onchainId: string) {
  const { value } = await rpc.getAccountInfo(address(onchainId), { encoding: 'base64', commitment: 'confirmed' }).send();
  const data = new Uint8Array(Buffer.from(value!.data[0], 'base64'));
  const decoded = getNonceDecoder().decode(data);
  return { owner: value!.owner, size: data.length, authority: decoded.authority as string, nonce: decoded.blockhash as string };
}

/** The advance-nonce instruction a message starts with: its program, discriminator (4) and nonce account. */
function firstInstruction(serializedMessage: string) {
  const message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(serializedMessage));
  if (!('instructions' in message)) throw new Error(`a message of version ${message.version}`);
  const [first] = message.instructions;
  return {
    program: message.staticAccounts[first.programAddressIndex] as string,
    discriminator: new DataView(first.data!.buffer, first.data!.byteOffset).getUint32(0, true),
    nonceAccount: message.staticAccounts[first.accountIndices![0]] as string,
    lifetimeToken: message.lifetimeToken as string,
  };
}

describe('Create Durable Nonce Accounts', () => {
  it('creates nonce accounts with generated managed keys, initialized onchain with the authority, in transactions of four', async () => {
    const org = await tenant();
    const created = await org.createNonces(3);
    expect(created.status).toBe(201);
    expect(created.body.transactions).toHaveLength(1);
    expect(created.body.transactions[0]).toMatchObject({ success: true, status: 'CONFIRMED' });

    const page = await org.nonces({
      filter: [
        {
          fieldName: 'nonceAuthorityOnchainId',
          filterValues: [{ filterType: 'EQUALS', dataType: 'ADDRESS_ONCHAIN_ID', valueString: org.authority.onchainId }],
        },
      ],
    });
    expect(page.count).toBe(3);
    for (const item of page.items) {
      expect(item.nonceAccount).toMatchObject({
        managed: true,
        status: 'ACTIVE',
        privateKeyLocation: ['DATABASE'],
        offchain: { type: 'NONCE', code: 'DESK' },
        dataLength: 80,
      });
      expect(item.nonceAuthority).toMatchObject({ onchain: { id: org.authority.onchainId }, offchain: { id: org.authority.offchainId }, managed: true });
      expect(item.inUse).toBeNull();
      const chain = await onchainNonce(item.nonceAccount.onchain.id);
      expect(chain).toMatchObject({ owner: SYSTEM_PROGRAM_ADDRESS, size: 80, authority: org.authority.onchainId });
      expect(item.nonceHash).toBe(chain.nonce);
      // The offchain balance is what the chain holds: the rent-exempt minimum for 80 bytes.
      const balance = (await org.call('POST', '/api/v1/accounts/balance', { itemData: { account: { onchainId: item.nonceAccount.onchain.id } } })).body;
      expect(balance.onchain.balance.lamports).toBe(Number(await rpc.getMinimumBalanceForRentExemption(80n).send()));
      expect(balance.offchain.balance).toEqual(balance.onchain.balance);
      const single = await org.details(item.nonceAccount.onchain.id);
      expect(single.status).toBe(200);
      expect(single.body).toMatchObject({ nonceHash: chain.nonce, inUse: null, nonceAccount: { offchain: { id: item.nonceAccount.offchain.id } } });
    }
    // Five accounts need two transactions (four, then one).
    const more = await org.createNonces(5);
    expect(more.status).toBe(201);
    expect(more.body.transactions.map((t: { success: boolean }) => t.success)).toEqual([true, true]);
    expect((await org.nonces()).count).toBe(8);
  });

  it('refuses a nonceAccount naming an address already on record (409), bad counts and payload fields (400), and writes nothing', async () => {
    const org = await tenant();
    const taken = await org.createNonces(1, { onchainId: org.wallet.onchainId });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'itemData.nonceAccount.onchainId' });
    expect((await org.createNonces(21)).body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.numberOfNonceAccounts' });
    expect((await org.createNonces(0)).body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.numberOfNonceAccounts' });
    expect((await org.createNonces(1, { seed: { amount: 1 } })).body.errors[0]).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.nonceAccount.seed',
    });
    const wrongType = await org.call('POST', '/api/v1/durable-nonce-accounts', {
      itemData: {
        nonceAccount: { offchainReferences: { type: 'WALLET' } },
        numberOfNonceAccounts: 1,
        nonceAuthority: { offchainId: org.authority.offchainId },
      },
    });
    expect(wrongType.body.errors[0]).toMatchObject({ field: 'itemData.nonceAccount.offchainReferences.type' });
    expect((await org.nonces()).count).toBe(0);
  });
});

describe('Fetch Durable Nonce Accounts and Details', () => {
  it('filters and sorts by the fields of spec 4.1, free accounts first by default; 404 for an unknown or non-nonce account', async () => {
    const org = await tenant();
    expect((await org.createNonces(2)).status).toBe(201);
    const [a, b] = (await org.nonces()).items;
    // Hold one: a transfer that rests SIGNED keeps its nonce until it is submitted or cancelled.
    const held = await org.transfer('1000', { submitTransaction: false });
    expect(held.status).toBe(201);
    expect(held.body.status).toBe('SIGNED');

    const byDefault = await org.nonces();
    expect(byDefault.items.map((i) => i.inUse === null)).toEqual([true, false]);
    const inUse = byDefault.items[1];
    expect(inUse.inUse).toEqual({ transactionOffchainId: held.body.offchainId, transactionAt: expect.any(String) });
    const eq = (fieldName: string, value: Record<string, unknown>) => ({ filter: [{ fieldName, filterValues: [{ filterType: 'EQUALS', ...value }] }] });
    expect((await org.nonces(eq('isInUse', { valueBoolean: true }))).items.map((i) => i.nonceAccount.onchain.id)).toEqual([inUse.nonceAccount.onchain.id]);
    expect((await org.nonces(eq('inUseByTransactionId', { valueString: held.body.offchainId }))).count).toBe(1);
    expect((await org.nonces(eq('nonceAccountOnchainId', { valueString: a.nonceAccount.onchain.id }))).count).toBe(1);
    expect((await org.nonces(eq('nonceAccountOffchainId', { valueString: b.nonceAccount.offchain.id }))).count).toBe(1);
    expect((await org.nonces(eq('nonceAuthorityOffchainId', { valueString: org.authority.offchainId }))).count).toBe(2);
    expect((await org.nonces(eq('nonceAccountCode', { valueString: 'DESK' }))).count).toBe(2);
    // Accounts initialized in one transaction start from the same blockhash, so they may share a value.
    const byHash = await org.nonces(eq('nonceHash', { valueString: a.nonceHash }));
    expect(byHash.count).toBeGreaterThanOrEqual(1);
    expect(byHash.items.every((i) => i.nonceHash === a.nonceHash)).toBe(true);
    expect((await org.nonces(eq('nonceHash', { valueString: '11111111111111111111111111111111' }))).count).toBe(0);
    const sorted = await org.nonces({ sort: [{ fieldName: 'isInUse', sortDirection: 'DESC' }] });
    expect(sorted.items[0].inUse).not.toBeNull();
    const unknownField = await org.call('POST', '/api/v1/durable-nonce-accounts/bulk', { itemQuery: eq('inUse', { valueBoolean: true }) });
    expect(unknownField.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemQuery.filter.0.fieldName' });

    const detail = await org.details(inUse.nonceAccount.onchain.id);
    expect(detail.body.inUse.transactionOffchainId).toBe(held.body.offchainId);
    expect((await org.details(org.wallet.onchainId)).status).toBe(404);
    const unknown = await org.call('POST', '/api/v1/durable-nonce-accounts/single', {
      itemData: { nonceAccount: { offchainId: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(unknown.status).toBe(404);
  });
});

describe('messageLifetimeStrategy DURABLE_NONCE', () => {
  it('lands a transfer whose message starts with advance-nonce, advances the nonce and frees the account again', async () => {
    const org = await tenant();
    expect((await org.createNonces(1)).status).toBe(201);
    const [before] = (await org.nonces()).items;
    const sent = await org.transfer('1000000');
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    const first = firstInstruction(sent.body.serializedMessage);
    expect(first).toMatchObject({
      program: SYSTEM_PROGRAM_ADDRESS,
      discriminator: 4,
      nonceAccount: before.nonceAccount.onchain.id,
      lifetimeToken: before.nonceHash,
    });

    const after = (await org.details(before.nonceAccount.onchain.id)).body;
    expect(after.inUse).toBeNull();
    expect(after.nonceHash).not.toBe(before.nonceHash);
    expect(after.nonceHash).toBe((await onchainNonce(before.nonceAccount.onchain.id)).nonce);
    // The next write uses the advanced value.
    const again = await org.transfer('1000000');
    expect(again.body).toMatchObject({ success: true });
    expect(firstInstruction(again.body.serializedMessage).lifetimeToken).toBe(after.nonceHash);
  });

  it('reuses its own reservation when build runs again (a replay), leaving no nonce account held', async () => {
    const org = await tenant();
    expect((await org.createNonces(2)).status).toBe(201);
    const replayed = await org.transfer('1000', { key: `${TWICE}${randomBytes(4).toString('hex')}` });
    expect(replayed.body).toMatchObject({ success: true });
    expect((await org.nonces()).items.map((i) => i.inUse)).toEqual([null, null]);
  });

  it('gives racing writes different nonce accounts', async () => {
    const org = await tenant();
    expect((await org.createNonces(2)).status).toBe(201);
    const [one, two] = await Promise.all([org.transfer('1000'), org.transfer('2000')]);
    expect(one.body).toMatchObject({ success: true });
    expect(two.body).toMatchObject({ success: true });
    const used = [one, two].map((r) => firstInstruction(r.body.serializedMessage).nonceAccount);
    expect(new Set(used).size).toBe(2);
    expect((await org.nonces()).items.every((i) => i.inUse === null)).toBe(true);
  });

  it('releases the nonce of a write the network refuses, and the next write reuses it', async () => {
    const org = await tenant();
    expect((await org.createNonces(1)).status).toBe(201);
    const [nonce] = (await org.nonces()).items;
    // A compute-unit limit below what the transfer uses: the network runs it and refuses it.
    const overBudget = await org.call(
      'POST',
      '/api/v1/accounts/transfer-network-currency',
      {
        itemData: { source: { offchainId: org.wallet.offchainId }, destination: { offchainId: org.authority.offchainId }, value: { lamports: '1000' } },
        svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE', computeUnitConfig: { limit: 1 } },
      },
      { 'Idempotency-Key': `t-${randomBytes(6).toString('hex')}` },
    );
    expect(overBudget.body).toMatchObject({ success: false });
    expect((await org.details(nonce.nonceAccount.onchain.id)).body.inUse).toBeNull();
    const next = await org.transfer('1000');
    expect(next.body).toMatchObject({ success: true });
    expect(firstInstruction(next.body.serializedMessage).nonceAccount).toBe(nonce.nonceAccount.onchain.id);
  });

  it('releases the nonce of a write a pre-submit webhook vetoes (REJECTED)', async () => {
    const org = await tenant();
    expect((await org.createNonces(1)).status).toBe(201);
    const [nonce] = (await org.nonces()).items;
    const guarded = await org.account({
      managed: true,
      seed: { amount: 1 },
      preTransactionSubmitWebhooks: [{ endpointUrl: vetoUrl, doNotSubmitTransactionOnFailure: true }],
    });
    const vetoed = await org.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: guarded.offchainId }, destination: { offchainId: org.authority.offchainId }, value: { lamports: '1000' } },
      svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE' },
    });
    expect(vetoed.body).toMatchObject({ success: false, status: 'REJECTED' });
    expect((await org.details(nonce.nonceAccount.onchain.id)).body.inUse).toBeNull();
    expect((await org.transfer('1000')).body).toMatchObject({ success: true });
  });

  it('answers 409 saying no durable nonce account is free and how to create more, and holds nothing', async () => {
    const org = await tenant();
    const none = await org.transfer('1000');
    expect(none.status).toBe(409);
    expect(none.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'svmTransactionConfig.messageLifetimeStrategy' });
    expect(none.body.errors[0].message).toMatch(/no free durable nonce account/);
    expect(none.body.errors[0].message).toMatch(/Create Durable Nonce Accounts/);

    expect((await org.createNonces(1)).status).toBe(201);
    expect((await org.transfer('1000', { submitTransaction: false })).body.status).toBe('SIGNED');
    const busy = await org.transfer('1000');
    expect(busy.status).toBe(409);
    expect(busy.body.errors[0].message).toMatch(/no free durable nonce account/);
  });

  it('refuses a nonce whose authority the organization cannot sign with (400 naming the strategy)', async () => {
    const org = await tenant();
    const outside = await getAddressFromPublicKey((await generateKeyPair()).publicKey);
    const authority = await org.account({ managed: false, alreadyOnchain: true, onchainId: outside, skipBlockchainExistenceVerification: true });
    const created = await org.call('POST', '/api/v1/durable-nonce-accounts', {
      itemData: { nonceAccount: {}, numberOfNonceAccounts: 1, nonceAuthority: { offchainId: authority.offchainId } },
    });
    expect(created.status).toBe(201);
    const refused = await org.transfer('1000');
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'svmTransactionConfig.messageLifetimeStrategy' });
    expect((await org.nonces()).items[0].inUse).toBeNull();
  });

  it('lands a nonce-lifetime message submitted after the chain moved well past 150 blocks', async () => {
    const org = await tenant();
    expect((await org.createNonces(1)).status).toBe(201);
    const late = await org.transfer('1000', { key: `${LATE}${randomBytes(4).toString('hex')}` });
    expect(late.status).toBe(201);
    expect(late.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    // One message only: built once, never expired and rebuilt.
    const status = await org.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: late.body.offchainId } } });
    expect(status.body.statusHistory.map((s: { status: string }) => s.status)).not.toContain('EXPIRED');

    // The control: the same delay makes a recent-blockhash message expire (and the write build anew).
    const control = await org.call(
      'POST',
      '/api/v1/accounts/transfer-network-currency',
      {
        itemData: { source: { offchainId: org.wallet.offchainId }, destination: { offchainId: org.authority.offchainId }, value: { lamports: '1000' } },
        svmTransactionConfig: { messageLifetimeStrategy: 'RECENT_BLOCKHASH' },
      },
      { 'Idempotency-Key': `${LATE}${randomBytes(4).toString('hex')}` },
    );
    const controlStatus = await org.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: control.body.offchainId } } });
    expect(controlStatus.body.statusHistory.map((s: { status: string }) => s.status)).toContain('EXPIRED');
  }, 120_000);
});
