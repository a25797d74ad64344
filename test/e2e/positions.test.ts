/** Initialize Position on the local node: associated token accounts, default frozen state, thawing, details and balance. */
import { randomBytes } from 'node:crypto';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let authority: { onchainId: string; offchainId: string };
let spl: string;
let frozenByDefault: string;
beforeAll(async () => {
  stack = await startStack();
  authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } })).body
    .newAccount;
  const byAuthority = { offchainId: authority.offchainId };
  spl = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 6 },
        mintAuthority: byAuthority,
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    })
  ).body.newFinancialInstrument.onchainId;
  frozenByDefault = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'TOKEN_2022',
        onchainData: { decimals: 2 },
        mintAuthority: byAuthority,
        freezeAuthority: byAuthority,
        defaultPositionState: 'FROZEN',
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'CORPORATE_BOND' } } },
      },
    })
  ).body.newFinancialInstrument.onchainId;
});
afterAll(async () => {
  await stack?.close();
});

const newOwner = async () =>
  (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount as { onchainId: string; offchainId: string };
const initialize = (owner: { offchainId: string }, mint: string, extra: Record<string, unknown> = {}) =>
  stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: { owner, financialInstrument: { onchainId: mint } }, ...extra } });
const balance = (owner: { offchainId: string }, mint: string) =>
  stack.call('POST', '/api/v1/positions/balance', { itemData: { position: { owner, financialInstrument: { onchainId: mint } } } });

it("creates the owner's associated token account and records it; a second initialization is 409", async () => {
  const owner = await newOwner();
  const created = await initialize(owner, spl);
  expect(created.status).toBe(201);
  expect(created.body.svmTransaction).toMatchObject({ success: true });
  const details = await stack.call('POST', '/api/v1/positions/single', {
    itemData: { position: { position: { onchainId: created.body.newPosition.onchainId } } },
  });
  expect(details.body).toMatchObject({
    status: 'ACTIVE',
    frozen: false,
    associated: true,
    owner: { onchain: { id: owner.onchainId } },
    financialInstrument: { onchain: { id: spl } },
    offchain: { balance: { amount: 0, lamports: 0 } },
  });
  const live = await balance(owner, spl);
  expect(live.body).toMatchObject({ decimals: 6, onchain: { exists: true, frozen: false, balance: { amount: 0, lamports: 0 } } });
  const again = await initialize(owner, spl);
  expect(again.status).toBe(409);
  expect(again.body.errors[0].field).toBe('itemData.positionToInitialize');
});

it('honours a default frozen state, and thaws at once with unfreeze', async () => {
  const frozenOwner = await newOwner();
  expect((await initialize(frozenOwner, frozenByDefault)).status).toBe(201);
  expect((await balance(frozenOwner, frozenByDefault)).body.onchain.frozen).toBe(true);
  expect(
    (
      await stack.call('POST', '/api/v1/positions/single', {
        itemData: { position: { owner: frozenOwner, financialInstrument: { onchainId: frozenByDefault } } },
      })
    ).body.frozen,
  ).toBe(true);

  const thawedOwner = await newOwner();
  expect((await initialize(thawedOwner, frozenByDefault, { unfreeze: true })).body.svmTransaction).toMatchObject({ success: true });
  expect((await balance(thawedOwner, frozenByDefault)).body.onchain.frozen).toBe(false);
  expect(
    (
      await stack.call('POST', '/api/v1/positions/single', {
        itemData: { position: { owner: thawedOwner, financialInstrument: { onchainId: frozenByDefault } } },
      })
    ).body.frozen,
  ).toBe(false);
});

it('refuses an explicit position that would own itself and what does not exist, naming the field', async () => {
  const owner = await newOwner();
  // Explicit positions are covered in position-history-and-freeze-all.test.ts.
  const explicit = await stack.call('POST', '/api/v1/positions', {
    itemData: { positionToInitialize: { position: { onchainId: owner.onchainId }, owner, financialInstrument: { onchainId: spl } } },
  });
  expect(explicit.status).toBe(400);
  expect(explicit.body.errors[0]).toMatchObject({ field: 'itemData.positionToInitialize.position', message: expect.stringContaining('its own owner') });
  const missing = await stack.call('POST', '/api/v1/positions/single', { itemData: { position: { owner, financialInstrument: { onchainId: spl } } } });
  expect(missing.status).toBe(404);
  expect(missing.body.errors[0].field).toBe('itemData.position');
});

describe('Fetch Positions and Update Position', () => {
  const fetchPositions = (level: string, itemQuery: unknown) => stack.call('POST', `/api/v1/positions/bulk/${level}`, { itemQuery });
  const eq = (fieldName: string, value: Record<string, unknown>) => ({ fieldName, filterValues: [{ filterType: 'EQUALS', ...value }] });

  it('filters by instrument and frozen state, newest first, with amounts at the detailed level', async () => {
    const all = await fetchPositions('detailed', {});
    expect(all.body.count).toBe(3);
    expect(all.body.items[0].financialInstrument.onchain.id).toBe(frozenByDefault);
    expect(all.body.items.every((p: any) => p.offchain.balance.amount === 0)).toBe(true);
    expect((await fetchPositions('identifiers', { filter: [eq('financialInstrumentOnchainId', { valueString: frozenByDefault })] })).body.count).toBe(2);
    expect((await fetchPositions('identifiers', { filter: [eq('frozen', { valueBoolean: true })] })).body.count).toBe(1);
    expect(
      (await fetchPositions('identifiers', { filter: [{ fieldName: 'balance', filterValues: [{ filterType: 'RANGE', valueFromNumber: 1 }] }] })).body.count,
    ).toBe(0);
  });

  it('updates the offchain fields without a network transaction', async () => {
    const [first] = (await fetchPositions('identifiers', {})).body.items;
    const updated = await stack.call('PATCH', '/api/v1/positions', {
      itemData: { position: { position: { offchainId: first.offchain.id } }, code: 'POS-1', comments: 'desk A' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ updatedPosition: { onchainId: first.onchain.id, offchainId: first.offchain.id }, svmTransaction: null });
    const details = await stack.call('POST', '/api/v1/positions/single', { itemData: { position: { position: { offchainId: first.offchain.id } } } });
    expect(details.body).toMatchObject({ code: 'POS-1', comments: 'desk A' });
    expect((await fetchPositions('identifiers', { filter: [eq('code', { valueString: 'POS-1' })] })).body.count).toBe(1);
  });
});

describe('Freeze / Unfreeze Position', () => {
  it('freezes and unfreezes a position onchain and in the record, refusing a move to the state it is in', async () => {
    const owner = await newOwner();
    await initialize(owner, frozenByDefault, { unfreeze: true });
    const position = { owner, financialInstrument: { onchainId: frozenByDefault } };
    const frozen = await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: { position } });
    expect(frozen.status).toBe(200);
    expect(frozen.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect((await balance(owner, frozenByDefault)).body.onchain.frozen).toBe(true);
    const again = await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: { position } });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({ field: 'itemData.position', message: expect.stringContaining('already frozen') });
    expect((await stack.call('PATCH', '/api/v1/positions/unfreeze', { itemData: { position } })).body).toMatchObject({ success: true });
    expect((await balance(owner, frozenByDefault)).body.onchain.frozen).toBe(false);
    expect((await stack.call('POST', '/api/v1/positions/single', { itemData: { position } })).body.frozen).toBe(false);
  });

  it('refuses an instrument without a freeze authority', async () => {
    const owner = await newOwner();
    await initialize(owner, spl);
    const refused = await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: { position: { owner, financialInstrument: { onchainId: spl } } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toContain('no freeze authority');
  });
});

describe('Mint', () => {
  it('mints exact amounts into a position, onchain and in the record, once per idempotencyId', async () => {
    const owner = await newOwner();
    await initialize(owner, spl);
    const mintTo = { owner, financialInstrument: { onchainId: spl } };
    const idempotencyId = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
    const first = await stack.call('POST', '/api/v1/positions/mint', {
      itemData: { mintTo, value: { amount: 12.345678 }, idempotencyId, memo: 'issuance #1' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    const again = await stack.call('POST', '/api/v1/positions/mint', {
      itemData: { mintTo, value: { amount: 12.345678 }, idempotencyId, memo: 'issuance #1' },
    });
    expect(again.body.offchainId).toBe(first.body.offchainId);
    const live = (await balance(owner, spl)).body;
    expect(live.onchain.balance).toEqual({ amount: 12.345678, lamports: 12_345_678 });
    expect(live.offchain.balance).toEqual(live.onchain.balance);
    const supply = await stack.call('POST', '/api/v1/financial-instruments/circulating-supply', { itemData: { financialInstrument: { onchainId: spl } } });
    expect(supply.body.circulatingSupply).toEqual({ amount: 12.345678, lamports: 12_345_678 });
  });

  it('refuses a frozen position without unfreeze (POSITION_FROZEN), mints with unfreeze, and refuses too many decimals', async () => {
    const owner = await newOwner();
    await initialize(owner, frozenByDefault);
    const mintTo = { owner, financialInstrument: { onchainId: frozenByDefault } };
    const refused = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo, value: { lamports: 500 } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'POSITION_FROZEN', field: 'itemData.mintTo' });
    const minted = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo, value: { lamports: 500 }, unfreeze: true } });
    expect(minted.body).toMatchObject({ success: true });
    const live = (await balance(owner, frozenByDefault)).body;
    expect(live.onchain).toMatchObject({ frozen: false, balance: { amount: 5, lamports: 500 } });
    const decimals = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo, value: { amount: 1.001 } } });
    expect(decimals.status).toBe(400);
    expect(decimals.body.errors[0].field).toBe('itemData.value.amount');
    await initialize(owner, spl);
    const splFreeze = await stack.call('POST', '/api/v1/positions/mint', {
      itemData: { mintTo: { owner, financialInstrument: { onchainId: spl } }, value: { lamports: 1 }, freeze: true },
    });
    expect(splFreeze.status).toBe(400);
    expect(splFreeze.body.errors[0]).toMatchObject({ code: 'FREEZE_AUTHORITY_NOT_FOUND', field: 'itemData.freeze' });
  });
});

describe('Burn', () => {
  it('burns exact amounts signed by the owner, refuses more than the balance, and burns the rest with burnEntireBalance', async () => {
    const owner = await newOwner();
    await initialize(owner, spl);
    const position = { owner, financialInstrument: { onchainId: spl } };
    await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: position, value: { amount: 10 } } });
    const burned = await stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: position, value: { amount: 2.5 }, memo: 'redemption' } });
    expect(burned.status).toBe(201);
    expect(burned.body).toMatchObject({ success: true });
    let live = (await balance(owner, spl)).body;
    expect(live.onchain.balance).toEqual({ amount: 7.5, lamports: 7_500_000 });
    expect(live.offchain.balance).toEqual(live.onchain.balance);
    const tooMuch = await stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: position, value: { amount: 8 } } });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors[0]).toMatchObject({ code: 'INSUFFICIENT_BALANCE', field: 'itemData.value' });
    const rest = await stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: position, burnEntireBalance: true } });
    expect(rest.body).toMatchObject({ success: true });
    live = (await balance(owner, spl)).body;
    expect(live.onchain.balance).toEqual({ amount: 0, lamports: 0 });
    expect(live.offchain.balance).toEqual(live.onchain.balance);
  });
});

describe('Transfer', () => {
  it('moves exact amounts between positions of one instrument; both sides agree onchain and offchain; racing duplicates move once', async () => {
    const alice = await newOwner();
    const bob = await newOwner();
    await initialize(alice, spl);
    await initialize(bob, spl);
    const from = { owner: alice, financialInstrument: { onchainId: spl } };
    const to = { owner: bob, financialInstrument: { onchainId: spl } };
    await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: from, value: { amount: 100 } } });
    const idempotencyId = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
    const [a, b] = await Promise.all([
      stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: from, destination: to, value: { amount: 30.5 }, idempotencyId, memo: 'settlement' },
      }),
      stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: from, destination: to, value: { amount: 30.5 }, idempotencyId, memo: 'settlement' },
      }),
    ]);
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ success: true });
    expect(b.body.offchainId).toBe(a.body.offchainId);
    const aliceBalance = (await balance(alice, spl)).body;
    const bobBalance = (await balance(bob, spl)).body;
    expect(aliceBalance.onchain.balance).toEqual({ amount: 69.5, lamports: 69_500_000 });
    expect(bobBalance.onchain.balance).toEqual({ amount: 30.5, lamports: 30_500_000 });
    expect(aliceBalance.offchain.balance).toEqual(aliceBalance.onchain.balance);
    expect(bobBalance.offchain.balance).toEqual(bobBalance.onchain.balance);

    const tooMuch = await stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: from, destination: to, value: { amount: 70 } } });
    expect(tooMuch.body.errors[0]).toMatchObject({ code: 'INSUFFICIENT_BALANCE', field: 'itemData.value' });
    const all = await stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: from, destination: to, transferEntireBalance: true } });
    expect(all.body).toMatchObject({ success: true });
    expect((await balance(bob, spl)).body.onchain.balance.lamports).toBe(100_000_000);
  });

  it('refuses positions of different instruments and a frozen destination without unfreezeDestination', async () => {
    const owner = await newOwner();
    const other = await newOwner();
    await initialize(owner, spl);
    await initialize(other, frozenByDefault);
    const mixed = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: {
        source: { owner, financialInstrument: { onchainId: spl } },
        destination: { owner: other, financialInstrument: { onchainId: frozenByDefault } },
        value: { lamports: 1 },
      },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.errors[0].field).toBe('itemData.destination');

    const sender = await newOwner();
    await initialize(sender, frozenByDefault, { unfreeze: true });
    await stack.call('POST', '/api/v1/positions/mint', {
      itemData: { mintTo: { owner: sender, financialInstrument: { onchainId: frozenByDefault } }, value: { lamports: 300 } },
    });
    const source = { owner: sender, financialInstrument: { onchainId: frozenByDefault } };
    const destination = { owner: other, financialInstrument: { onchainId: frozenByDefault } };
    const frozen = await stack.call('POST', '/api/v1/positions/transfer', { itemData: { source, destination, value: { lamports: 100 } } });
    expect(frozen.body.errors[0]).toMatchObject({ code: 'POSITION_FROZEN', field: 'itemData.destination' });
    const thawed = await stack.call('POST', '/api/v1/positions/transfer', {
      itemData: { source, destination, value: { lamports: 100 }, unfreezeDestination: true, freezeSource: true },
    });
    expect(thawed.body).toMatchObject({ success: true });
    expect((await balance(other, frozenByDefault)).body.onchain).toMatchObject({ frozen: false, balance: { lamports: 100 } });
    expect((await balance(sender, frozenByDefault)).body.onchain).toMatchObject({ frozen: true, balance: { lamports: 200 } });
  });
});

it('starts the record from what the associated account already holds onchain, and its frozen state', async () => {
  // Another tenant's account receives tokens before its own organization knows the position.
  const theirKey = await stack.newApiKey(`holder-${randomBytes(3).toString('hex')}`, ['READ', 'WRITE']);
  const theirs = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } }, { apiKey: theirKey })).body.newAccount;
  const byAuthority = { offchainId: authority.offchainId };
  const shared = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'TOKEN_2022',
        onchainData: { decimals: 2 },
        mintAuthority: byAuthority,
        freezeAuthority: byAuthority,
        defaultPositionState: 'FROZEN',
        shareAcrossTenants: true,
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    })
  ).body.newFinancialInstrument.onchainId;
  const offPlatformLimit = [{ destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '1000' } }];
  const ourHolder = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, tokenDebitLimits: offPlatformLimit } })).body.newAccount;
  expect((await initialize(ourHolder, shared, { unfreeze: true })).status).toBe(201);
  expect(
    (
      await stack.call('POST', '/api/v1/positions/mint', {
        itemData: { mintTo: { owner: ourHolder, financialInstrument: { onchainId: shared } }, value: { amount: 10 } },
      })
    ).body,
  ).toMatchObject({ success: true });
  const sent = await stack.call('POST', '/api/v1/positions/transfer', {
    itemData: {
      source: { owner: ourHolder, financialInstrument: { onchainId: shared } },
      destination: { owner: { onchainId: theirs.onchainId, offPlatform: true }, financialInstrument: { onchainId: shared } },
      value: { amount: 2.5 },
      initializeDestinationPositionIfNeeded: true,
      unfreezeDestination: true,
    },
  });
  expect(sent.body).toMatchObject({ success: true });

  const instrument = { onchainId: shared, otherTenantOrganizationExternalId: stack.organizationExternalId };
  const opened = await stack.call(
    'POST',
    '/api/v1/positions',
    { itemData: { positionToInitialize: { owner: { offchainId: theirs.offchainId }, financialInstrument: instrument } } },
    { apiKey: theirKey },
  );
  expect(opened.status).toBe(201);
  const live = (
    await stack.call(
      'POST',
      '/api/v1/positions/balance',
      { itemData: { position: { owner: { offchainId: theirs.offchainId }, financialInstrument: instrument } } },
      { apiKey: theirKey },
    )
  ).body;
  expect(live.onchain).toMatchObject({ frozen: false, balance: { amount: 2.5, lamports: 250 } });
  expect(live.offchain.balance).toEqual(live.onchain.balance);
  const details = await stack.call(
    'POST',
    '/api/v1/positions/single',
    { itemData: { position: { position: { onchainId: opened.body.newPosition.onchainId } } } },
    { apiKey: theirKey },
  );
  expect(details.body.frozen).toBe(false);
});
