/** Accounts through the real app: PostgreSQL, Temporal, the worker and the local SVM node over JSON-RPC. */
import {
  createSolanaRpc,
  devnet,
  address,
  generateKeyPair,
  getAddressFromPublicKey,
  lamports,
  createKeyPairFromPrivateKeyBytes,
  getBase58Decoder,
} from '@solana/kit';
import { randomBytes, randomUUID } from 'node:crypto';
import { startStack, type Stack } from '../support/stack';
import { withoutLiveState } from '../support/expectations';
import { waitFor } from '../support/wait';

let stack: Stack;
/** OPERATOR_ORGANIZATION: only its ADMIN keys may act inside another organization (docs/tenancy.md). */
const OPERATORS = `operators-${randomBytes(4).toString('hex')}`;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;
beforeAll(async () => {
  stack = await startStack({ operatorOrganization: OPERATORS });
  rpc = createSolanaRpc(devnet(stack.node.url));
});
afterAll(async () => {
  await stack?.close();
});

const create = (itemData: unknown, options?: Parameters<Stack['call']>[3]) => stack.call('POST', '/api/v1/accounts', { itemData }, options);

async function freshAddress(): Promise<string> {
  return getAddressFromPublicKey((await generateKeyPair()).publicKey);
}

async function onchainAccount(addr: string) {
  return (await rpc.getAccountInfo(address(addr), { encoding: 'base64', commitment: 'confirmed' }).send()).value;
}

describe('Create Account', () => {
  it('creates a managed, seeded account onchain and records it with every status change', async () => {
    const created = await create({
      managed: true,
      seed: { amount: 0.5 },
      offchainReferences: { type: 'WALLET', code: 'W-1', name: 'Treasury', accountNumber: 'AC-1' },
      comments: 'first',
      canPayFees: true,
      domain: 'treasury.example',
    });
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction).toMatchObject({ success: true, status: 'CONFIRMED', errorMessage: null });
    const { onchainId, offchainId } = created.body.newAccount;
    expect((await onchainAccount(onchainId))?.lamports).toBe(500_000_000n);

    const balance = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } });
    expect(balance.status).toBe(200);
    expect(balance.body.onchain.balance).toEqual({ amount: 0.5, lamports: 500_000_000 });
    expect(balance.body.offchain.balance).toEqual({ amount: 0.5, lamports: 500_000_000 });

    const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { onchainId } } });
    expect(details.body).toMatchObject({
      onchain: { id: onchainId, creationTransactionId: created.body.svmTransaction.onchainId, lastTransactionId: created.body.svmTransaction.onchainId },
      offchain: {
        id: offchainId,
        type: 'WALLET',
        code: 'W-1',
        name: 'Treasury',
        accountNumber: 'AC-1',
        balance: { amount: 0.5, lamports: 500_000_000 },
        tokenDecimals: 9,
      },
      managed: true,
      status: 'ACTIVE',
      privateKeyLocation: ['DATABASE'],
      comments: 'first',
      canPayFees: true,
      wasOnchainAlready: false,
      domain: 'treasury.example',
    });

    const status = await stack.call('POST', '/api/v1/transactions/status', {
      itemData: { transaction: { offchainId: created.body.svmTransaction.offchainId } },
    });
    expect(status.body.statusHistory.map((s: { status: string }) => s.status)).toEqual(['BUILT', 'SIGNED', 'SUBMITTED', 'CONFIRMED']);
    const byOnchainId = await stack.call('POST', '/api/v1/transactions/single', {
      itemData: { transaction: { onchainId: created.body.svmTransaction.onchainId } },
    });
    expect(byOnchainId.body).toMatchObject({
      offchainId: created.body.svmTransaction.offchainId,
      operation: 'CREATE_ACCOUNT',
      accountOffchainIds: [offchainId],
    });
  });

  it('reserves dataLength bytes and keeps the account rent-exempt (seed below the minimum is raised to it)', async () => {
    const created = await create({ managed: true, dataLength: 200, seed: { lamports: 1 } });
    expect(created.status).toBe(201);
    const account = await onchainAccount(created.body.newAccount.onchainId);
    const minimum = await rpc.getMinimumBalanceForRentExemption(200n).send();
    expect(Buffer.from(account!.data[0], 'base64').length).toBe(200);
    expect(account!.lamports).toBe(minimum);
  });

  it('onboards an account that is already onchain without a transaction', async () => {
    const addr = await freshAddress();
    await rpc.requestAirdrop(address(addr), lamports(2_000_000_000n)).send();
    await waitFor(async () => (await onchainAccount(addr)) !== null);
    const onboarded = await create({ managed: false, alreadyOnchain: true, onchainId: addr, offchainReferences: { type: 'CURRENCIES_WALLET' } });
    expect(onboarded.status).toBe(201);
    expect(onboarded.body).toEqual({ newAccount: { onchainId: addr, offchainId: expect.any(String) }, svmTransaction: null });
    const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { onchainId: addr } } });
    expect(details.body).toMatchObject({ managed: false, wasOnchainAlready: true, privateKeyLocation: [], onchain: { creationTransactionId: null } });
    const balance = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { onchainId: addr } } });
    expect(balance.body.onchain.balance.lamports).toBe(2_000_000_000);
    // The record starts at what the address holds.
    expect(balance.body.offchain.balance).toEqual(balance.body.onchain.balance);
  });

  it('refuses to onboard an address that does not exist, unless verification is skipped', async () => {
    const addr = await freshAddress();
    const refused = await create({ managed: false, alreadyOnchain: true, onchainId: addr });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.onchainId' });
    const skipped = await create({ managed: false, alreadyOnchain: true, onchainId: addr, skipBlockchainExistenceVerification: true });
    expect(skipped.status).toBe(201);
  });

  it('creates a non-managed account by funding its address', async () => {
    const addr = await freshAddress();
    const created = await create({ managed: false, onchainId: addr, seed: { amount: '0.25' } });
    expect(created.status).toBe(201);
    expect((await onchainAccount(addr))?.lamports).toBe(250_000_000n);
  });

  it("imports a private key: the account gets the key's address and the service can sign with it", async () => {
    const seed = randomBytes(32);
    const expected = await getAddressFromPublicKey((await createKeyPairFromPrivateKeyBytes(seed)).publicKey);
    const created = await create({
      managed: true,
      privateKeyDetails: { location: ['DATABASE'], privateKey: getBase58Decoder().decode(seed), publickKey: expected },
      seed: { amount: 0.01 },
    });
    expect(created.status).toBe(201);
    expect(created.body.newAccount.onchainId).toBe(expected);
    expect((await onchainAccount(expected))?.lamports).toBe(10_000_000n);
  });

  it('answers 409 when the account is already onboarded, and changes nothing', async () => {
    const addr = await freshAddress();
    expect((await create({ managed: false, alreadyOnchain: true, onchainId: addr, skipBlockchainExistenceVerification: true })).status).toBe(201);
    const again = await create({ managed: false, alreadyOnchain: true, onchainId: addr, skipBlockchainExistenceVerification: true });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('CONFLICT');
    const listed = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {
      itemQuery: { filter: [{ fieldName: 'wasAlreadyOnchain', filterValues: [{ filterType: 'EQUALS', valueBoolean: true }] }] },
    });
    expect(listed.body.items.filter((i: any) => i.onchain.id === addr)).toHaveLength(1);
  });

  it('lets only one of two racing creates of the same address reach the network (the other is 409)', async () => {
    const addr = await freshAddress();
    const [a, b] = await Promise.all([
      create({ managed: false, onchainId: addr, seed: { lamports: '3000000' } }, { headers: { 'x-request-id': randomUUID() } }),
      create({ managed: false, onchainId: addr, seed: { lamports: '3000000' } }, { headers: { 'x-request-id': randomUUID() } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    await waitFor(async () => (await onchainAccount(addr)) !== null);
    expect((await onchainAccount(addr))?.lamports).toBe(3_000_000n);
    const listed = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {});
    expect(listed.body.items.filter((i: any) => i.onchain.id === addr)).toHaveLength(1);
  });

  it('refuses a NUL character in any text before anything is written', async () => {
    const refused = await create({ managed: true, seed: { amount: 0.001 }, comments: 'bad\u0000text' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.comments' });
  });

  it('refuses kinds that have their own operation, pointing to it', async () => {
    const refused = await create({ managed: true, offchainReferences: { type: 'FUNDS_TOKEN_ACCOUNT' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.offchainReferences.type' });
    expect(refused.body.errors[0].message).toContain('Initialize Position');
  });

  it('makes a write happen once per idempotency key (x-request-id), also when the requests race', async () => {
    const requestId = randomUUID();
    const [a, b] = await Promise.all([
      create({ managed: true, seed: { amount: 0.001 } }, { headers: { 'x-request-id': requestId } }),
      create({ managed: true, seed: { amount: 0.001 } }, { headers: { 'x-request-id': requestId } }),
    ]);
    const c = await create({ managed: true, seed: { amount: 0.001 } }, { headers: { 'x-request-id': requestId } });
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(withoutLiveState(b.body)).toEqual(withoutLiveState(a.body));
    expect(withoutLiveState(c.body)).toEqual(withoutLiveState(a.body));
    expect(a.headers.get('x-request-id')).toBe(requestId);
    const transactions = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {
      itemQuery: { filter: [{ fieldName: 'idempotencyId', filterValues: [{ filterType: 'EQUALS', valueString: requestId }] }] },
    });
    expect(transactions.body.count).toBe(1);
  });

  it('answers 202 at once with Prefer: respond-async, and the status is then readable', async () => {
    const accepted = await create({ managed: true, seed: { amount: 0.001 } }, { headers: { prefer: 'respond-async' } });
    expect(accepted.status).toBe(202);
    expect(accepted.body.transaction).toEqual({ offchainId: expect.any(String), status: 'PENDING' });
    const offchainId = accepted.body.transaction.offchainId;
    const final = await waitFor(async () => {
      const s = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } });
      return s.body.status === 'CONFIRMED' ? s : undefined;
    });
    expect(final.body.statusHistory.map((s: { status: string }) => s.status)).toEqual(['PENDING', 'BUILT', 'SIGNED', 'SUBMITTED', 'CONFIRMED']);
  });

  it('ends an async write with nothing to send (an onboarding) FINALIZED, not PENDING', async () => {
    const accepted = await create(
      { managed: false, alreadyOnchain: true, onchainId: await freshAddress(), skipBlockchainExistenceVerification: true },
      { headers: { prefer: 'respond-async' } },
    );
    expect(accepted.status).toBe(202);
    const final = await waitFor(async () => {
      const s = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: accepted.body.transaction.offchainId } } });
      return s.body.status !== 'PENDING' ? s : undefined;
    });
    expect(final.body).toMatchObject({ status: 'FINALIZED', success: true });
  });

  it('records a refused async write as FAILED with the reason', async () => {
    const accepted = await create(
      { managed: true, seed: { amount: 0.001 }, privateKeyDetails: undefined, offchainReferences: { type: 'WALLET' } },
      { headers: { prefer: 'respond-async' } },
    );
    expect(accepted.status).toBe(202);
    const duplicateAddress = await freshAddress();
    await create({ managed: false, alreadyOnchain: true, onchainId: duplicateAddress, skipBlockchainExistenceVerification: true });
    const refused = await create(
      { managed: false, alreadyOnchain: true, onchainId: duplicateAddress, skipBlockchainExistenceVerification: true },
      { headers: { prefer: 'respond-async' } },
    );
    expect(refused.status).toBe(202);
    const final = await waitFor(async () => {
      const s = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: refused.body.transaction.offchainId } } });
      return s.body.status === 'FAILED' ? s : undefined;
    });
    expect(final.body).toMatchObject({ success: false, errorMessage: expect.stringContaining('already onboarded') });
  });
});

describe('Fetch Accounts', () => {
  let orgKey: string;
  beforeAll(async () => {
    // A tenant of its own, so the counts below are exact.
    orgKey = await stack.newApiKey(`fetch-${randomBytes(3).toString('hex')}`, ['READ', 'WRITE']);
    for (const [i, type] of (['WALLET', 'ASSETS_WALLET', 'WALLET'] as const).entries()) {
      const r = await create(
        {
          managed: true,
          seed: { lamports: String(1_000_000 * (i + 1)) },
          offchainReferences: { type, code: `CODE-${i}`, name: `Name ${i}` },
          ...(i === 0 ? { comments: 'has comment' } : {}),
        },
        { apiKey: orgKey },
      );
      expect(r.status).toBe(201);
    }
    const nonManaged = await create(
      {
        managed: false,
        alreadyOnchain: true,
        onchainId: await freshAddress(),
        skipBlockchainExistenceVerification: true,
        offchainReferences: { type: 'DEFI_SETTLEMENT_WALLET' },
      },
      { apiKey: orgKey },
    );
    expect(nonManaged.status).toBe(201);
  });
  const fetchAccounts = (level: string, itemQuery: unknown) => stack.call('POST', `/api/v1/accounts/bulk/${level}`, { itemQuery }, { apiKey: orgKey });

  it('sorts managed accounts first by default and pages stably', async () => {
    const all = await fetchAccounts('compact', {});
    expect(all.body.count).toBe(4);
    expect(all.body.items.map((i: any) => i.offchain.code)).toEqual([...all.body.items.slice(0, 3).map((i: any) => i.offchain.code), null]);
    const page1 = await fetchAccounts('identifiers', { limit: 2, skip: 0 });
    const page2 = await fetchAccounts('identifiers', { limit: 2, skip: 2 });
    expect(page1.body.count).toBe(4);
    expect([...page1.body.items, ...page2.body.items].map((i: any) => i.offchain.id)).toEqual(
      (await fetchAccounts('identifiers', {})).body.items.map((i: any) => i.offchain.id),
    );
  });

  it('filters by type, text, number range, null and list fields, and sorts by balance', async () => {
    const wallets = await fetchAccounts('compact', {
      filter: [{ fieldName: 'type', filterValues: [{ dataType: 'OFFCHAIN_REFRENCE_TYPE', filterType: 'EQUALS', valueString: 'WALLET' }] }],
    });
    expect(wallets.body.items.map((i: any) => i.offchain.code).sort()).toEqual(['CODE-0', 'CODE-2']);
    const either = await fetchAccounts('compact', {
      filter: [
        {
          fieldName: 'code',
          operator: 'OR',
          filterValues: [
            { filterType: 'EQUALS', valueString: 'CODE-0' },
            { filterType: 'EQUALS', valueString: 'CODE-1' },
          ],
        },
      ],
    });
    expect(either.body.count).toBe(2);
    const contains = await fetchAccounts('identifiers', {
      filter: [{ fieldName: 'offchainReferenceName', filterValues: [{ filterType: 'CONTAINS', valueString: 'name 1' }] }],
    });
    expect(contains.body.count).toBe(1);
    const range = await fetchAccounts('detailed', {
      filter: [{ fieldName: 'lamportsBalance', filterValues: [{ filterType: 'RANGE', valueFromNumber: 1_500_000, valueToNumber: 3_000_000 }] }],
      sort: [{ fieldName: 'lamportsBalance', sortDirection: 'DESC' }],
    });
    expect(range.body.items.map((i: any) => i.offchain.balance.lamports)).toEqual([3_000_000, 2_000_000]);
    const withComment = await fetchAccounts('detailed', { filter: [{ fieldName: 'comments', filterValues: [{ filterType: 'IS_NOT_NULL' }] }] });
    expect(withComment.body.items.map((i: any) => i.comments)).toEqual(['has comment']);
    const inDatabase = await fetchAccounts('identifiers', {
      filter: [{ fieldName: 'privateKeyLocation', filterValues: [{ filterType: 'EQUALS', valueString: 'DATABASE' }] }],
    });
    expect(inDatabase.body.count).toBe(3);
    const nonManaged = await fetchAccounts('identifiers', {
      filter: [
        { fieldName: 'managed', filterValues: [{ filterType: 'EQUALS', valueBoolean: false }] },
        { fieldName: 'privateKeyLocation', filterValues: [{ filterType: 'IN', valuesString: ['DATABASE', 'SECRETS'] }] },
      ],
    });
    expect(nonManaged.body.count).toBe(0);
    const recent = await fetchAccounts('identifiers', {
      filter: [
        { fieldName: 'creationTransactionAt', filterValues: [{ filterType: 'RANGE', valueFromString: new Date(Date.now() - 3_600_000).toISOString() }] },
      ],
    });
    expect(recent.body.count).toBe(3);
  });

  it('answers each detail level with its own shape', async () => {
    const [identifiers, compact, detailed] = await Promise.all(['identifiers', 'compact', 'detailed'].map((level) => fetchAccounts(level, { limit: 1 })));
    expect(Object.keys(identifiers.body.items[0])).toEqual(['onchain', 'offchain']);
    expect(Object.keys(identifiers.body.items[0].offchain)).toEqual(['id']);
    expect(Object.keys(compact.body.items[0].onchain).sort()).toEqual(['id', 'lastTransactionAt', 'lastTransactionId']);
    expect(detailed.body.items[0]).toHaveProperty('offchain.balance');
    expect(detailed.body.items[0]).toHaveProperty('tenantOrganizationId');
  });

  it('keeps tenants apart', async () => {
    const mine = await fetchAccounts('identifiers', { limit: 1 });
    const other = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: mine.body.items[0].offchain.id } } });
    expect(other.status).toBe(404);
  });
});

describe('Authentication and tenancy', () => {
  it('answers 401 without a key or with an unknown key, and 403 without the role', async () => {
    expect((await create({ managed: true }, { apiKey: null })).status).toBe(401);
    expect((await create({ managed: true }, { apiKey: 'lk_nope' })).status).toBe(401);
    const readOnly = await stack.newApiKey(stack.organizationExternalId, ['READ']);
    const refused = await create({ managed: true }, { apiKey: readOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('FORBIDDEN');
  });

  it("lets only an ADMIN key of the operators' organization act inside another organization", async () => {
    const other = `tenant-${randomBytes(3).toString('hex')}`;
    await stack.newApiKey(other, ['READ']);
    const body = {
      itemData: { managed: false, alreadyOnchain: true, onchainId: await freshAddress(), skipBlockchainExistenceVerification: true },
      tenancyConfig: { overrideOrganizationExternalId: other },
    };
    expect((await stack.call('POST', '/api/v1/accounts', body)).status).toBe(403);
    // An ADMIN key of an organization that is not the operators' is refused too.
    expect((await stack.call('POST', '/api/v1/accounts', body, { apiKey: await stack.newApiKey(stack.organizationExternalId, ['ADMIN']) })).status).toBe(403);
    // Acting for another organization, ADMIN does not stand in for the operation's roles: the operator's key holds them.
    const admin = await stack.newApiKey(OPERATORS, ['ADMIN', 'READ', 'WRITE']);
    const created = await stack.call('POST', '/api/v1/accounts', body, { apiKey: admin });
    expect(created.status).toBe(201);
    const asOther = await stack.call(
      'POST',
      '/api/v1/accounts/bulk/identifiers',
      { tenancyConfig: { overrideOrganizationExternalId: other } },
      { apiKey: admin },
    );
    expect(asOther.body.items.map((i: any) => i.offchain.id)).toEqual([created.body.newAccount.offchainId]);
  });

  it('needs the UPDATE_DEBIT_API_KEYS role to set debit API keys', async () => {
    const writer = await stack.newApiKey(stack.organizationExternalId, ['WRITE']);
    const refused = await create({ managed: true, networkCurrencyDebitApiKeys: ['k1'] }, { apiKey: writer });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].field).toBe('itemData.networkCurrencyDebitApiKeys');
    const allowed = await create({ managed: true, networkCurrencyDebitApiKeys: ['k1'] });
    expect(allowed.status).toBe(201);
  });

  it('refuses an unknown svmCluster', async () => {
    const refused = await stack.call('POST', '/api/v1/accounts/bulk/compact?svmCluster=SOLANA_NOWHERE', {});
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('svmCluster');
  });
});
