/**
 * API.md section 10 on the real stack: a nonce account and a lookup table made outside the API (with
 * the kit, against the local node) and onboarded with Create Account become nonce accounts and tables
 * like created ones (listed, used by DURABLE_NONCE writes and by compression); a refusal names the
 * field. And the account payloads of Create Durable Nonce Accounts, Create Address Lookup Table and
 * Create Onchain Data Source take `managed: true`, refusing what they cannot honour.
 */
import { randomBytes } from 'node:crypto';
import {
  address,
  createSolanaRpc,
  devnet,
  generateKeyPairSigner,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, getNonceDecoder, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { fetchAddressLookupTable, getCreateLookupTableInstructionAsync, getExtendLookupTableInstruction } from '@solana-program/address-lookup-table';
import { roleNames } from '../../src/domain/roles';
import { fundOutsideSender, type OutsideSender } from '../support/outside-sender';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;
let call: (method: string, path: string, body?: unknown) => ReturnType<Stack['call']>;
let wallet: Ref;
let authority: Ref;
let outsideSender: OutsideSender;

beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(devnet(stack.node.url));
  // An organization of its own: its only nonce account and table are the onboarded ones.
  const key = await stack.newApiKey(
    `onboard-${randomBytes(4).toString('hex')}`,
    roleNames.filter((r) => r !== 'ADMIN'),
  );
  call = (method, path, body) => stack.call(method, path, body, { apiKey: key });
  wallet = await account({ managed: true, seed: { amount: 2 } });
  authority = await account({ managed: true });
  outsideSender = await fundOutsideSender(rpc, 1_000_000_000n);
});
afterAll(async () => {
  await stack?.close();
});

async function account(itemData: Record<string, unknown>): Promise<Ref> {
  const created = await call('POST', '/api/v1/accounts', { itemData });
  expect(created).toMatchObject({ status: 201 });
  return created.body.newAccount;
}

const onchainNonce = async (onchainId: string) => {
  const { value } = await rpc.getAccountInfo(address(onchainId), { encoding: 'base64', commitment: 'confirmed' }).send();
  return getNonceDecoder().decode(new Uint8Array(Buffer.from(value!.data[0], 'base64'))).blockhash as string;
};
const messageOf = (serializedMessage: string) => getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(serializedMessage));
/** 0.001 from the wallet to a managed account (a MANAGED destination, which the default limits allow). */
const transfer = (to: Ref, extra: Record<string, unknown> = {}) =>
  call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: to.offchainId }, value: { lamports: '1000000' } },
    ...extra,
  });

describe('a nonce account made outside the API, onboarded with Create Account', () => {
  let nonce: KeyPairSigner;
  let onboarded: Ref;

  beforeAll(async () => {
    nonce = await generateKeyPairSigner();
    const rent = await rpc.getMinimumBalanceForRentExemption(80n).send();
    await outsideSender.send([
      getCreateAccountInstruction({ payer: outsideSender.payer, newAccount: nonce, lamports: rent, space: 80, programAddress: SYSTEM_PROGRAM_ADDRESS }),
      getInitializeNonceAccountInstruction({ nonceAccount: nonce.address, nonceAuthority: address(authority.onchainId) }),
    ]);
  });

  it('is refused as a lookup table, and a plain account is refused as a nonce account (400 naming itemData.onchainId)', async () => {
    const asTable = await call('POST', '/api/v1/accounts', {
      itemData: { managed: false, alreadyOnchain: true, onchainId: nonce.address, offchainReferences: { type: 'ADDRESS_LOOKUP_TABLE' } },
    });
    expect(asTable.status).toBe(400);
    expect(asTable.body.errors[0]).toMatchObject({ field: 'itemData.onchainId', message: expect.stringContaining('is not an address lookup table') });
    const plain = await call('POST', '/api/v1/accounts', {
      itemData: { managed: false, alreadyOnchain: true, onchainId: outsideSender.payer.address, offchainReferences: { type: 'NONCE' } },
    });
    expect(plain.status).toBe(400);
    expect(plain.body.errors[0]).toMatchObject({ field: 'itemData.onchainId', message: expect.stringContaining('holds no initialized nonce') });
    const unverified = await call('POST', '/api/v1/accounts', {
      itemData: {
        managed: false,
        alreadyOnchain: true,
        onchainId: nonce.address,
        offchainReferences: { type: 'NONCE' },
        skipBlockchainExistenceVerification: true,
      },
    });
    expect(unverified.body.errors[0]).toMatchObject({ field: 'itemData.skipBlockchainExistenceVerification' });
    expect((await call('POST', '/api/v1/durable-nonce-accounts/bulk', { itemQuery: {} })).body.count).toBe(0);
  });

  it('is listed by Fetch Durable Nonce Accounts with its authority and nonce, and serves a DURABLE_NONCE write', async () => {
    onboarded = await account({ managed: false, alreadyOnchain: true, onchainId: nonce.address, offchainReferences: { type: 'NONCE', code: 'OUTSIDE' } });
    const listed = await call('POST', '/api/v1/durable-nonce-accounts/bulk', { itemQuery: {} });
    expect(listed.body.count).toBe(1);
    const before = await onchainNonce(nonce.address);
    expect(listed.body.items[0]).toMatchObject({
      nonceAccount: { onchain: { id: nonce.address }, offchain: { id: onboarded.offchainId } },
      nonceAuthority: { onchain: { id: authority.onchainId } },
      nonceHash: before,
      inUse: null,
    });

    const sent = await transfer(authority, { svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE' } });
    expect(sent.body).toMatchObject({ success: true });
    const message = messageOf(sent.body.serializedMessage);
    expect(message.lifetimeToken).toBe(before);
    expect(message.staticAccounts.map(String)).toContain(nonce.address);
    const after = (await call('POST', '/api/v1/durable-nonce-accounts/single', { itemData: { nonceAccount: { onchainId: nonce.address } } })).body;
    expect(after).toMatchObject({ inUse: null, nonceHash: await onchainNonce(nonce.address) });
    expect(after.nonceHash).not.toBe(before);
  });

  it('is on record: a nonceAccount naming it with alreadyOnchain is 409', async () => {
    const again = await call('POST', '/api/v1/durable-nonce-accounts', {
      itemData: {
        nonceAccount: { alreadyOnchain: true, onchainId: nonce.address },
        numberOfNonceAccounts: 1,
        nonceAuthority: { offchainId: authority.offchainId },
      },
    });
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'itemData.nonceAccount.onchainId' });
  });
});

describe('a lookup table made outside the API, onboarded with Create Account', () => {
  it('is listed by Fetch Address Lookup Tables with its authority and addresses, and compresses the next write', async () => {
    // A DURABLE_NONCE transfer's non-signers besides its nonce account (which stays static): the
    // destination and the RecentBlockhashes sysvar. Two addresses, so the compressed message is the smaller.
    const receiver = await account({ managed: true });
    const compressible = [receiver.onchainId, 'SysvarRecentB1ockHashes11111111111111111111'];
    const recentSlot = await rpc.getSlot({ commitment: 'finalized' }).send();
    const create = await getCreateLookupTableInstructionAsync({ authority: outsideSender.payer.address, payer: outsideSender.payer, recentSlot });
    const table = create.accounts[0].address;
    await outsideSender.send([
      create,
      getExtendLookupTableInstruction({
        address: table,
        authority: outsideSender.payer,
        payer: outsideSender.payer,
        addresses: compressible.map((a) => address(a)),
      }),
    ]);
    // The extension is usable once a later slot is past (the network refuses a table's addresses in the slot they were added).
    const extendedAt = (await fetchAddressLookupTable(rpc, table, { commitment: 'confirmed' })).data.lastExtendedSlot;
    await waitFor(async () => (await rpc.getSlot({ commitment: 'confirmed' }).send()) > extendedAt + 2n);

    // The authority known by address, so the table's record links it.
    const tableAuthority = await account({ managed: false, alreadyOnchain: true, onchainId: outsideSender.payer.address });
    const onboarded = await account({
      managed: false,
      alreadyOnchain: true,
      onchainId: table,
      offchainReferences: { type: 'ADDRESS_LOOKUP_TABLE', code: 'OUTSIDE' },
    });
    const listed = await call('POST', '/api/v1/address-lookup-tables/bulk', { itemQuery: {} });
    expect(listed.body.count).toBe(1);
    expect(listed.body.items[0]).toMatchObject({
      offchain: { id: onboarded.offchainId },
      onchain: { id: table },
      authority: { onchain: { id: tableAuthority.onchainId }, offchain: { id: tableAuthority.offchainId } },
      managed: false,
      wasAlreadyOnchain: true,
    });
    expect(listed.body.items[0].componentAddresses.map((c: { onchain: { id: string } }) => c.onchain.id)).toEqual(compressible);

    const sent = await transfer(receiver, { svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE' } });
    expect(sent.body).toMatchObject({ success: true });
    const message = messageOf(sent.body.serializedMessage);
    const lookups = 'addressTableLookups' in message ? (message.addressTableLookups ?? []) : [];
    expect(lookups.map((l) => String(l.lookupTableAddress))).toEqual([table]);
    for (const a of compressible) expect(message.staticAccounts.map(String)).not.toContain(a);

    const twice = await call('POST', '/api/v1/address-lookup-tables', {
      itemData: { addressLookupTable: { alreadyOnchain: true, onchainId: table }, authority: { offchainId: tableAuthority.offchainId } },
    });
    expect(twice.status).toBe(409);
  });
});

describe('account payloads inside other operations (spec 2.3)', () => {
  it('Create Durable Nonce Accounts takes managed: true and refuses managed: false naming it', async () => {
    const create = (nonceAccount: Record<string, unknown>) =>
      call('POST', '/api/v1/durable-nonce-accounts', {
        itemData: { nonceAccount, numberOfNonceAccounts: 1, nonceAuthority: { offchainId: authority.offchainId } },
      });
    const created = await create({ managed: true, dataLength: 80, offchainReferences: { type: 'NONCE' } });
    expect(created.status).toBe(201);
    const refused = await create({ managed: false });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'itemData.nonceAccount.managed', message: expect.stringContaining('generated keys') });
  });

  it('Create Address Lookup Table takes managed: true and refuses a label its record does not keep', async () => {
    const create = (addressLookupTable: Record<string, unknown>) =>
      call('POST', '/api/v1/address-lookup-tables', {
        itemData: { addressLookupTable, authority: { offchainId: authority.offchainId }, componentAddresses: [] },
      });
    const created = await create({ managed: true, offchainReferences: { code: 'MANAGED' } });
    expect(created.status).toBe(201);
    const refused = await create({ managed: true, offchainReferences: { accountNumber: '42' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'itemData.addressLookupTable.offchainReferences.accountNumber' });
  });

  it('Create Onchain Data Source takes managed: true (the lookup answers next) and refuses managed: false naming it', async () => {
    const create = (onchainDataSource: Record<string, unknown>) =>
      call('POST', '/api/v1/market-data/onchain-data-source', {
        itemData: {
          defiProtocol: 'LEDGER_FEED',
          onchainDataSource,
          financialInstrument: { offchainId: '00000000-0000-4000-8000-000000000000' },
          onchainDataSourceAuthority: { offchainId: authority.offchainId },
          dataDetails: { kind: 'PRICE' },
          providerDetails: { kind: 'QUOTES', jobDefinition: '{"tasks": [{"valueTask": {"big": "1"}}]}' },
        },
      });
    const managed = await create({ managed: true });
    expect(managed.status).toBe(404);
    expect(managed.body.errors[0].field).toBe('itemData.financialInstrument');
    const refused = await create({ managed: false });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'itemData.onchainDataSource.managed' });
  });
});
