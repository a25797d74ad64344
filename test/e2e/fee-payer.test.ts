/**
 * A named fee payer and a transaction the network refuses. (The webhooks around submission are in
 * webhooks.test.ts.)
 */
import { startStack, type Stack } from '../support/stack';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function feePayerWith(itemData: Record<string, unknown>) {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, ...itemData } });
  expect(created.status).toBe(201);
  return created.body.newAccount as { onchainId: string; offchainId: string };
}

/** The onchain balance, after checking that the offchain record agrees with it. */
async function balance(offchainId: string) {
  const { body } = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } });
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports as number;
}

it('pays with the named fee payer', async () => {
  const payer = await feePayerWith({ seed: { amount: 0.1 } });
  const before = await balance(payer.offchainId);
  const created = await stack.call('POST', '/api/v1/accounts', {
    itemData: { managed: true, seed: { lamports: 2_000_000 } },
    svmTransactionConfig: { feePayer: { offchainId: payer.offchainId } },
  });
  expect(created.status).toBe(201);
  expect(await balance(payer.offchainId)).toBe(before - 2_000_000 - 2 * 5000);
  const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: payer.offchainId } } });
  expect(details.body.onchain.lastTransactionId).toBe(created.body.svmTransaction.onchainId);
  const tx = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: created.body.svmTransaction.offchainId } } });
  expect(tx.body.accountOffchainIds).toEqual([created.body.newAccount.offchainId, payer.offchainId]);
});

it('refuses a fee payer that may not pay fees, naming it', async () => {
  const notPayer = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.01 } } });
  const refused = await stack.call('POST', '/api/v1/accounts', {
    itemData: { managed: true },
    svmTransactionConfig: { feePayer: { offchainId: notPayer.body.newAccount.offchainId } },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].field).toBe('svmTransactionConfig.feePayer');
});

it('reports a transaction the network refuses as success false, and records no account', async () => {
  const payer = await feePayerWith({ seed: { lamports: 5_000_000 } });
  const before = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {});
  const refused = await stack.call('POST', '/api/v1/accounts', {
    itemData: { managed: true, seed: { amount: 1 } },
    svmTransactionConfig: { feePayer: { offchainId: payer.offchainId } },
  });
  expect(refused.status).toBe(201);
  expect(refused.body.newAccount).toBeNull();
  expect(refused.body.svmTransaction).toMatchObject({ success: false, status: 'FAILED', errorMessage: expect.stringContaining('insufficient lamports') });
  expect((await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {})).body.count).toBe(before.body.count);
  expect(await balance(payer.offchainId)).toBe(5_000_000);
});
