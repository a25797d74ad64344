/**
 * Issue 9 section 5: a field the service accepts acts, or is refused with 400 naming it. Over HTTP
 * through the real stack: the mint account payload of Create Financial Instrument, the compute
 * budget, the logo of Update Financial Instrument, a position lookup's authorities, the
 * Idempotency-Key header, and messages that never point to a route that is not mounted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createSolanaRpc, getBase64Encoder, getCompiledTransactionMessageDecoder, type Signature } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { withoutLiveState } from '../support/expectations';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc>;
let authority: Ref;
let stranger: Ref;
beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(stack.node.url);
  authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } })).body
    .newAccount;
  stranger = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
});
afterAll(async () => {
  await stack?.close();
});

const createInstrument = (itemData: Record<string, unknown>, svmTransactionConfig?: unknown) =>
  stack.call('POST', '/api/v1/financial-instruments', {
    itemData: { mintAuthority: { offchainId: authority.offchainId }, ...itemData },
    ...(svmTransactionConfig ? { svmTransactionConfig } : {}),
  });
const instrumentCount = async () => (await stack.call('POST', '/api/v1/financial-instruments/bulk/identifiers', {})).body.count as number;
const details = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId } } })).body;
const newAlId = { financialInstrumentType: 'STOCK' };

describe('Create Financial Instrument: mintAccount', () => {
  it.each([
    ['seed', { seed: { amount: 0.5 } }],
    // A negative amount never reaches the rule: the shape refuses it first, naming the amount.
    ['seed.amount', { seed: { amount: -1 } }],
    ['seed', { seed: { lamports: 5_000_000 } }],
    ['dataLength', { dataLength: 82 }],
    ['networkCurrencyDebitLimits', { networkCurrencyDebitLimits: [{ destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1 } }] }],
    ['tokenDebitLimits', { tokenDebitLimits: [] }],
    ['postTransactionSubmitWebhooks', { postTransactionSubmitWebhooks: [{ endpointUrl: 'https://hooks.example.com/mint' }] }],
    ['preTransactionSubmitWebhooks', { preTransactionSubmitWebhooks: [{ endpointUrl: 'https://hooks.example.com/mint' }] }],
    ['canPayFees', { canPayFees: true }],
    ['globalFeePayerForOrgs', { globalFeePayerForOrgs: ['acme'] }],
    ['shareAcrossTenants', { shareAcrossTenants: true }],
    ['skipBlockchainExistenceVerification', { skipBlockchainExistenceVerification: true }],
    ['alreadyOnchain', { alreadyOnchain: true }],
    ['tokenVersion', { tokenVersion: 'TOKEN_2022' }],
    ['privateKeyDetails.location', { privateKeyDetails: { location: ['SECRETS'] } }],
    ['privateKeyDetails.dkgKeys', { privateKeyDetails: { dkgKeys: [{ keyUsage: 'SIGNING' }] } }],
    ['onchainId', { onchainId: '4fo5ahGxbJqR4jDHWfdLZSQNDKGYUhBFTqjQL4GurEmJ' }],
  ])('refuses mintAccount.%s with 400 naming it, and creates nothing', async (field, extra) => {
    const before = await instrumentCount();
    const refused = await createInstrument({ version: 'SPL', onchainData: { decimals: 0 }, mintAccount: { offchainReferences: { newAlId }, ...extra } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: `itemData.mintAccount.${field}` });
    expect(await instrumentCount()).toBe(before);
  });

  it('points mintAccount.alreadyOnchain to itemData.alreadyOnChain, which onboards a mint', async () => {
    const refused = await createInstrument({
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAccount: { alreadyOnchain: true, offchainReferences: { newAlId } },
    });
    expect(refused.body.errors[0]).toMatchObject({ field: 'itemData.mintAccount.alreadyOnchain', message: expect.stringContaining('itemData.alreadyOnChain') });
  });

  it("keeps on the mint's account record what applies to it, with the default key location", async () => {
    const created = await createInstrument({
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAccount: {
        managed: true,
        tokenVersion: 'SPL',
        privateKeyDetails: { location: ['DATABASE'] },
        offchainReferences: { newAlId, code: 'MINT-1', name: 'The mint', accountNumber: 'ACC-9', organizationExternalId: 'ext-7' },
        comments: 'minted here',
        domain: 'mint.example.com',
        isDerived: true,
        subscribeToNetworkEvents: true,
        orgsAllowedToSignWithPrivateKey: ['partner'],
      },
    });
    expect(created.status).toBe(201);
    const mint = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { onchainId: created.body.newFinancialInstrument.onchainId } } });
    expect(mint.body).toMatchObject({
      offchain: { type: 'ASSET_TOKEN', code: 'MINT-1', name: 'The mint', accountNumber: 'ACC-9', organizationExternalId: 'ext-7' },
      managed: true,
      privateKeyLocation: ['DATABASE'],
      comments: 'minted here',
      domain: 'mint.example.com',
      isDerived: true,
      subscribeToNetworkEvents: true,
      orgsAllowedToSignWithPrivateKey: ['partner'],
      tokenVersion: 'SPL',
      canPayFees: false,
      networkCurrencyDebitLimits: null,
      postTransactionSubmitWebhooks: [],
    });
  });

  it('puts the labels of mintAccount.offchainReferences on a pre-created mint account, and refuses its other fields', async () => {
    const account = (
      await stack.call('POST', '/api/v1/accounts', {
        itemData: { managed: true, dataLength: 82, seed: { amount: 0.01 }, offchainReferences: { type: 'ASSET_TOKEN', code: 'OLD' } },
      })
    ).body.newAccount as Ref;
    const refused = await createInstrument({
      version: 'SPL',
      onchainData: { decimals: 0 },
      existingMintAccount: { offchainId: account.offchainId },
      mintAccount: { offchainReferences: { newAlId }, comments: 'x' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.mintAccount.comments');
    const created = await createInstrument({
      version: 'SPL',
      onchainData: { decimals: 0 },
      existingMintAccount: { offchainId: account.offchainId },
      mintAccount: { offchainReferences: { newAlId, code: 'NEW', name: 'Pre-created' } },
    });
    expect(created.status).toBe(201);
    const mint = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: account.offchainId } } });
    expect(mint.body.offchain).toMatchObject({ code: 'NEW', name: 'Pre-created' });
  });
});

describe('svmTransactionConfig.computeUnitConfig', () => {
  const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
  /** The compute budget instructions of a serialized message: [kind, value]. */
  const budgetOf = (serializedMessage: string) => {
    const message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(serializedMessage)) as unknown as {
      staticAccounts: string[];
      instructions: { programAddressIndex: number; data?: Uint8Array }[];
    };
    return message.instructions
      .filter((ix) => message.staticAccounts[ix.programAddressIndex] === COMPUTE_BUDGET)
      .map((ix) => {
        const data = Buffer.from(ix.data ?? []);
        return data[0] === 2 ? ['limit', data.readUInt32LE(1)] : data[0] === 3 ? ['price', Number(data.readBigUInt64LE(1))] : ['other', data[0]];
      });
  };
  const createAccount = (svmTransactionConfig: unknown) => stack.call('POST', '/api/v1/accounts', { itemData: { managed: true }, svmTransactionConfig });

  it('builds limit and price into the message (without enable), charges the price in the fee, and records them', async () => {
    const created = await createAccount({ computeUnitConfig: { limit: 100_000, price: 1_000_000 } });
    expect(created.status).toBe(201);
    expect(budgetOf(created.body.svmTransaction.serializedMessage)).toEqual([
      ['limit', 100_000],
      ['price', 1_000_000],
    ]);
    // Two signatures (fee payer, new account) plus 100,000 units at 1 lamport each.
    const landed = await rpc
      .getTransaction(created.body.svmTransaction.onchainId as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(landed?.meta?.fee).toBe(10_000n + 100_000n);
    expect((await details(created.body.svmTransaction.offchainId)).computeUnitConfig).toEqual({
      limit: 100_000,
      limitSource: 'GIVEN',
      simulatedUnits: null,
      price: '1000000',
      priceEstimate: null,
    });
  });

  it("records the price estimate's provider beside the price it used", async () => {
    const created = await createAccount({
      computeUnitConfig: { enable: true, priceEstimate: { provider: 'CLUSTER_RPC', calculationStrategy: 'DEFAULT', priorityLevel: 'HIGH' } },
    });
    expect(created.status).toBe(201);
    const recorded = (await details(created.body.svmTransaction.offchainId)).computeUnitConfig;
    // No limit given: simulated (test/e2e/compute-budget.test.ts checks the margin).
    expect(budgetOf(created.body.svmTransaction.serializedMessage)).toEqual([
      ['limit', recorded.limit],
      ['price', 0],
    ]);
    expect(recorded).toEqual({
      limit: expect.any(Number),
      limitSource: 'SIMULATED',
      simulatedUnits: expect.any(Number),
      price: '0',
      priceEstimate: { provider: 'CLUSTER_RPC', calculationStrategy: 'DEFAULT', priorityLevel: 'HIGH', source: 'CLUSTER_RPC' },
    });
    const plain = await createAccount({});
    expect(budgetOf(plain.body.svmTransaction.serializedMessage)).toEqual([]);
    expect((await details(plain.body.svmTransaction.offchainId)).computeUnitConfig).toBeNull();
  });

  it.each([
    ['limit', { enable: false, limit: 1000 }],
    ['price', { enable: false, price: 10 }],
    ['priceEstimate', { enable: false, priceEstimate: { priorityLevel: 'LOW' } }],
    ['priceEstimate.provider', { priceEstimate: { provider: 'HELIUS' } }],
    ['priceEstimate', { price: 10, priceEstimate: { priorityLevel: 'LOW' } }],
  ])('refuses what would be ignored, naming computeUnitConfig.%s', async (field, computeUnitConfig) => {
    const refused = await createAccount({ computeUnitConfig });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: `svmTransactionConfig.computeUnitConfig.${field}` });
  });
});

describe('Update Financial Instrument: the logo', () => {
  let server: http.Server;
  let base: string;
  const first = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const second = Buffer.from('89504e470d0a1a0a0000000d4948445200000002000000020806000000', 'hex');
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/first.png') res.writeHead(200, { 'content-type': 'image/png' }).end(first);
      else if (req.url === '/second.png' || req.url === '/second-again.png') res.writeHead(200, { 'content-type': 'image/png' }).end(second);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  const logoOf = async (offchainId: string) =>
    (await stack.call('POST', '/api/v1/financial-instruments/single', { itemData: { financialInstrument: { offchainId } } })).body.offchainData.logo;
  const served = async (url: string) => {
    const response = await fetch(stack.api.url + url, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
  };

  it('copies an updated logo and serves it from /files, keeps it when the patch has none or the same one', async () => {
    const created = await createInstrument({
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAccount: { offchainReferences: { newAlId } },
      offchainData: { logo: { copyFromUri: `${base}/first.png`, fileName: 'first.png' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.newFinancialInstrument.offchainId;
    const original = await logoOf(id);
    const update = (offchainData: Record<string, unknown>) =>
      stack.call('PATCH', '/api/v1/financial-instruments', { itemData: { financialInstrument: { offchainId: id }, offchainData } });

    const updated = await update({ logo: { copyFromUri: `${base}/second.png`, fileName: 'second.png', contentType: 'image/png', type: 'LOGO' } });
    expect(updated.status).toBe(200);
    const logo = await logoOf(id);
    expect(logo).toMatchObject({
      copyFromUri: `${base}/second.png`,
      fileName: 'second.png',
      contentType: 'image/png',
      size: second.length,
      url: expect.stringMatching(/^\/api\/v1\/files\//),
    });
    expect(logo.url).not.toBe(original.url);
    expect(await served(logo.url)).toEqual({ status: 200, type: 'image/png', bytes: second });
    // The first logo's file stays where it was.
    expect((await served(original.url)).bytes).toEqual(first);

    // A patch without a logo keeps it; the same logo (same bytes) again keeps its file and url.
    expect((await update({ description: 'no logo in this patch' })).status).toBe(200);
    expect(await logoOf(id)).toEqual(logo);
    expect((await update({ logo: { copyFromUri: `${base}/second-again.png`, fileName: 'second.png' } })).status).toBe(200);
    expect((await logoOf(id)).url).toBe(logo.url);

    const refused = await update({ logo: { copyFromUri: `${base}/missing.png` } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.offchainData.logo.copyFromUri');
    expect((await logoOf(id)).url).toBe(logo.url);
  });
});

describe('Position lookups: mintAuthority and freezeAuthority', () => {
  let mint: string;
  beforeAll(async () => {
    const byAuthority = { offchainId: authority.offchainId };
    const created = await createInstrument({
      version: 'TOKEN_2022',
      onchainData: { decimals: 2 },
      freezeAuthority: byAuthority,
      mintAccount: { offchainReferences: { newAlId } },
    });
    expect(created.status).toBe(201);
    mint = created.body.newFinancialInstrument.onchainId;
  });
  const owner = async () => (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount as Ref;
  const initialize = (who: Ref, extra: Record<string, unknown>) =>
    stack.call('POST', '/api/v1/positions', {
      itemData: { positionToInitialize: { owner: { offchainId: who.offchainId }, financialInstrument: { onchainId: mint }, ...extra } },
    });

  it("Initialize Position refuses a freeze or mint authority that is not the instrument's, naming it, and takes the right ones", async () => {
    const who = await owner();
    const wrongFreeze = await initialize(who, { freezeAuthority: { offchainId: stranger.offchainId } });
    expect(wrongFreeze.status).toBe(400);
    expect(wrongFreeze.body.errors[0]).toMatchObject({ code: 'FREEZE_AUTHORITY_NOT_FOUND', field: 'itemData.positionToInitialize.freezeAuthority' });
    const wrongMint = await initialize(who, { mintAuthority: { onchainId: stranger.onchainId } });
    expect(wrongMint.status).toBe(400);
    expect(wrongMint.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.positionToInitialize.mintAuthority' });
    const offPlatform = await initialize(who, { freezeAuthority: { onchainId: stranger.onchainId, offPlatform: true } });
    expect(offPlatform.status).toBe(400);
    expect(offPlatform.body.errors[0].field).toBe('itemData.positionToInitialize.freezeAuthority');
    const right = await initialize(who, { freezeAuthority: { onchainId: authority.onchainId }, mintAuthority: { offchainId: authority.offchainId } });
    expect(right.status).toBe(201);
    expect(right.body.svmTransaction).toMatchObject({ success: true });
  });

  it('a movement refuses a wrong freeze authority in its lookup even without a freeze option', async () => {
    const who = await owner();
    expect((await initialize(who, {})).status).toBe(201);
    const refused = await stack.call('POST', '/api/v1/positions/mint', {
      itemData: {
        mintTo: { owner: { offchainId: who.offchainId }, financialInstrument: { onchainId: mint }, freezeAuthority: { offchainId: stranger.offchainId } },
        value: { amount: 1 },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'FREEZE_AUTHORITY_NOT_FOUND', field: 'itemData.mintTo.freezeAuthority' });
    const read = await stack.call('POST', '/api/v1/positions/single', {
      itemData: {
        position: { owner: { offchainId: who.offchainId }, financialInstrument: { onchainId: mint }, mintAuthority: { offchainId: stranger.offchainId } },
      },
    });
    expect(read.status).toBe(400);
    expect(read.body.errors[0].field).toBe('itemData.position.mintAuthority');
  });
});

describe('The Idempotency-Key header', () => {
  const create = (headers: Record<string, string>) =>
    stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.001 } } }, { headers });

  it('makes a repeated create answer the first account (whatever x-request-id says), bare or quoted', async () => {
    const key = `key-${randomUUID()}`;
    const first = await create({ 'Idempotency-Key': key, 'x-request-id': randomUUID() });
    const again = await create({ 'Idempotency-Key': `"${key}"`, 'x-request-id': randomUUID() });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(withoutLiveState(again.body)).toEqual(withoutLiveState(first.body));
    expect((await details(first.body.svmTransaction.offchainId)).idempotencyId).toBe(key);
    const other = await create({ 'Idempotency-Key': `key-${randomUUID()}` });
    expect(other.body.newAccount.onchainId).not.toBe(first.body.newAccount.onchainId);
    // Another body under the same key is a conflict naming the header.
    const conflicting = await stack.call(
      'POST',
      '/api/v1/accounts',
      { itemData: { managed: true, seed: { amount: 0.002 } } },
      { headers: { 'Idempotency-Key': key } },
    );
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.errors[0].field).toBe('Idempotency-Key');
  });

  it('gives way to itemData.idempotencyId: the same value is one key, another is 400 naming the header', async () => {
    const source = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 1 } } })).body.newAccount as Ref;
    const idempotencyId = randomUUID();
    const transfer = (headers: Record<string, string>) =>
      stack.call(
        'POST',
        '/api/v1/accounts/transfer-network-currency',
        { itemData: { source: { offchainId: source.offchainId }, destination: { offchainId: stranger.offchainId }, value: { amount: 0.01 }, idempotencyId } },
        { headers },
      );
    const differs = await transfer({ 'Idempotency-Key': randomUUID() });
    expect(differs.status).toBe(400);
    expect(differs.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'Idempotency-Key' });
    const first = await transfer({ 'Idempotency-Key': idempotencyId });
    expect(first.status).toBe(201);
    expect(await transfer({})).toMatchObject({ status: 201, body: first.body });
  });

  it.each([
    ['201 characters', 'k'.repeat(201)],
    ['a space', 'two words'],
    ['an empty value', ''],
  ])('refuses a key of %s with 400 naming Idempotency-Key', async (_what, value) => {
    const refused = await create({ 'Idempotency-Key': value });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'Idempotency-Key' });
  });

  it('is documented on write routes', async () => {
    const doc = (await stack.call('GET', '/api/v1/openapi.json', undefined, { apiKey: null })).body;
    expect(doc.paths['/api/v1/accounts'].post.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
  });
});

describe('Messages about kinds Create Account does not create', () => {
  it('name the mounted operation that creates them', async () => {
    const table = await stack.call('POST', '/api/v1/accounts', { itemData: { offchainReferences: { type: 'ADDRESS_LOOKUP_TABLE' } } });
    expect(table.status).toBe(400);
    expect(table.body.errors[0].message).toContain('Create Address Lookup Table (POST /api/v1/address-lookup-tables)');
    expect(table.body.errors[0].message).not.toContain('not supported');
    // Nonce accounts have their own operation now, and Create Account names it.
    const nonce = await stack.call('POST', '/api/v1/accounts', { itemData: { offchainReferences: { type: 'NONCE' } } });
    expect(nonce.status).toBe(400);
    expect(nonce.body.errors[0].message).toContain('Create Durable Nonce Accounts (POST /api/v1/durable-nonce-accounts)');
    // The mounted routes exist: Initialize Position is named for token accounts.
    const token = await stack.call('POST', '/api/v1/accounts', { itemData: { offchainReferences: { type: 'ASSET_TOKEN_ACCOUNT' } } });
    expect(token.body.errors[0].message).toContain('Initialize Position');
  });
});

describe('Fields the sweep found without a test (test/unit/field-sweep.test.ts)', () => {
  it("Transfer Network Currency writes memo into the transaction with the Memo program, and the instrument's complexCustomMetadata comes back as given", async () => {
    const source = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.1 } } })).body.newAccount;
    const sent = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: source.offchainId }, destination: { offchainId: stranger.offchainId }, value: { amount: 0.01 }, memo: 'invoice 42' },
    });
    expect(sent.status).toBe(201);
    const landed = await rpc
      .getTransaction(sent.body.onchainId as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(landed?.meta?.logMessages?.join('\n')).toContain('invoice 42');

    const complexCustomMetadata = { coupons: [{ date: '2031-06-30', rate: 0.045 }], issuer: { lei: '5493001KJTIIGC8Y1R12' } };
    const created = await createInstrument({
      version: 'SPL',
      onchainData: { decimals: 2 },
      mintAccount: { offchainReferences: { newAlId } },
      offchainData: { complexCustomMetadata },
    });
    expect(created.status).toBe(201);
    const instrument = await stack.call('POST', '/api/v1/financial-instruments/single', {
      itemData: { financialInstrument: { offchainId: created.body.newFinancialInstrument.offchainId } },
    });
    expect(instrument.body.offchainData.complexCustomMetadata).toEqual(complexCustomMetadata);
  });
});
