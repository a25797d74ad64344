/** Initialize Position on the local node: associated token accounts, default frozen state, thawing, details and balance. */
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let authority: { onchainId: string; offchainId: string };
let spl: string;
let frozenByDefault: string;
beforeAll(async () => {
  stack = await startStack();
  authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } })).body.newAccount;
  const byAuthority = { offchainId: authority.offchainId };
  spl = (await stack.call('POST', '/api/v1/financial-instruments', { itemData: { version: 'SPL', onchainData: { decimals: 6 }, mintAuthority: byAuthority, mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } } } })).body.newFinancialInstrument.onchainId;
  frozenByDefault = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: { version: 'TOKEN_2022', onchainData: { decimals: 2 }, mintAuthority: byAuthority, freezeAuthority: byAuthority, defaultPositionState: 'FROZEN', mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'CORPORATE_BOND' } } } },
    })
  ).body.newFinancialInstrument.onchainId;
});
afterAll(async () => {
  await stack?.close();
});

const newOwner = async () => (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount as { onchainId: string; offchainId: string };
const initialize = (owner: { offchainId: string }, mint: string, extra: Record<string, unknown> = {}) =>
  stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: { owner, financialInstrument: { onchainId: mint } }, ...extra } });
const balance = (owner: { offchainId: string }, mint: string) => stack.call('POST', '/api/v1/positions/balance', { itemData: { position: { owner, financialInstrument: { onchainId: mint } } } });

it('creates the owner\'s associated token account and records it; a second initialization is 409', async () => {
  const owner = await newOwner();
  const created = await initialize(owner, spl);
  expect(created.status).toBe(201);
  expect(created.body.svmTransaction).toMatchObject({ success: true });
  const details = await stack.call('POST', '/api/v1/positions/single', { itemData: { position: { position: { onchainId: created.body.newPosition.onchainId } } } });
  expect(details.body).toMatchObject({ status: 'ACTIVE', frozen: false, associated: true, owner: { onchain: { id: owner.onchainId } }, financialInstrument: { onchain: { id: spl } }, offchain: { balance: { amount: 0, lamports: 0 } } });
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
  expect((await stack.call('POST', '/api/v1/positions/single', { itemData: { position: { owner: frozenOwner, financialInstrument: { onchainId: frozenByDefault } } } })).body.frozen).toBe(true);

  const thawedOwner = await newOwner();
  expect((await initialize(thawedOwner, frozenByDefault, { unfreeze: true })).body.svmTransaction).toMatchObject({ success: true });
  expect((await balance(thawedOwner, frozenByDefault)).body.onchain.frozen).toBe(false);
  expect((await stack.call('POST', '/api/v1/positions/single', { itemData: { position: { owner: thawedOwner, financialInstrument: { onchainId: frozenByDefault } } } })).body.frozen).toBe(false);
});

it('refuses what it cannot do yet and what does not exist, naming the field', async () => {
  const owner = await newOwner();
  const explicit = await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: { position: { onchainId: owner.onchainId }, owner, financialInstrument: { onchainId: spl } } } });
  expect(explicit.status).toBe(400);
  expect(explicit.body.errors[0].field).toBe('itemData.positionToInitialize.position');
  const missing = await stack.call('POST', '/api/v1/positions/single', { itemData: { position: { owner, financialInstrument: { onchainId: spl } } } });
  expect(missing.status).toBe(404);
  expect(missing.body.errors[0].field).toBe('itemData.position');
});
