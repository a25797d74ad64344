/** Create Financial Instrument on the local node: SPL, and Token-2022 with its extensions, decoded from the chain. */
import { address, createKeyPairFromBytes, createSolanaRpc, getBase58Encoder, signBytes } from '@solana/kit';
import { fetchMint as fetchSplMint } from '@solana-program/token';
import { fetchMint } from '@solana-program/token-2022';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../support/stack';
import { forkEm } from '../../src/main/runtime';
import { FinancialInstrument } from '../../src/db/entities';
import { confidentialSupplyKeys, supplySecretKeys } from '../../src/custody/confidential-supply-keys';

let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc>;
let authority: { onchainId: string; offchainId: string };
let token2022Mint: string;
let splMint: string;
beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(stack.node.url);
  const created = await stack.call('POST', '/api/v1/accounts', {
    itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY', code: 'AUTH' }, seed: { amount: 0.01 } },
  });
  authority = created.body.newAccount;
});
afterAll(async () => {
  await stack?.close();
});

const createInstrument = (itemData: unknown) => stack.call('POST', '/api/v1/financial-instruments', { itemData });

it('creates an SPL mint with its authorities and a generated AL ID', async () => {
  const created = await createInstrument({
    version: 'SPL',
    onchainData: { decimals: 6 },
    mintAuthority: { offchainId: authority.offchainId },
    freezeAuthority: { onchainId: authority.onchainId },
    mintAccount: { offchainReferences: { type: 'ASSET_TOKEN', newAlId: { financialInstrumentType: 'CORPORATE_BOND' }, name: 'Acme 2031' } },
    offchainData: { description: 'Senior notes' },
  });
  expect(created.status).toBe(201);
  expect(created.body.svmTransaction).toMatchObject({ success: true, status: 'CONFIRMED' });
  splMint = created.body.newFinancialInstrument.onchainId;
  const mint = await fetchSplMint(rpc, address(created.body.newFinancialInstrument.onchainId));
  expect(mint.data).toMatchObject({ decimals: 6, supply: 0n, isInitialized: true });
  expect(mint.data.mintAuthority).toEqual({ __option: 'Some', value: authority.onchainId });
  expect(mint.data.freezeAuthority).toEqual({ __option: 'Some', value: authority.onchainId });

  const details = await stack.call('POST', '/api/v1/financial-instruments/single', {
    itemData: { financialInstrument: { offchainId: created.body.newFinancialInstrument.offchainId } },
  });
  expect(details.body).toMatchObject({
    version: 'SPL',
    offchain: { alId: expect.stringMatching(/^ALFICBD\d{8}$/), financialInstrumentType: 'CORPORATE_BOND' },
    onchainData: { decimals: 6 },
    offchainData: { description: 'Senior notes' },
    mintAuthority: { onchain: { id: authority.onchainId }, offchain: { id: authority.offchainId }, managed: true },
    mintAccount: { onchain: { id: created.body.newFinancialInstrument.onchainId }, offchain: { type: 'ASSET_TOKEN', name: 'Acme 2031' }, managed: true },
    extensions: [],
  });
});

it('creates a Token-2022 mint with metadata and every extension it configures, each decoded from the chain', async () => {
  const byAuthority = { offchainId: authority.offchainId };
  const created = await createInstrument({
    version: 'TOKEN_2022',
    onchainData: { decimals: 2, name: 'Muni Bond 2031', symbol: 'MB31', uri: 'https://example.com/mb31.json', simpleCustomMetadata: { cusip: '123456AB7' } },
    mintAuthority: byAuthority,
    updateAuthority: byAuthority,
    freezeAuthority: byAuthority,
    permanentDelegateAuthority: byAuthority,
    closingAuthority: byAuthority,
    pausableAuthority: byAuthority,
    paused: true,
    scaledUiAmountAuthority: byAuthority,
    scaledUiAmountMultiplier: 1.5,
    defaultPositionState: 'FROZEN',
    transferHookAuthority: byAuthority,
    transferHookProgram: { onchainId: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', offPlatform: true },
    confidentialTransferAuthority: byAuthority,
    mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'MUNI_BOND' } } },
  });
  expect(created.status).toBe(201);
  expect(created.body.svmTransaction).toMatchObject({ success: true });
  token2022Mint = created.body.newFinancialInstrument.onchainId;
  const mint = await fetchMint(rpc, address(created.body.newFinancialInstrument.onchainId));
  expect(mint.data.decimals).toBe(2);
  const extensions = mint.data.extensions.__option === 'Some' ? mint.data.extensions.value : [];
  const byKind = Object.fromEntries(extensions.map((e) => [e.__kind, e]));
  expect(byKind.MetadataPointer).toMatchObject({ metadataAddress: { __option: 'Some', value: created.body.newFinancialInstrument.onchainId } });
  expect(byKind.TokenMetadata).toMatchObject({ name: 'Muni Bond 2031', symbol: 'MB31', uri: 'https://example.com/mb31.json' });
  expect([...(byKind.TokenMetadata as any).additionalMetadata.entries()]).toEqual([['cusip', '123456AB7']]);
  expect(byKind.PermanentDelegate).toMatchObject({ delegate: authority.onchainId });
  expect(byKind.MintCloseAuthority).toMatchObject({ closeAuthority: authority.onchainId });
  expect(byKind.PausableConfig).toMatchObject({ paused: true });
  expect(byKind.ScaledUiAmountConfig).toMatchObject({ multiplier: 1.5 });
  expect(byKind.DefaultAccountState).toMatchObject({ state: 2 });
  expect(byKind.TransferHook).toMatchObject({ authority: authority.onchainId, programId: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' });
  expect(byKind.ConfidentialTransferMint).toMatchObject({ authority: { __option: 'Some', value: authority.onchainId }, autoApproveNewAccounts: false });

  // The record matches the chain, and the calculator predicted the size the chain holds.
  const details = await stack.call('POST', '/api/v1/financial-instruments/single', {
    itemData: { financialInstrument: { onchainId: created.body.newFinancialInstrument.onchainId } },
  });
  expect(details.body).toMatchObject({
    paused: true,
    scaledUiAmountMultiplier: 1.5,
    defaultPositionState: 'FROZEN',
    offchain: { alId: expect.stringMatching(/^ALFIMBD\d{8}$/) },
  });
  const account = (await rpc.getAccountInfo(address(created.body.newFinancialInstrument.onchainId), { encoding: 'base64' }).send()).value!;
  const calculated = await stack.call('POST', '/api/v1/financial-instruments/token-extensions-calculator', {
    extensions: details.body.extensions,
    metadata: { name: 'Muni Bond 2031', symbol: 'MB31', uri: 'https://example.com/mb31.json', simpleCustomMetadata: { cusip: '123456AB7' } },
  });
  expect(Buffer.from(account.data[0], 'base64').length).toBe(calculated.body.mintAccountSize);
});

it('answers 400 TRANSACTION_TOO_LARGE naming the workarounds when the creation does not fit one transaction, and writes nothing', async () => {
  const byAuthority = { offchainId: authority.offchainId };
  const before = (await stack.call('POST', '/api/v1/financial-instruments/bulk/identifiers', {})).body.count;
  const tooLarge = await createInstrument({
    version: 'TOKEN_2022',
    onchainData: {
      decimals: 2,
      name: 'N'.repeat(32),
      symbol: 'S'.repeat(10),
      uri: `https://example.com/${'u'.repeat(150)}`,
      simpleCustomMetadata: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`field${i}`, 'v'.repeat(40)])),
    },
    mintAuthority: byAuthority,
    permanentDelegateAuthority: byAuthority,
    closingAuthority: byAuthority,
    pausableAuthority: byAuthority,
    mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'ETF' } } },
  });
  expect(tooLarge.status).toBe(400);
  expect(tooLarge.body.errors[0]).toMatchObject({ code: 'TRANSACTION_TOO_LARGE', message: expect.stringContaining('Update Financial Instrument') });
  expect(tooLarge.body.errors[0].message).toContain('existingMintAccount');
  expect((await stack.call('POST', '/api/v1/financial-instruments/bulk/identifiers', {})).body.count).toBe(before);
});

it('answers 404 for an authority that does not exist and 409 for an AL ID already taken, naming the field', async () => {
  const missing = await createInstrument({
    version: 'SPL',
    onchainData: { decimals: 0 },
    mintAuthority: { offchainId: '00000000-0000-4000-8000-000000000000' },
    mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
  });
  expect(missing.status).toBe(404);
  expect(missing.body.errors[0].field).toBe('itemData.mintAuthority');
  const taken = (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: splMint } } })).body.offchain
    .alId;
  const duplicate = await createInstrument({
    version: 'SPL',
    onchainData: { decimals: 0 },
    mintAuthority: { offchainId: authority.offchainId },
    mintAccount: { offchainReferences: { alId: taken } },
  });
  expect(duplicate.status).toBe(409);
  expect(duplicate.body.errors[0].field).toBe('itemData.mintAccount.offchainReferences.alId');
});

it('refuses Token-2022-only fields on an SPL instrument and a category that does not fit its reference type, naming the field', async () => {
  const spl = await createInstrument({
    version: 'SPL',
    onchainData: { decimals: 0 },
    mintAuthority: { offchainId: authority.offchainId },
    permanentDelegateAuthority: { offchainId: authority.offchainId },
  });
  expect(spl.status).toBe(400);
  expect(spl.body.errors[0].field).toBe('itemData.permanentDelegateAuthority');
  const pair = await createInstrument({
    version: 'SPL',
    onchainData: { decimals: 0 },
    mintAuthority: { offchainId: authority.offchainId },
    mintAccount: { offchainReferences: { type: 'ASSET_TOKEN', newAlId: { financialInstrumentType: 'STABLECOIN' } } },
  });
  expect(pair.status).toBe(400);
  expect(pair.body.errors[0].field).toBe('itemData.mintAccount.offchainReferences.type');
});

describe('Fetch Financial Instruments', () => {
  const fetchInstruments = (level: string, itemQuery: unknown) => stack.call('POST', `/api/v1/financial-instruments/bulk/${level}`, { itemQuery });
  const eq = (fieldName: string, value: Record<string, unknown>) => ({ fieldName, filterValues: [{ filterType: 'EQUALS', ...value }] });

  it('sorts by version (TOKEN_2022 first) and filters by version, paused and authorities (spellings as the spec gives them)', async () => {
    const all = await fetchInstruments('compact', {});
    expect(all.body.count).toBe(2);
    expect(all.body.items.map((i: any) => i.version)).toEqual(['TOKEN_2022', 'SPL']);
    expect((await fetchInstruments('identifiers', { filter: [eq('version', { valueString: 'SPL' })] })).body.count).toBe(1);
    expect(
      (await fetchInstruments('identifiers', { filter: [eq('mintAuthorityOnchainId', { dataType: 'ONCHAIN_ADDRESS_ID', valueString: authority.onchainId })] }))
        .body.count,
    ).toBe(2);
    // Only the Token-2022 mint has an update authority (its metadata's); an SPL mint has none onchain.
    expect(
      (await fetchInstruments('identifiers', { filter: [eq('udpateAuthorityOffchainId', { dataType: 'OFFCHAIN_ID', valueString: authority.offchainId })] }))
        .body.count,
    ).toBe(1);
    expect(
      (await fetchInstruments('identifiers', { filter: [eq('permanentDelegateAuthorityOnchainId', { valueString: authority.onchainId })] })).body.count,
    ).toBe(1);
    const noDelegate = await fetchInstruments('compact', {
      filter: [{ fieldName: 'permanentDelegateAuthorityOnchainId', filterValues: [{ filterType: 'IS_NULL' }] }],
    });
    expect(noDelegate.body.items.map((i: any) => i.version)).toEqual(['SPL']);
    const paused = await fetchInstruments('detailed', { filter: [eq('paused', { valueBoolean: true })] });
    expect(paused.body.items.map((i: any) => i.onchainData.symbol)).toEqual(['MB31']);
    expect((await fetchInstruments('identifiers', { filter: [{ fieldName: 'paused', filterValues: [{ filterType: 'IS_NULL' }] }] })).body.count).toBe(1);
  });

  it('gives the mint account and the mint and update authorities as account records at the detailed level', async () => {
    const detailed = (await fetchInstruments('detailed', {})).body.items;
    for (const item of detailed) {
      expect(item.mintAccount).toMatchObject({ onchain: { id: item.onchain.id }, offchain: { balance: { lamports: expect.any(Number) } }, managed: true });
      expect(item.mintAuthority).toMatchObject({
        onchain: { id: authority.onchainId },
        offchain: { id: authority.offchainId, type: 'TOKEN_MANAGEMENT_AUTHORITY' },
        managed: true,
      });
      // An SPL mint has no update authority onchain.
      if (item.version === 'TOKEN_2022') expect(item.updateAuthority).toMatchObject({ onchain: { id: authority.onchainId }, managed: true });
      else expect(item.updateAuthority).toBeNull();
    }
    expect(detailed[0].permanentDelegateAuthority).toMatchObject({
      onchain: { id: authority.onchainId },
      offchain: { id: authority.offchainId },
      managed: true,
      tenantOrganizationId: expect.any(String),
    });
  });
});

describe('Pause / Unpause and the circulating supply', () => {
  const pausedOnChain = async () => {
    const mint = await fetchMint(rpc, address(token2022Mint));
    const extensions = mint.data.extensions.__option === 'Some' ? mint.data.extensions.value : [];
    return (extensions.find((e) => e.__kind === 'PausableConfig') as { paused: boolean }).paused;
  };
  const details = async () =>
    (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: token2022Mint } } })).body;

  it('unpauses and pauses on the chain and in the record, and refuses a move to the state it is in', async () => {
    const unpaused = await stack.call('PATCH', '/api/v1/financial-instruments/unpause', { itemData: { financialInstrument: { onchainId: token2022Mint } } });
    expect(unpaused.status).toBe(200);
    expect(unpaused.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect(await pausedOnChain()).toBe(false);
    expect((await details()).paused).toBe(false);
    const again = await stack.call('PATCH', '/api/v1/financial-instruments/unpause', { itemData: { financialInstrument: { onchainId: token2022Mint } } });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({ field: 'itemData.financialInstrument', message: expect.stringContaining('already unpaused') });
    const paused = await stack.call('PATCH', '/api/v1/financial-instruments/pause', { itemData: { financialInstrument: { onchainId: token2022Mint } } });
    expect(paused.body).toMatchObject({ success: true });
    expect(await pausedOnChain()).toBe(true);
    expect((await details()).paused).toBe(true);
  });

  it('refuses to pause an SPL instrument', async () => {
    const refused = await stack.call('PATCH', '/api/v1/financial-instruments/pause', { itemData: { financialInstrument: { onchainId: splMint } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.financialInstrument');
  });

  it('reads the circulating supply from the chain, with the UI amount where Scaled UI Amount applies', async () => {
    const spl = await stack.call('POST', '/api/v1/financial-instruments/circulating-supply', { itemData: { financialInstrument: { onchainId: splMint } } });
    expect(spl.body).toMatchObject({ decimals: 6, circulatingSupply: { amount: 0, lamports: 0 }, uiAmount: null });
    const scaled = await stack.call('POST', '/api/v1/financial-instruments/circulating-supply', {
      itemData: { financialInstrument: { onchainId: token2022Mint } },
    });
    expect(scaled.body).toMatchObject({ decimals: 2, circulatingSupply: { amount: 0, lamports: 0 }, uiAmount: 0 });
  });
});

describe('Update Financial Instrument', () => {
  const update = (itemData: Record<string, unknown>) =>
    stack.call('PATCH', '/api/v1/financial-instruments', { itemData: { financialInstrument: { onchainId: token2022Mint }, ...itemData } });
  const onChain = async () => {
    const mint = await fetchMint(rpc, address(token2022Mint));
    const extensions = mint.data.extensions.__option === 'Some' ? mint.data.extensions.value : [];
    return Object.fromEntries(extensions.map((e) => [e.__kind, e])) as Record<string, any>;
  };

  it('writes metadata added and changed after creation, paying the rent the larger account needs', async () => {
    const updated = await update({ onchainData: { name: 'Muni Bond 2031 Series A', simpleCustomMetadata: { rating: 'AA+', cusip: '123456AB7' } } });
    expect(updated.status).toBe(200);
    expect(updated.body.svmTransaction).toMatchObject({ success: true });
    const metadata = (await onChain()).TokenMetadata;
    expect(metadata.name).toBe('Muni Bond 2031 Series A');
    expect(Object.fromEntries(metadata.additionalMetadata)).toEqual({ cusip: '123456AB7', rating: 'AA+' });
    const account = (await rpc.getAccountInfo(address(token2022Mint), { encoding: 'base64', commitment: 'confirmed' }).send()).value!;
    const size = Buffer.from(account.data[0], 'base64').length;
    expect(account.lamports).toBeGreaterThanOrEqual((128n + BigInt(size)) * 6960n);
    const details = (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: token2022Mint } } }))
      .body;
    expect(details.onchainData).toMatchObject({ name: 'Muni Bond 2031 Series A', symbol: 'MB31', simpleCustomMetadata: { cusip: '123456AB7', rating: 'AA+' } });
  });

  it('takes what the chain says into the record after every landed write', async () => {
    // Damage the record behind the service's back; the next landed write restores it from the chain.
    const em = forkEm(stack.runtime.orm);
    const record = await em.findOneOrFail(FinancialInstrument, { mintAddress: token2022Mint });
    const { permanentDelegateAuthority: _dropped, ...authorities } = record.authorities;
    Object.assign(record, { paused: null, extensions: record.extensions.filter((e) => e !== 'PERMANENT_DELEGATE'), authorities, symbol: 'WRONG' });
    await em.flush();
    const updated = await update({ onchainData: { simpleCustomMetadata: { sector: 'munis' } } });
    expect(updated.body.svmTransaction).toMatchObject({ success: true });
    const details = (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: token2022Mint } } }))
      .body;
    expect(details).toMatchObject({
      paused: true,
      onchainData: { symbol: 'MB31', simpleCustomMetadata: { sector: 'munis' } },
      permanentDelegateAuthority: { onchain: { id: authority.onchainId } },
    });
    expect(details.extensions).toEqual(expect.arrayContaining(['PAUSABLE', 'PERMANENT_DELEGATE', 'TOKEN_METADATA']));
  });

  it('changes the Scaled UI multiplier onchain and in the record', async () => {
    const updated = await update({ scaledUiAmountMultiplier: 2 });
    expect(updated.body.svmTransaction).toMatchObject({ success: true });
    expect((await onChain()).ScaledUiAmountConfig).toMatchObject({ newMultiplier: 2 });
    const details = (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: token2022Mint } } }))
      .body;
    expect(details.scaledUiAmountMultiplier).toBe(2);
  });

  it('records an offchain-only change without a network transaction', async () => {
    const updated = await update({ offchainData: { description: 'Series A of the 2031 muni bond' }, comments: 'reviewed' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ updatedFinancialInstrument: { onchainId: token2022Mint, offchainId: expect.any(String) }, svmTransaction: null });
    const details = (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: token2022Mint } } }))
      .body;
    expect(details).toMatchObject({ offchainData: { description: 'Series A of the 2031 muni bond' }, comments: 'reviewed' });
  });

  it('rotates authorities, signed by the current ones, onchain and in the record', async () => {
    const next = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } }))
      .body.newAccount;
    const spl = await stack.call('PATCH', '/api/v1/financial-instruments', {
      itemData: { financialInstrument: { onchainId: splMint }, mintAuthority: { offchainId: next.offchainId }, freezeAuthority: { onchainId: next.onchainId } },
    });
    expect(spl.body.svmTransaction).toMatchObject({ success: true });
    const splMintState = await fetchSplMint(rpc, address(splMint));
    expect(splMintState.data.mintAuthority).toEqual({ __option: 'Some', value: next.onchainId });
    expect(splMintState.data.freezeAuthority).toEqual({ __option: 'Some', value: next.onchainId });
    const splDetails = (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: splMint } } })).body;
    expect(splDetails.mintAuthority).toMatchObject({ onchain: { id: next.onchainId }, offchain: { id: next.offchainId } });

    const rotated = await update({ updateAuthority: { offchainId: next.offchainId } });
    expect(rotated.body.svmTransaction).toMatchObject({ success: true });
    const chain = await onChain();
    expect(chain.TokenMetadata.updateAuthority).toEqual({ __option: 'Some', value: next.onchainId });
    expect(chain.MetadataPointer.authority).toEqual({ __option: 'Some', value: next.onchainId });
    // The new update authority signs the next metadata change.
    expect((await update({ onchainData: { uri: 'https://example.com/mb31-v2.json' } })).body.svmTransaction).toMatchObject({ success: true });
    expect((await onChain()).TokenMetadata.uri).toBe('https://example.com/mb31-v2.json');

    const refused = await stack.call('PATCH', '/api/v1/financial-instruments', {
      itemData: { financialInstrument: { onchainId: splMint }, closingAuthority: { offchainId: next.offchainId } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.closingAuthority');
  });

  it('refuses what cannot change, naming the field', async () => {
    expect((await update({ onchainData: { decimals: 4 } })).body.errors[0].field).toBe('itemData.onchainData.decimals');
    expect((await update({ confidentialMintBurnAuthority: { offchainId: authority.offchainId } })).body.errors[0].field).toBe(
      'itemData.confidentialMintBurnAuthority',
    );
    const spl = await stack.call('PATCH', '/api/v1/financial-instruments', {
      itemData: { financialInstrument: { onchainId: splMint }, onchainData: { name: 'x' } },
    });
    expect(spl.status).toBe(400);
    expect(spl.body.errors[0].field).toBe('itemData.onchainData');
  });
});

describe('Onboarding a mint that is already onchain', () => {
  let otherTenant: string;
  beforeAll(async () => {
    otherTenant = await stack.newApiKey(`onboarder-${Date.now()}`, ['READ', 'WRITE']);
  });
  const onboard = (itemData: Record<string, unknown>) =>
    stack.call('POST', '/api/v1/financial-instruments', { itemData: { alreadyOnChain: true, ...itemData } }, { apiKey: otherTenant });

  it("reads a Token-2022 mint's extensions, authorities and metadata from the chain into the record", async () => {
    const onboarded = await onboard({
      version: 'TOKEN_2022',
      onchainData: { decimals: 2 },
      existingMintAccount: { onchainId: token2022Mint, offPlatform: true },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'MUNI_BOND' } } },
    });
    expect(onboarded.status).toBe(201);
    expect(onboarded.body).toEqual({ newFinancialInstrument: { onchainId: token2022Mint, offchainId: expect.any(String) }, svmTransaction: null });
    const details = (
      await stack.call(
        'POST',
        '/api/v1/financial-instruments/single',
        { itemData: { financialInstrument: { onchainId: token2022Mint } } },
        { apiKey: otherTenant },
      )
    ).body;
    expect(details).toMatchObject({
      version: 'TOKEN_2022',
      managed: false,
      wasOnchainAlready: true,
      extensions: expect.arrayContaining([
        'METADATA_POINTER',
        'TOKEN_METADATA',
        'DEFAULT_ACCOUNT_STATE',
        'PERMANENT_DELEGATE',
        'CLOSE_MINT',
        'PAUSABLE',
        'SCALED_UI_AMOUNT',
      ]),
      onchainData: { decimals: 2, name: 'Muni Bond 2031 Series A', symbol: 'MB31', simpleCustomMetadata: { cusip: '123456AB7', rating: 'AA+' } },
      defaultPositionState: 'FROZEN',
      paused: true,
      scaledUiAmountMultiplier: 2,
      mintAuthority: { onchain: { id: authority.onchainId }, offchain: { id: null } },
      permanentDelegateAuthority: { onchain: { id: authority.onchainId } },
      mintAccount: { managed: false, wasOnchainAlready: true },
    });
  });

  it('reads an SPL mint, and refuses a second onboarding, an address that is not a mint and authorities given in the request, naming the field', async () => {
    const onboarded = await onboard({
      version: 'SPL',
      onchainData: { decimals: 6 },
      mintAccount: { onchainId: splMint, offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    });
    expect(onboarded.status).toBe(201);
    const again = await onboard({
      version: 'SPL',
      onchainData: { decimals: 6 },
      mintAccount: { onchainId: splMint, offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    });
    expect(again.status).toBe(409);
    const notAMint = await onboard({
      version: 'TOKEN_2022',
      onchainData: { decimals: 6 },
      existingMintAccount: { onchainId: authority.onchainId, offPlatform: true },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    });
    expect(notAMint.status).toBe(400);
    expect(notAMint.body.errors[0].field).toBe('itemData.existingMintAccount.onchainId');
    const authorityGiven = await onboard({
      version: 'SPL',
      onchainData: { decimals: 6 },
      mintAccount: { onchainId: splMint },
      mintAuthority: { offchainId: authority.offchainId },
    });
    expect(authorityGiven.status).toBe(400);
    expect(authorityGiven.body.errors[0].field).toBe('itemData.mintAuthority');
  });
});

describe('Close Financial Instrument', () => {
  it('closes a mint with zero supply, refunds its rent to the destination, and marks the records CLOSED', async () => {
    const balanceOf = async (offchainId: string) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } })).body;
    const before = await balanceOf(authority.offchainId);
    const rent = (await rpc.getBalance(address(token2022Mint), { commitment: 'confirmed' }).send()).value;
    const closed = await stack.call('PATCH', '/api/v1/financial-instruments/close', {
      itemData: { financialInstrument: { onchainId: token2022Mint }, refundDestination: { offchainId: authority.offchainId } },
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect((await rpc.getAccountInfo(address(token2022Mint), { encoding: 'base64', commitment: 'confirmed' }).send()).value).toBeNull();
    const after = await balanceOf(authority.offchainId);
    expect(BigInt(after.onchain.balance.lamports) - BigInt(before.onchain.balance.lamports)).toBe(rent);
    expect(after.offchain.balance).toEqual(after.onchain.balance);
    const details = (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: token2022Mint } } }))
      .body;
    expect(details.status).toBe('CLOSED');
    expect(details.mintAccount.status).toBe('CLOSED');
    const again = await stack.call('PATCH', '/api/v1/financial-instruments/close', { itemData: { financialInstrument: { onchainId: token2022Mint } } });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].message).toContain('already CLOSED');
  });

  it('refuses an instrument without a closing authority', async () => {
    const refused = await stack.call('PATCH', '/api/v1/financial-instruments/close', { itemData: { financialInstrument: { onchainId: splMint } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.financialInstrument');
  });
});

describe('The logo', () => {
  let server: http.Server;
  let base: string;
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else if (req.url === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else if (req.url === '/moved') res.writeHead(302, { location: '/logo.png' }).end();
      else if (req.url === '/huge.png') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100 * 1024));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  const withLogo = (copyFromUri: string) =>
    createInstrument({
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'NFT' } } },
      offchainData: { logo: { copyFromUri, fileName: 'logo.png', contentType: 'image/png', type: 'LOGO' } },
    });

  it('is copied into the service and served back with its content type', async () => {
    const created = await withLogo(`${base}/logo.png`);
    expect(created.status).toBe(201);
    const details = (
      await stack.call('POST', '/api/v1/financial-instruments/single', {
        itemData: { financialInstrument: { offchainId: created.body.newFinancialInstrument.offchainId } },
      })
    ).body;
    expect(details.offchainData.logo).toMatchObject({
      copyFromUri: `${base}/logo.png`,
      contentType: 'image/png',
      size: png.length,
      url: expect.stringMatching(/^\/api\/v1\/files\//),
    });
    const response = await fetch(stack.api.url + details.offchainData.logo.url, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(png);
    const otherTenant = await stack.newApiKey(`logo-${Date.now()}`, ['READ']);
    expect((await fetch(stack.api.url + details.offchainData.logo.url, { headers: { authorization: `Bearer ${otherTenant}` } })).status).toBe(404);
  });

  it.each([
    ['/page.html', 'text/html'],
    ['/moved', 'redirects'],
    ['/huge.png', 'bytes'],
    ['/missing.png', 'HTTP 404'],
  ])('refuses %s, naming the field, and creates nothing', async (path, reason) => {
    const before = (await stack.call('POST', '/api/v1/financial-instruments/bulk/identifiers', {})).body.count;
    const refused = await withLogo(`${base}${path}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'itemData.offchainData.logo.copyFromUri', message: expect.stringContaining(reason) });
    expect((await stack.call('POST', '/api/v1/financial-instruments/bulk/identifiers', {})).body.count).toBe(before);
  });
});

describe('The pre-created mint workaround (spec 8)', () => {
  it("initializes a Token-2022 mint in an account pre-created with Create Account at the calculator's size", async () => {
    const metadata = { name: 'Pre-created', symbol: 'PRE', uri: 'https://example.com/pre.json' };
    // The account is the mint without its metadata (the program grows it for metadata); the seed pays for the whole.
    const initial = (
      await stack.call('POST', '/api/v1/financial-instruments/token-extensions-calculator', {
        extensions: ['METADATA_POINTER', 'PERMANENT_DELEGATE', 'PAUSABLE'],
      })
    ).body;
    const full = (
      await stack.call('POST', '/api/v1/financial-instruments/token-extensions-calculator', { extensions: ['PERMANENT_DELEGATE', 'PAUSABLE'], metadata })
    ).body;
    const account = await stack.call('POST', '/api/v1/accounts', {
      itemData: {
        managed: true,
        dataLength: initial.mintAccountSize,
        seed: { lamports: full.estimatedRent.lamports },
        offchainReferences: { type: 'ASSET_TOKEN', code: 'PRE-MINT' },
      },
    });
    expect(account.status).toBe(201);
    const created = await createInstrument({
      version: 'TOKEN_2022',
      onchainData: { decimals: 4, ...metadata },
      existingMintAccount: { offchainId: account.body.newAccount.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'PRIVATE_FUND' } } },
      mintAuthority: { offchainId: authority.offchainId },
      permanentDelegateAuthority: { offchainId: authority.offchainId },
      pausableAuthority: { offchainId: authority.offchainId },
    });
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction).toMatchObject({ success: true });
    expect(created.body.newFinancialInstrument.onchainId).toBe(account.body.newAccount.onchainId);
    const mint = await fetchMint(rpc, address(account.body.newAccount.onchainId));
    const kinds = (mint.data.extensions.__option === 'Some' ? mint.data.extensions.value : []).map((e) => e.__kind);
    expect(kinds).toEqual(expect.arrayContaining(['PermanentDelegate', 'PausableConfig', 'MetadataPointer', 'TokenMetadata']));
    const data = (await rpc.getAccountInfo(address(account.body.newAccount.onchainId), { encoding: 'base64', commitment: 'confirmed' }).send()).value!;
    expect(Buffer.from(data.data[0], 'base64').length).toBe(full.mintAccountSize);
    const details = (
      await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: account.body.newAccount.onchainId } } })
    ).body;
    expect(details.mintAccount).toMatchObject({
      offchain: { id: account.body.newAccount.offchainId, code: 'PRE-MINT', type: 'ASSET_TOKEN', alId: details.offchain.alId },
    });
  });

  it('refuses an account too small for the mint, naming the field', async () => {
    const small = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, dataLength: 100, offchainReferences: { type: 'ASSET_TOKEN' } } });
    const refused = await createInstrument({
      version: 'TOKEN_2022',
      onchainData: { decimals: 0 },
      existingMintAccount: { offchainId: small.body.newAccount.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'ETF' } } },
      mintAuthority: { offchainId: authority.offchainId },
      permanentDelegateAuthority: { offchainId: authority.offchainId },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.existingMintAccount');
  });
});

describe('Confidential Mint and Burn', () => {
  it("initializes the extension with supply keys its authority's owner derives again from the exported key, and refuses it without Confidential Transfer or a held key", async () => {
    const created = await createInstrument({
      version: 'TOKEN_2022',
      onchainData: { decimals: 2 },
      mintAuthority: { offchainId: authority.offchainId },
      confidentialTransferAuthority: { offchainId: authority.offchainId },
      confidentialMintBurnAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { type: 'ASSET_TOKEN', newAlId: { financialInstrumentType: 'CORPORATE_BOND' } } },
    });
    expect(created.status).toBe(201);
    const mint = created.body.newFinancialInstrument.onchainId as string;
    const onchain = await fetchMint(rpc, address(mint));
    const extensions = onchain.data.extensions.__option === 'Some' ? onchain.data.extensions.value : [];
    const supply = extensions.find((e) => e.__kind === 'ConfidentialMintBurn');
    if (supply?.__kind !== 'ConfidentialMintBurn') throw new Error('no ConfidentialMintBurn extension on the mint');
    expect(extensions.map((e) => e.__kind)).toContain('ConfidentialTransferMint');

    // The authority's owner exports its key and derives the same supply keys: the encrypted supply reads 0.
    const exported = await stack.call('POST', '/api/v1/accounts/private-key', { itemData: { account: { offchainId: authority.offchainId } } });
    const keyPair = await createKeyPairFromBytes(getBase58Encoder().encode(exported.body.privateKey));
    const sign = (message: Uint8Array) => signBytes(keyPair.privateKey, message);
    expect(await confidentialSupplyKeys(sign, mint)).toMatchObject({ supplyElgamalPubkey: supply.supplyElgamalPubkey });
    const { aeKey } = await supplySecretKeys(sign, mint);
    const { AeCiphertext } = await import('solana-zk-sdk/node');
    expect(AeCiphertext.fromBytes(new Uint8Array(supply.decryptableSupply))!.decrypt(aeKey)).toBe(0n);

    const details = await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { onchainId: mint } } });
    expect(details.body.extensions).toEqual(expect.arrayContaining(['CONFIDENTIAL_TRANSFER', 'CONFIDENTIAL_MINT_BURN']));

    const withoutTransfer = await createInstrument({
      version: 'TOKEN_2022',
      onchainData: { decimals: 2 },
      mintAuthority: { offchainId: authority.offchainId },
      confidentialMintBurnAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { type: 'ASSET_TOKEN', newAlId: { financialInstrumentType: 'CORPORATE_BOND' } } },
    });
    expect(withoutTransfer.status).toBe(400);
    expect(withoutTransfer.body.errors[0].field).toBe('itemData.confidentialMintBurnAuthority');

    const offPlatform = await createInstrument({
      version: 'TOKEN_2022',
      onchainData: { decimals: 2 },
      mintAuthority: { offchainId: authority.offchainId },
      confidentialTransferAuthority: { offchainId: authority.offchainId },
      confidentialMintBurnAuthority: { onchainId: 'Vote111111111111111111111111111111111111111', offPlatform: true },
      mintAccount: { offchainReferences: { type: 'ASSET_TOKEN', newAlId: { financialInstrumentType: 'CORPORATE_BOND' } } },
    });
    expect(offPlatform.status).toBe(400);
    expect(offPlatform.body.errors[0].field).toBe('itemData.confidentialMintBurnAuthority');
  });
});
