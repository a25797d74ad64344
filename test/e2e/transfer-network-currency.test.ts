/** Transfer Network Currency with the default and configured debit limits of spec 8, on the local node. */
import { generateKeyPair, getAddressFromPublicKey } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const account = async (itemData: Record<string, unknown>) =>
  (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as { onchainId: string; offchainId: string };
const freshAddress = async () => getAddressFromPublicKey((await generateKeyPair()).publicKey);
const send = (source: { offchainId: string }, destination: Record<string, unknown>, value: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/accounts/transfer-network-currency', { itemData: { source, destination, value } });
const balances = async (offchainId: string) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } })).body;

it('moves lamports to a managed account without limit, and both records agree with the chain', async () => {
  const wallet = await account({ managed: true, seed: { amount: 5 }, offchainReferences: { type: 'WALLET' } });
  const vault = await account({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } });
  const sent = await send(wallet, { offchainId: vault.offchainId }, { amount: 3 });
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({ success: true });
  const from = await balances(wallet.offchainId);
  const to = await balances(vault.offchainId);
  expect(from.onchain.balance.lamports).toBe(2_000_000_000);
  expect(to.onchain.balance.lamports).toBe(3_000_000_000 + 890_880);
  expect(from.offchain.balance).toEqual(from.onchain.balance);
  expect(to.offchain.balance).toEqual(to.onchain.balance);
});

it('applies the default limits: NON_MANAGED 1 per transaction, OFF_PLATFORM 0', async () => {
  const wallet = await account({ managed: true, seed: { amount: 5 }, offchainReferences: { type: 'WALLET' } });
  const nonManaged = await account({ managed: false, alreadyOnchain: true, onchainId: await freshAddress(), skipBlockchainExistenceVerification: true });
  expect((await send(wallet, { offchainId: nonManaged.offchainId }, { amount: 1 })).body).toMatchObject({ success: true });
  const over = await send(wallet, { offchainId: nonManaged.offchainId }, { lamports: '1000000001' });
  expect(over.status).toBe(400);
  expect(over.body.errors[0]).toMatchObject({
    code: 'LIMIT_EXCEEDED',
    limit: { destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '1' } },
  });
  // NON_MANAGED has no 24-hour limit: another full 1 in the same day passes.
  expect((await send(wallet, { offchainId: nonManaged.offchainId }, { amount: 1 })).body).toMatchObject({ success: true });
  const offPlatform = await send(wallet, { onchainId: await freshAddress(), offPlatform: true }, { lamports: '1' });
  expect(offPlatform.body.errors[0]).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { destination: 'OFF_PLATFORM' } });
  // The global fee payer pays fees; the refused debits moved nothing.
  expect((await balances(wallet.offchainId)).onchain.balance.lamports).toBe(3_000_000_000);
});

it("replaces the defaults with the account's own limits", async () => {
  const wallet = await account({
    managed: true,
    seed: { amount: 5 },
    offchainReferences: { type: 'WALLET' },
    networkCurrencyDebitLimits: [{ destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 0.5 } }],
  });
  const outside = await freshAddress();
  expect((await send(wallet, { onchainId: outside, offPlatform: true }, { amount: 0.5 })).body).toMatchObject({ success: true });
  const over = await send(wallet, { onchainId: outside, offPlatform: true }, { amount: 0.6 });
  expect(over.body.errors[0]).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: { destination: 'OFF_PLATFORM', maxAllowedDebit: { limitAmount: '0.5' } } });
});

it('answers values that cannot agree with 400 naming the field before any lookup, never 404 for what does not exist', async () => {
  const nowhere = { offchainId: crypto.randomUUID() };
  const tnc = await send(nowhere, nowhere, { amount: 1, lamports: 2 });
  expect(tnc.status).toBe(400);
  expect(tnc.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.value.lamports' });
  // A position's decimals come from its instrument, but no decimals make 1 and 3 agree.
  const position = { owner: nowhere, financialInstrument: { onchainId: await freshAddress() } };
  const transfer = await stack.call('POST', '/api/v1/positions/transfer', {
    itemData: { source: position, destination: position, value: { amount: 1, lamports: 3 } },
  });
  expect(transfer.status).toBe(400);
  expect(transfer.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.value.lamports' });
});

describe('what the chain would refuse is refused before anything is signed, so no fee is paid (docs/behaviour/accounts.md)', () => {
  const sendPaying = (source: { offchainId: string }, destination: { offchainId: string }, lamports: number) =>
    stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source, destination, value: { lamports: String(lamports) } },
      svmTransactionConfig: { feePayer: { offchainId: source.offchainId } },
    });

  it('a source paying its own fee sends at most what it holds minus the fee, leaving 0 or the rent-exempt minimum (INSUFFICIENT_BALANCE naming itemData.value)', async () => {
    const wallet = await account({ managed: true, canPayFees: true, seed: { lamports: '10000000' } });
    const vault = await account({ managed: true });
    for (const lamports of [20_000_000, 10_000_000, 10_000_000 - 5_000 - 100]) {
      const refused = await sendPaying(wallet, vault, lamports);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0]).toMatchObject({ code: 'INSUFFICIENT_BALANCE', field: 'itemData.value' });
    }
    expect((await balances(wallet.offchainId)).onchain.balance.lamports).toBe(10_000_000);
    const all = await sendPaying(wallet, vault, 10_000_000 - 5_000);
    expect(all.body).toMatchObject({ success: true });
    expect((await balances(wallet.offchainId)).onchain.balance.lamports).toBe(0);
  });

  it('refuses currency seeded into a System Program account with dataLength > 0 (spec 2.3 rule 2), naming itemData.source', async () => {
    const seeded = await account({ managed: true, dataLength: 16, seed: { amount: 0.01 } });
    const before = (await balances(seeded.offchainId)).onchain.balance.lamports;
    const refused = await send(seeded, await account({ managed: true }), { lamports: '1' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.source', message: expect.stringContaining('spec 2.3 rule 2') });
    expect((await balances(seeded.offchainId)).onchain.balance.lamports).toBe(before);
  });
});
