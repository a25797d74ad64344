/** Accounts through the real app: PostgreSQL, Temporal, the worker and the local SVM node. */
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('Create Account', () => {
  it('creates a managed, seeded account onchain and records it', async () => {
    const created = await stack.call('POST', '/api/v1/accounts', {
      itemData: { managed: true, seed: { amount: 0.5 }, offchainReferences: { type: 'WALLET', code: 'W-1', name: 'Treasury' }, comments: 'first' },
    });
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction).toMatchObject({ success: true, status: 'CONFIRMED' });
    const { onchainId, offchainId } = created.body.newAccount;

    const balance = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } });
    expect(balance.status).toBe(200);
    expect(balance.body.onchain.balance).toEqual({ amount: 0.5, lamports: 500_000_000 });
    expect(balance.body.offchain.balance).toEqual({ amount: 0.5, lamports: 500_000_000 });

    const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { onchainId } } });
    expect(details.body).toMatchObject({
      onchain: { id: onchainId, creationTransactionId: created.body.svmTransaction.onchainId },
      offchain: { id: offchainId, type: 'WALLET', code: 'W-1', name: 'Treasury' },
      managed: true,
      status: 'ACTIVE',
      privateKeyLocation: ['DATABASE'],
      comments: 'first',
    });

    const status = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: created.body.svmTransaction.offchainId } } });
    expect(status.body.statusHistory.map((s: { status: string }) => s.status)).toEqual(['BUILT', 'SIGNED', 'SUBMITTED', 'CONFIRMED']);
  });
});
