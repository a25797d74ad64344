/**
 * Approvals for override (docs/approvals.md), on the local node: a network-currency transfer over a
 * limit that names three approvers (two required) waits in AWAITING_APPROVAL; approvals release it,
 * a rejection, a cancel or the timeout end it with nothing moved.
 */
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { forkEm } from '../../src/main/runtime';
import { startStack, type Stack } from '../support/stack';

const APPROVAL_TIMEOUT_MS = 6_000;
let stack: Stack;
const approvers: { apiKey: string; id: string }[] = [];
let outsider: string;

beforeAll(async () => {
  stack = await startStack({ approvalTimeoutMs: APPROVAL_TIMEOUT_MS });
  const { organization } = await ensureOrganization(forkEm(stack.runtime.orm), stack.runtime.sealer, stack.organizationExternalId);
  for (let i = 0; i < 3; i++) approvers.push(await createApiKey(forkEm(stack.runtime.orm), organization, ['APPROVE'], stack.config.platformName));
  // Holds APPROVE but is not among the account's approvers.
  outsider = (await createApiKey(forkEm(stack.runtime.orm), organization, ['APPROVE', 'READ'], stack.config.platformName)).apiKey;
});
afterAll(async () => {
  await stack?.close();
});

const LAMPORTS = 1_000_000_000;
const account = async (itemData: Record<string, unknown>) => (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as { onchainId: string; offchainId: string };
const balance = async (offchainId: string) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } })).body.onchain.balance.lamports as number;
const status = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } })).body;
const decide = (kind: 'approve' | 'reject', approval: string, apiKey: string, comment?: string) =>
  stack.call('PATCH', `/api/v1/approvals/${kind}`, { itemData: { approval: { offchainId: approval }, ...(comment ? { comment } : {}) } }, { apiKey });
const approvalOf = async (transaction: string) => {
  const answer = await stack.call('POST', '/api/v1/approvals/bulk', { itemQuery: { filter: [{ fieldName: 'transactionOffchainId', filterValues: [{ filterType: 'EQUALS', valueString: transaction }] }] } });
  expect(answer.status).toBe(200);
  return answer.body.items[0];
};
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
const ended = (s: { status: string }) => ['CONFIRMED', 'FINALIZED', 'FAILED', 'REJECTED', 'EXPIRED', 'CANCELLED'].includes(s.status);

/** A wallet with 5 SOL whose debits over 1 SOL need two of the three approvers, and a 2 SOL transfer from it to a managed vault. */
async function transferOverLimit() {
  const wallet = await account({
    managed: true,
    seed: { amount: 5 },
    offchainReferences: { type: 'WALLET' },
    networkCurrencyDebitLimits: [{ destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1, approversForOverride: approvers.map((a) => a.id), requiredApproversCount: 2 } }],
  });
  const vault = await account({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } });
  const answer = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', { itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount: 2 } } });
  expect(answer.status).toBe(202);
  expect(answer.body).toEqual({ transaction: { offchainId: expect.any(String), status: 'AWAITING_APPROVAL' } });
  const transaction = answer.body.transaction.offchainId as string;
  return { wallet, vault, transaction, approval: await approvalOf(transaction) };
}

it('lands a transfer over the limit once two of three approvers approve; a non-approver key is 403, a second decision 409', async () => {
  const { wallet, vault, transaction, approval } = await transferOverLimit();
  const vaultBefore = await balance(vault.offchainId);
  expect(approval).toMatchObject({
    status: 'PENDING',
    transaction: { offchainId: transaction },
    account: { offchainId: wallet.offchainId, onchainId: wallet.onchainId },
    requiredApproversCount: 2,
    approversForOverride: approvers.map((a) => a.id),
    decisions: [],
    rule: { amount: String(2 * LAMPORTS), headroom: String(LAMPORTS), limit: { maxAllowedDebit: { limitAmount: '1' } } },
  });

  const notListed = await decide('approve', approval.offchainId, outsider);
  expect(notListed.status).toBe(403);
  expect(notListed.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.approval.offchainId' });

  const first = await decide('approve', approval.offchainId, approvers[0].apiKey, 'checked with the desk');
  expect(first.status).toBe(200);
  expect(first.body.approval).toMatchObject({ status: 'PENDING', decisions: [{ apiKeyId: approvers[0].id, decision: 'APPROVE', comment: 'checked with the desk' }] });
  expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).status).toBe(409);
  // One approval of two: nothing is built or moved yet.
  expect((await status(transaction)).status).toBe('AWAITING_APPROVAL');

  const second = await decide('approve', approval.offchainId, approvers[1].apiKey);
  expect(second.body.approval).toMatchObject({ status: 'APPROVED' });
  const done = await until(() => status(transaction), ended);
  expect(done).toMatchObject({ status: expect.stringMatching(/CONFIRMED|FINALIZED/), success: true });
  expect(await balance(vault.offchainId)).toBe(vaultBefore + 2 * LAMPORTS);
  expect(await balance(wallet.offchainId)).toBe(3 * LAMPORTS);
  // Decided approvals stay listed; a decision after it settled is 409.
  expect((await decide('reject', approval.offchainId, approvers[2].apiKey)).status).toBe(409);
  expect((await approvalOf(transaction)).status).toBe('APPROVED');
});

it('one rejection ends the write REJECTED with nothing moved', async () => {
  const { wallet, transaction, approval } = await transferOverLimit();
  expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).status).toBe(200);
  const rejected = await decide('reject', approval.offchainId, approvers[2].apiKey, 'not planned');
  expect(rejected.body.approval).toMatchObject({ status: 'REJECTED', decisions: [{ decision: 'APPROVE' }, { apiKeyId: approvers[2].id, decision: 'REJECT', comment: 'not planned' }] });
  expect(await until(() => status(transaction), ended)).toMatchObject({ status: 'REJECTED', success: false });
  expect(await balance(wallet.offchainId)).toBe(5 * LAMPORTS);
});

it('cancel while awaiting approval ends the write CANCELLED and the approval CANCELLED', async () => {
  const { wallet, transaction, approval } = await transferOverLimit();
  const cancelled = await stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: transaction } } });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toEqual({ transaction: { offchainId: transaction, status: 'CANCELLED' } });
  expect((await status(transaction)).status).toBe('CANCELLED');
  expect((await until(() => approvalOf(transaction), (a) => a.status !== 'PENDING')).status).toBe('CANCELLED');
  expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).status).toBe(409);
  expect(await balance(wallet.offchainId)).toBe(5 * LAMPORTS);
});

it('an approval nobody decides expires: the write ends REJECTED, nothing moved', async () => {
  const { wallet, transaction } = await transferOverLimit();
  const done = await until(() => status(transaction), ended, APPROVAL_TIMEOUT_MS + 20_000);
  expect(done).toMatchObject({ status: 'REJECTED', success: false });
  expect((await approvalOf(transaction)).status).toBe('EXPIRED');
  expect(await balance(wallet.offchainId)).toBe(5 * LAMPORTS);
});

it('Fetch Approvals lists pending and decided approvals by status (roles READ or APPROVE)', async () => {
  const pending = await transferOverLimit();
  const list = (statusValue: string, apiKey?: string) =>
    stack.call('POST', '/api/v1/approvals/bulk', { itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: statusValue }] }] } }, apiKey ? { apiKey } : {});
  const pendingList = await list('PENDING', approvers[0].apiKey);
  expect(pendingList.status).toBe(200);
  expect(pendingList.body.items.map((a: { offchainId: string }) => a.offchainId)).toContain(pending.approval.offchainId);
  expect((await list('APPROVED')).body.items.length).toBeGreaterThanOrEqual(1);
  expect((await list('REJECTED')).body.items.length).toBeGreaterThanOrEqual(1);
  const writeOnly = await stack.newApiKey(stack.organizationExternalId, ['WRITE']);
  expect((await list('PENDING', writeOnly)).status).toBe(403);
  await stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: pending.transaction } } });
});

it('racing debits under one window never overrun it: those past it wait for approval, holding their debits', async () => {
  const wallet = await account({
    managed: true,
    seed: { amount: 5 },
    offchainReferences: { type: 'WALLET' },
    networkCurrencyDebitLimits: [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: 1, duration: { code: 'DAYS', unit: 1 }, approversForOverride: [approvers[0].id] } }],
  });
  const vault = await account({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } });
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => stack.call('POST', '/api/v1/accounts/transfer-network-currency', { itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount: 0.4 } } })),
  );
  // 0.4 + 0.4 fit the 1 SOL window; every other one waits, whichever order they ran in.
  expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
  const waiting = answers.filter((a) => a.status === 202 && a.body.transaction.status === 'AWAITING_APPROVAL');
  expect(waiting).toHaveLength(4);
  // Each waiting debit is held too: the next one over the window counts it (0.8, then 1.2, 1.6, 2.0 already in the window).
  const rules = await Promise.all(waiting.map(async (w) => (await approvalOf(w.body.transaction.offchainId)).rule));
  expect(rules.map((r) => Number(r.alreadyInWindow) / LAMPORTS).sort()).toEqual([0.8, 1.2, 1.6, 2]);
  expect(rules.find((r) => r.alreadyInWindow === String((4 * LAMPORTS) / 5))).toMatchObject({ headroom: String(LAMPORTS / 5) });
  for (const w of waiting) await stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: w.body.transaction.offchainId } } });
  expect(await balance(wallet.offchainId)).toBe(5 * LAMPORTS - (4 * LAMPORTS) / 5);
});
