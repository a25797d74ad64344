/**
 * Address lookup tables on the local node: create (create + extend transactions of one write),
 * extend, a trade too large without a table that lands through one, freeze, deactivate, the close
 * cool-down, the bulk filters and the details read. The records are compared with the chain.
 */
import { address, createSolanaRpc, generateKeyPairSigner, getBase64Encoder, getCompiledTransactionMessageDecoder, isSome } from '@solana/kit';
import { fetchAddressLookupTable, fetchMaybeAddressLookupTable } from '@solana-program/address-lookup-table';
import { startStack, type Stack } from '../support/stack';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc>;
let authority: Ref;

beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(stack.node.url);
  authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'WALLET' } } })).body.newAccount;
});
afterAll(async () => {
  await stack?.close();
});

const account = async () => (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount as Ref;
const offPlatform = async (count: number) =>
  Promise.all(Array.from({ length: count }, async () => ({ onchainId: (await generateKeyPairSigner()).address, offPlatform: true })));
const create = (componentAddresses: unknown[], extra: Record<string, unknown> = {}) =>
  stack.call('POST', '/api/v1/address-lookup-tables', {
    itemData: { addressLookupTable: { offchainReferences: { code: 'ALT' } }, authority: { offchainId: authority.offchainId }, componentAddresses, ...extra },
  });
const details = (table: Ref) =>
  stack.call('POST', '/api/v1/address-lookup-tables/single', { itemData: { addressLookupTable: { offchainId: table.offchainId } } });
const update = (table: Ref, change: Record<string, unknown>) =>
  stack.call('PATCH', '/api/v1/address-lookup-tables', { itemData: { addressLookupTable: { offchainId: table.offchainId }, ...change } });
const extend = (table: Ref, componentAddresses: unknown[]) =>
  stack.call('PATCH', '/api/v1/address-lookup-tables/extend', { itemData: { addressLookupTable: { onchainId: table.onchainId }, componentAddresses } });
const bulk = (filter: unknown[]) => stack.call('POST', '/api/v1/address-lookup-tables/bulk', { itemQuery: { filter } });
const where = (fieldName: string, value: Record<string, unknown>) => ({ fieldName, operator: 'AND', filterValues: [{ filterType: 'EQUALS', ...value }] });
const onchainAddresses = async (table: Ref) => (await fetchAddressLookupTable(rpc, address(table.onchainId))).data.addresses.map(String);

let big: Ref;
let bigAddresses: string[];

it('creates a table of 40 addresses in a create and an extend transaction; the record, the details and the chain agree', async () => {
  const owners = [await account(), await account()];
  const components = [...owners.map((o) => ({ offchainId: o.offchainId })), ...(await offPlatform(38))];
  const created = await create(components);
  expect(created.status).toBe(201);
  expect(created.body.svmTransaction).toMatchObject({ success: true });
  big = created.body.newAddressLookupTable;
  bigAddresses = [...owners.map((o) => o.onchainId), ...components.slice(2).map((c: any) => c.onchainId)];
  expect(await onchainAddresses(big)).toEqual(bigAddresses);
  const onchain = (await fetchAddressLookupTable(rpc, address(big.onchainId))).data;
  expect(isSome(onchain.authority) && onchain.authority.value).toBe(authority.onchainId);

  const read = await details(big);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({
    onchain: { id: big.onchainId },
    offchain: { id: big.offchainId, code: 'ALT' },
    authority: { onchain: { id: authority.onchainId }, offchain: { id: authority.offchainId }, managed: true },
    managed: true,
    wasAlreadyOnchain: false,
    frozen: false,
    deactivated: false,
    closed: false,
  });
  expect(read.body.componentAddresses.map((c: any) => c.onchain.id)).toEqual(bigAddresses);
  expect(read.body.componentAddresses[0].offchain.id).toBe(owners[0].offchainId);
  const listed = await bulk([where('authorityOffchainId', { dataType: 'OFFCHAIN_ID', valueString: authority.offchainId })]);
  expect(listed.body.items.find((t: any) => t.offchain.id === big.offchainId).componentAddresses.map((c: any) => c.onchain.id)).toEqual(bigAddresses);

  // The write was two network transactions, both on record.
  const txs = await stack.call('POST', '/api/v1/transactions/bulk/compact', {
    itemQuery: { filter: [where('operation', { dataType: 'TEXT', valueString: 'CREATE_ADDRESS_LOOKUP_TABLE' })] },
  });
  expect(txs.body.count).toBe(2);
});

it('extends a table with the addresses it does not hold yet, and refuses an extension that adds nothing', async () => {
  const added = await offPlatform(3);
  const extended = await extend(big, [{ onchainId: bigAddresses[0], offPlatform: true }, ...added]);
  expect(extended.status).toBe(200);
  expect(extended.body).toMatchObject({ extendedAddressLookupTable: big, svmTransaction: { success: true } });
  bigAddresses = [...bigAddresses, ...added.map((a) => a.onchainId)];
  expect(await onchainAddresses(big)).toEqual(bigAddresses);
  const again = await extend(big, added);
  expect(again.status).toBe(400);
  expect(again.body.errors[0].field).toBe('itemData.componentAddresses');
});

it('refuses a trade too large for one transaction naming the lookup table workaround, then lands it through a table holding its accounts', async () => {
  const mintAuthority = await account();
  const instrument = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 0 },
        mintAuthority: { offchainId: mintAuthority.offchainId },
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    })
  ).body.newFinancialInstrument.onchainId;
  const owners: Ref[] = [];
  const positions: string[] = [];
  for (let i = 0; i < 26; i++) {
    const owner = await account();
    const opened = await stack.call('POST', '/api/v1/positions', {
      itemData: { positionToInitialize: { owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: instrument } } },
    });
    expect(opened.status).toBe(201);
    owners.push(owner);
    positions.push(opened.body.newPosition.onchainId);
  }
  const trade = () =>
    stack.call('POST', '/api/v1/positions/trade', {
      itemData: {
        operations: owners.map((o) => ({
          mint: { mintTo: { owner: { offchainId: o.offchainId }, financialInstrument: { onchainId: instrument } }, value: { lamports: '1' } },
        })),
      },
    });
  const tooLarge = await trade();
  expect(tooLarge.status).toBe(400);
  expect(tooLarge.body.errors[0]).toMatchObject({ code: 'TRANSACTION_TOO_LARGE', message: expect.stringContaining('address lookup table') });

  const table = await create(positions.map((onchainId) => ({ onchainId, offPlatform: true })));
  expect(table.status).toBe(201);
  const landed = await trade();
  expect(landed.status).toBe(201);
  expect(landed.body).toMatchObject({ success: true });
  const message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(landed.body.serializedMessage));
  const lookups = 'addressTableLookups' in message ? (message.addressTableLookups ?? []) : [];
  expect(lookups.map((l) => String(l.lookupTableAddress))).toContain(table.body.newAddressLookupTable.onchainId);
  for (const owner of owners.slice(0, 3)) {
    const balance = (
      await stack.call('POST', '/api/v1/positions/balance', {
        itemData: { position: { owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: instrument } } },
      })
    ).body;
    expect(balance.onchain.balance.lamports).toBe(1);
    expect(balance.offchain.balance).toEqual(balance.onchain.balance);
  }
  const byComponent = await bulk([where('componentAddressOnchainId', { dataType: 'ONCHAIN_ADDRESS_ID', valueString: positions[5] })]);
  expect(byComponent.body.items.map((t: any) => t.offchain.id)).toEqual([table.body.newAddressLookupTable.offchainId]);
});

it('freezes a table for good: extending it is then refused before anything is signed', async () => {
  const frozen = await update(big, { freeze: true });
  expect(frozen.status).toBe(200);
  expect((await details(big)).body).toMatchObject({ frozen: true, deactivated: false, closed: false });
  const refused = await extend(big, await offPlatform(1));
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.addressLookupTable', message: expect.stringContaining('frozen') });
  expect(await onchainAddresses(big)).toEqual(bigAddresses);
  const deactivate = await update(big, { deactivate: true });
  expect(deactivate.status).toBe(400);
  const listed = await bulk([where('frozen', { dataType: 'BOOLEAN', valueBoolean: true })]);
  expect(listed.body.items.map((t: any) => t.offchain.id)).toEqual([big.offchainId]);
});

it('deactivates a table, refuses to close it before the cool-down, then closes it and refunds its lamports', async () => {
  const small = (await create(await offPlatform(2))).body.newAddressLookupTable as Ref;
  const refund = await account();
  const balance = async () =>
    BigInt((await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: refund.offchainId } } })).body.onchain.balance.lamports);
  const rent = (await rpc.getBalance(address(small.onchainId)).send()).value;
  expect(rent).toBeGreaterThan(0n);

  expect((await update(small, { close: true, refundDestination: { offchainId: refund.offchainId } })).body.errors[0]).toMatchObject({
    field: 'itemData.close',
    message: expect.stringContaining('deactivate'),
  });
  expect((await update(small, { deactivate: true })).status).toBe(200);
  expect((await details(small)).body).toMatchObject({ deactivated: true, closed: false });
  const early = await update(small, { close: true, refundDestination: { offchainId: refund.offchainId } });
  expect(early.status).toBe(400);
  expect(early.body.errors[0]).toMatchObject({ field: 'itemData.close', message: expect.stringContaining('cooled down') });

  const before = await balance();
  stack.node.advanceSlots(520);
  const closed = await update(small, { close: true, refundDestination: { offchainId: refund.offchainId } });
  expect(closed.status).toBe(200);
  expect(closed.body.svmTransaction).toMatchObject({ success: true });
  expect((await fetchMaybeAddressLookupTable(rpc, address(small.onchainId))).exists).toBe(false);
  expect(await balance()).toBe(before + rent);
  expect((await details(small)).body).toMatchObject({ deactivated: true, closed: true });
  const listed = await bulk([where('closed', { dataType: 'BOOLEAN', valueBoolean: true })]);
  expect(listed.body.items.map((t: any) => t.offchain.id)).toEqual([small.offchainId]);
});

it('answers a repeated create (same Idempotency-Key) with the first table and transaction, creating nothing more', async () => {
  const headers = { 'idempotency-key': `alt-${Date.now()}` };
  const body = { itemData: { addressLookupTable: {}, authority: { offchainId: authority.offchainId }, componentAddresses: await offPlatform(25) } };
  const first = await stack.call('POST', '/api/v1/address-lookup-tables', body, { headers });
  expect(first.status).toBe(201);
  const count = (await bulk([])).body.count;
  const again = await stack.call('POST', '/api/v1/address-lookup-tables', body, { headers });
  expect(again.status).toBe(201);
  expect(again.body.newAddressLookupTable).toEqual(first.body.newAddressLookupTable);
  expect(again.body.svmTransaction.offchainId).toBe(first.body.svmTransaction.offchainId);
  expect((await bulk([])).body.count).toBe(count);
  expect(await onchainAddresses(first.body.newAddressLookupTable)).toEqual(body.itemData.componentAddresses.map((c) => c.onchainId));
});

it('onboards an existing table with alreadyOnchain, as the network holds it, without a transaction', async () => {
  const other = await stack.newApiKey(`alt-other-${Date.now()}`, ['READ', 'WRITE']);
  const call = (method: string, url: string, body: unknown) => stack.call(method, url, body, { apiKey: other });
  // The other organization knows the authority only by address (its key is not theirs).
  const theirAuthority = (
    await call('POST', '/api/v1/accounts', {
      itemData: { managed: false, alreadyOnchain: true, onchainId: authority.onchainId, skipBlockchainExistenceVerification: true },
    })
  ).body.newAccount;
  const onboarded = await call('POST', '/api/v1/address-lookup-tables', {
    itemData: {
      addressLookupTable: { alreadyOnchain: true, onchainId: big.onchainId },
      authority: { offchainId: theirAuthority.offchainId },
      componentAddresses: [{ onchainId: bigAddresses[3], offPlatform: true }],
    },
  });
  expect(onboarded.status).toBe(201);
  expect(onboarded.body).toMatchObject({ newAddressLookupTable: { onchainId: big.onchainId }, svmTransaction: null });
  const read = await call('POST', '/api/v1/address-lookup-tables/single', { itemData: { addressLookupTable: { onchainId: big.onchainId } } });
  expect(read.body).toMatchObject({ wasAlreadyOnchain: true, managed: false, frozen: true });
  expect(read.body.componentAddresses.map((c: any) => c.onchain.id)).toEqual(bigAddresses);
  const listed = await call('POST', '/api/v1/address-lookup-tables/bulk', {
    itemQuery: { filter: [where('wasAlreadyOnchain', { dataType: 'BOOLEAN', valueBoolean: true })] },
  });
  expect(listed.body.count).toBe(1);
});

it('answers 404 for a table not on record, 409 for onboarding one already on record, and 400 for a non-managed authority', async () => {
  const missing = await stack.call('POST', '/api/v1/address-lookup-tables/single', {
    itemData: { addressLookupTable: { offchainId: '00000000-0000-4000-8000-000000000000' } },
  });
  expect(missing.status).toBe(404);
  expect(missing.body.errors[0].field).toBe('itemData.addressLookupTable');
  const again = await stack.call('POST', '/api/v1/address-lookup-tables', {
    itemData: { addressLookupTable: { alreadyOnchain: true, onchainId: big.onchainId }, authority: { offchainId: authority.offchainId } },
  });
  expect(again.status).toBe(409);
  const outsider = (
    await stack.call('POST', '/api/v1/accounts', {
      itemData: { managed: false, alreadyOnchain: true, onchainId: (await generateKeyPairSigner()).address, skipBlockchainExistenceVerification: true },
    })
  ).body.newAccount;
  const nonManaged = await stack.call('POST', '/api/v1/address-lookup-tables', {
    itemData: { addressLookupTable: {}, authority: { offchainId: outsider.offchainId }, componentAddresses: [] },
  });
  expect(nonManaged.status).toBe(400);
  expect(nonManaged.body.errors[0].field).toBe('itemData.authority');
});
