/** A write that outlasts the wait answers 202 with its transaction, which then completes on its own. */
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ writeWaitMs: 1 });
});
afterAll(async () => {
  await stack?.close();
});

it('answers 202 with the transaction of a write still running, and the write completes', async () => {
  const accepted = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.002 } } });
  expect(accepted.status).toBe(202);
  expect(accepted.headers.get('preference-applied')).toBe('respond-async');
  const { offchainId } = accepted.body.transaction;
  expect(offchainId).toMatch(/^[0-9a-f-]{36}$/);
  const done = await waitFor(async () => {
    const s = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } });
    return ['CONFIRMED', 'FINALIZED'].includes(s.body.status) ? s : undefined;
  });
  expect(done.body.success).toBe(true);
  const accounts = await stack.call('POST', '/api/v1/accounts/bulk/detailed', {});
  expect(accounts.body.items.map((a: any) => a.offchain.creationTransactionId)).toEqual([offchainId]);
});

it('answers 202 for an offchain-only write still running, and its record then ends FINALIZED (never 404)', async () => {
  const created = await waitFor(async () => {
    const list = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {});
    return list.body.items[0];
  });
  const accepted = await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: created.offchain.id }, comments: 'slow' } });
  expect(accepted.status).toBe(202);
  const { offchainId } = accepted.body.transaction;
  const done = await waitFor(async () => {
    const s = await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } });
    expect(s.status).toBe(200);
    return s.body.status === 'FINALIZED' ? s : undefined;
  });
  expect(done.body.success).toBe(true);
});
