/**
 * Fetch Position History, freezing and thawing every position of an SPL instrument in one request,
 * and explicit (non-associated) positions, on the local node.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { withoutLiveState } from '../support/expectations';

let stack: Stack;
let authority: { onchainId: string; offchainId: string };
/** SPL, with a freeze authority. */
let spl: string;
/** Token-2022: frozen by default, pausable (its accounts need extension space), with a freeze authority. */
let t22: string;

const createInstrument = async (itemData: Record<string, unknown>) => {
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      ...itemData,
    },
  });
  expect(created.body.svmTransaction).toMatchObject({ success: true });
  return created.body.newFinancialInstrument.onchainId as string;
};

beforeAll(async () => {
  stack = await startStack();
  authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } })).body
    .newAccount;
  const byAuthority = { offchainId: authority.offchainId };
  spl = await createInstrument({ version: 'SPL', onchainData: { decimals: 6 }, freezeAuthority: byAuthority });
  t22 = await createInstrument({
    version: 'TOKEN_2022',
    onchainData: { decimals: 2 },
    freezeAuthority: byAuthority,
    pausableAuthority: byAuthority,
    defaultPositionState: 'FROZEN',
  });
});
afterAll(async () => {
  await stack?.close();
});

const newAccount = async (itemData: Record<string, unknown> = {}) => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, ...itemData } });
  expect(created.status).toBe(201);
  return created.body.newAccount as { onchainId: string; offchainId: string };
};
const randomAddress = () => getBase58Decoder().decode(randomBytes(32));
const initialize = (positionToInitialize: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize, ...extra } });
const onchain = async (position: Record<string, unknown>) => (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position } })).body.onchain;
const history = (position: Record<string, unknown>, itemQuery?: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/positions/history', { itemData: { position }, ...(itemQuery ? { itemQuery } : {}) });
const operationsOf = (answer: { body: { items: { operation: string }[] } }) => answer.body.items.map((item) => item.operation);

describe('Fetch Position History', () => {
  it('lists every transaction that touched the position, newest first, with paging, filters and sorts', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    const a = { owner: alice, financialInstrument: { onchainId: spl } };
    const b = { owner: bob, financialInstrument: { onchainId: spl } };
    expect((await initialize(a)).status).toBe(201);
    expect((await initialize(b)).status).toBe(201);
    const steps = [
      () => stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: a, value: { amount: 10 } } }),
      () => stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: b, value: { amount: 1 } } }),
      () => stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: a, destination: b, value: { amount: 3 } } }),
      () => stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: a, value: { amount: 2 } } }),
      () => stack.call('PATCH', '/api/v1/positions/freeze', { itemData: { position: a } }),
    ];
    // One after another, so the order of the history is the order of the answers.
    const answers = [];
    for (const step of steps) answers.push((await step()).body);
    expect(answers.every((answer) => answer.success === true)).toBe(true);

    const all = await history(a);
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(5);
    expect(operationsOf(all)).toEqual(['FREEZE_POSITION', 'BURN', 'TRANSFER', 'MINT', 'INITIALIZE_POSITION']);
    expect(all.body.items[0]).toMatchObject({ offchainId: answers[4].offchainId, onchainId: answers[4].onchainId, status: 'CONFIRMED', success: true });
    expect(all.body.items.every((item: { accountOffchainIds: string[] }) => item.accountOffchainIds.length > 0)).toBe(true);
    // Bob's own mint is in his history only.
    expect(operationsOf(await history(b))).toEqual(['TRANSFER', 'MINT', 'INITIALIZE_POSITION']);

    const page = await history(a, { limit: 2, skip: 1 });
    expect(page.body.count).toBe(5);
    expect(operationsOf(page)).toEqual(['BURN', 'TRANSFER']);
    const oldestFirst = await history(a, { sort: [{ fieldName: 'createdAt', sortDirection: 'ASC' }], limit: 1 });
    expect(operationsOf(oldestFirst)).toEqual(['INITIALIZE_POSITION']);
    const mints = await history(a, { filter: [{ fieldName: 'operation', filterValues: [{ filterType: 'EQUALS', valueString: 'MINT' }] }] });
    expect(mints.body.count).toBe(1);
    expect(mints.body.items[0].offchainId).toBe(answers[0].offchainId);
    // Looked up by the position's own address, the history is the same.
    const position = (await stack.call('POST', '/api/v1/positions/single', { itemData: { position: a } })).body;
    expect((await history({ position: { onchainId: position.onchain.id } })).body.count).toBe(5);
  });

  it('refuses unknown fields, limits over 1000 and positions that do not exist, naming the field', async () => {
    const owner = await newAccount();
    const a = { owner, financialInstrument: { onchainId: spl } };
    const missing = await history(a);
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].field).toBe('itemData.position');
    await initialize(a);
    const badField = await history(a, { filter: [{ fieldName: 'balance', filterValues: [{ filterType: 'EQUALS', valueNumber: 1 }] }] });
    expect(badField.status).toBe(400);
    expect(badField.body.errors[0].field).toBe('itemQuery.filter.0.fieldName');
    const tooMany = await history(a, { limit: 1001 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].field).toBe('itemQuery.limit');
    const otherOrganization = await stack.newApiKey(`other-${randomBytes(3).toString('hex')}`, ['READ']);
    const foreign = await stack.call(
      'POST',
      '/api/v1/positions/history',
      {
        itemData: {
          position: { position: { onchainId: (await stack.call('POST', '/api/v1/positions/single', { itemData: { position: a } })).body.onchain.id } },
        },
      },
      { apiKey: otherOrganization },
    );
    expect(foreign.status).toBe(404);
  });
});

describe('Freeze / Unfreeze all positions of an SPL instrument', () => {
  it('freezes every active position not yet frozen in batches of 20, replays the same answer, then thaws them all', async () => {
    const mint = await createInstrument({ version: 'SPL', onchainData: { decimals: 0 }, freezeAuthority: { offchainId: authority.offchainId } });
    const owners = Array.from({ length: 22 }, () => ({ onchainId: randomAddress(), offPlatform: true }));
    for (let i = 0; i < owners.length; i += 6) {
      const created = await Promise.all(owners.slice(i, i + 6).map((owner) => initialize({ owner, financialInstrument: { onchainId: mint } })));
      expect(created.map((c) => c.status)).toEqual(created.map(() => 201));
    }
    const positions = owners.map((owner) => ({ owner, financialInstrument: { onchainId: mint } }));
    // One is frozen already: 21 are left, two transactions (20 + 1).
    expect((await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: { position: positions[0] } })).body).toMatchObject({ success: true });

    const all = { financialInstrument: { onchainId: mint }, allPositions: true };
    const requestId = `freeze-all-${randomUUID()}`;
    const frozen = await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: all }, { headers: { 'x-request-id': requestId } });
    expect(frozen.status).toBe(200);
    expect(frozen.body.remainingPositions).toBe(0);
    expect(frozen.body.svmTransactions).toHaveLength(2);
    expect(frozen.body.svmTransactions.every((tx: { success: boolean; status: string }) => tx.success && tx.status === 'CONFIRMED')).toBe(true);
    for (const position of positions) expect((await onchain(position)).frozen).toBe(true);
    const frozenRecords = await stack.call('POST', '/api/v1/positions/bulk/identifiers', {
      itemQuery: {
        filter: [
          { fieldName: 'financialInstrumentOnchainId', filterValues: [{ filterType: 'EQUALS', valueString: mint }] },
          { fieldName: 'frozen', filterValues: [{ filterType: 'EQUALS', valueBoolean: true }] },
        ],
      },
    });
    expect(frozenRecords.body.count).toBe(22);

    const replay = await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: all }, { headers: { 'x-request-id': requestId } });
    expect(withoutLiveState(replay.body)).toEqual(withoutLiveState(frozen.body));
    const again = await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: all });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({ field: 'itemData.allPositions', message: expect.stringContaining('already frozen') });

    const thawed = await stack.call('PATCH', '/api/v1/positions/unfreeze', { itemData: all });
    expect(thawed.status).toBe(200);
    expect(thawed.body).toMatchObject({ remainingPositions: 0 });
    expect(thawed.body.svmTransactions).toHaveLength(2);
    for (const position of positions) expect((await onchain(position)).frozen).toBe(false);
    // Each position's history has its batch of each request.
    expect(operationsOf(await history(positions[21]))).toEqual(['UNFREEZE_POSITION', 'FREEZE_POSITION', 'INITIALIZE_POSITION']);
    expect(operationsOf(await history(positions[0]))).toEqual(['UNFREEZE_POSITION', 'FREEZE_POSITION', 'INITIALIZE_POSITION']);
  });

  it('refuses Token-2022 instruments, instruments without a freeze authority and mixed or partial shapes, naming the field', async () => {
    const freezeAll = (itemData: unknown) => stack.call('PATCH', '/api/v1/positions/freeze', { itemData });
    const token2022 = await freezeAll({ financialInstrument: { onchainId: t22 }, allPositions: true });
    expect(token2022.status).toBe(400);
    expect(token2022.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.allPositions', message: expect.stringContaining('Pause') });
    const noAuthority = await createInstrument({ version: 'SPL', onchainData: { decimals: 0 } });
    const refused = await freezeAll({ financialInstrument: { onchainId: noAuthority }, allPositions: true });
    expect(refused.body.errors[0]).toMatchObject({ code: 'FREEZE_AUTHORITY_NOT_FOUND', field: 'itemData.financialInstrument' });

    const owner = await newAccount();
    const position = { owner, financialInstrument: { onchainId: spl } };
    const cases: [unknown, string][] = [
      [{ position, allPositions: true }, 'itemData.allPositions'],
      [{ position, financialInstrument: { onchainId: spl } }, 'itemData.financialInstrument'],
      [{ financialInstrument: { onchainId: spl } }, 'itemData.allPositions'],
      [{ financialInstrument: { onchainId: spl }, allPositions: false }, 'itemData.allPositions'],
      [{ allPositions: true }, 'itemData.financialInstrument'],
      [{}, 'itemData.position'],
    ];
    for (const [itemData, field] of cases) {
      const answer = await freezeAll(itemData);
      expect({ itemData, status: answer.status, field: answer.body.errors?.[0]?.field }).toEqual({ itemData, status: 400, field });
    }
  });
});

describe('Initialize Position with an explicit (non-associated) account', () => {
  it('turns a pre-created managed account into a Token-2022 position (extension space, thawed), which mints, shows associated: false and keeps the account id', async () => {
    const owner = await newAccount();
    const account = await newAccount();
    const created = await initialize({ position: { offchainId: account.offchainId }, owner, financialInstrument: { onchainId: t22 } }, { unfreeze: true });
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction).toMatchObject({ success: true });
    expect(created.body.newPosition).toEqual({ onchainId: account.onchainId, offchainId: account.offchainId });

    const position = { position: { offchainId: account.offchainId } };
    const details = await stack.call('POST', '/api/v1/positions/single', { itemData: { position } });
    expect(details.body).toMatchObject({
      status: 'ACTIVE',
      associated: false,
      frozen: false,
      owner: { onchain: { id: owner.onchainId } },
      financialInstrument: { onchain: { id: t22 } },
    });
    expect(await onchain(position)).toMatchObject({ exists: true, frozen: false });

    expect(
      (await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: { position: { onchainId: account.onchainId } }, value: { amount: 5.25 } } }))
        .body,
    ).toMatchObject({ success: true });
    const balance = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position } })).body;
    expect(balance.onchain.balance).toEqual({ amount: 5.25, lamports: 525 });
    expect(balance.offchain.balance).toEqual(balance.onchain.balance);
    // The owner's associated position is a different one, and does not exist.
    expect((await stack.call('POST', '/api/v1/positions/single', { itemData: { position: { owner, financialInstrument: { onchainId: t22 } } } })).status).toBe(
      404,
    );

    // The account record is a token account now; its offchain lamports follow the rent top-up exactly.
    const record = (await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: account.offchainId } } })).body;
    expect(record.offchain).toMatchObject({ id: account.offchainId, type: 'ASSET_TOKEN_ACCOUNT', tokenDecimals: 2 });
    const lamports = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: account.offchainId } } })).body;
    expect(lamports.offchain.balance).toEqual(lamports.onchain.balance);
    // One id names the account and the position: its history starts with the account's creation.
    expect(operationsOf(await history(position))).toEqual(['MINT', 'INITIALIZE_POSITION', 'CREATE_ACCOUNT']);
  });

  it('assigns an SPL account pre-created with exactly the token account size', async () => {
    const owner = await newAccount();
    const account = await newAccount({ dataLength: 165 });
    const created = await initialize({ position: { onchainId: account.onchainId }, owner, financialInstrument: { onchainId: spl } });
    expect(created.body.svmTransaction).toMatchObject({ success: true });
    const position = { position: { onchainId: account.onchainId } };
    expect(await onchain(position)).toMatchObject({ exists: true, frozen: false, balance: { lamports: 0 } });
    expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: position, value: { amount: 1 } } })).body).toMatchObject({
      success: true,
    });
    expect((await onchain(position)).balance).toEqual({ amount: 1, lamports: 1_000_000 });
  });

  it('refuses accounts that are not managed, hold data, are the owner or are already a position, naming the field', async () => {
    const field = 'itemData.positionToInitialize.position';
    const owner = await newAccount();
    const explicit = (position: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      initialize({ position, owner, financialInstrument: { onchainId: spl }, ...extra });

    const taken = await newAccount();
    expect((await explicit({ offchainId: taken.offchainId })).status).toBe(201);
    const again = await explicit({ offchainId: taken.offchainId });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].field).toBe(field);

    const unmanaged = await newAccount({ managed: false, onchainId: randomAddress() });
    const refusedUnmanaged = await explicit({ offchainId: unmanaged.offchainId });
    expect(refusedUnmanaged.status).toBe(400);
    expect(refusedUnmanaged.body.errors[0].field).toBe(field);

    const wrongSize = await newAccount({ dataLength: 10 });
    const refusedSize = await explicit({ offchainId: wrongSize.offchainId });
    expect(refusedSize.status).toBe(400);
    expect(refusedSize.body.errors[0]).toMatchObject({ field, message: expect.stringContaining('165') });

    const ownItself = await explicit({ offchainId: owner.offchainId });
    expect(ownItself.status).toBe(400);
    expect(ownItself.body.errors[0].field).toBe(field);

    const noOwner = await initialize({ position: { offchainId: (await newAccount()).offchainId }, financialInstrument: { onchainId: spl } });
    expect(noOwner.status).toBe(400);
    expect(noOwner.body.errors[0].field).toBe('itemData.positionToInitialize.owner');
    const unknown = await explicit({ onchainId: randomAddress() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].field).toBe(field);
  });
});
