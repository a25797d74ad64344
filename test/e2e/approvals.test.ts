/**
 * Approvals for override (docs/approvals.md), on the local node: a network-currency transfer, a token
 * transfer and a burn over a limit that names three approvers (two required) wait in
 * AWAITING_APPROVAL; approvals release them, a rejection, a cancel or the timeout end them with
 * nothing moved. Racing debits under one window and Cancel racing the settling decision.
 */
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { decide as storeDecision } from '../../src/db/repositories/approvals.repository';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { forkEm } from '../../src/main/runtime';
import { startStack, type Stack } from '../support/stack';
import { temporalTarget } from '../support/temporal';

const APPROVAL_TIMEOUT_MS = 6_000;
let stack: Stack;
const approvers: { apiKey: string; id: string }[] = [];
let outsider: string;
let organizationId: string;

beforeAll(async () => {
  stack = await startStack({ approvalTimeoutMs: APPROVAL_TIMEOUT_MS });
  const { organization } = await ensureOrganization(forkEm(stack.runtime.orm), stack.runtime.sealer, stack.organizationExternalId);
  organizationId = organization.id;
  for (let i = 0; i < 3; i++) approvers.push(await createApiKey(forkEm(stack.runtime.orm), organization, ['APPROVE'], stack.config.platformName));
  // Holds APPROVE but is not among the account's approvers.
  outsider = (await createApiKey(forkEm(stack.runtime.orm), organization, ['APPROVE', 'READ'], stack.config.platformName)).apiKey;
});
afterAll(async () => {
  await stack?.close();
});

const LAMPORTS = 1_000_000_000;
const account = async (itemData: Record<string, unknown>) =>
  (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as { onchainId: string; offchainId: string };
const balance = async (offchainId: string) =>
  (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } })).body.onchain.balance.lamports as number;
const status = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } })).body;
const decide = (kind: 'approve' | 'reject', approval: string, apiKey: string, comment?: string) =>
  stack.call('PATCH', `/api/v1/approvals/${kind}`, { itemData: { approval: { offchainId: approval }, ...(comment ? { comment } : {}) } }, { apiKey });
const approvalOf = async (transaction: string) => {
  const answer = await stack.call('POST', '/api/v1/approvals/bulk', {
    itemQuery: { filter: [{ fieldName: 'transactionOffchainId', filterValues: [{ filterType: 'EQUALS', valueString: transaction }] }] },
  });
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
const cancel = (transaction: string) => stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: transaction } } });
const ended = (s: { status: string }) => ['CONFIRMED', 'FINALIZED', 'FAILED', 'REJECTED', 'EXPIRED', 'CANCELLED'].includes(s.status);

/** A wallet with `seed` SOL whose debits over 1 SOL need two of the three approvers, and a managed vault. */
async function walletAndVault(seed = 5) {
  const wallet = await account({
    managed: true,
    seed: { amount: seed },
    offchainReferences: { type: 'WALLET' },
    networkCurrencyDebitLimits: [
      {
        destination: 'ANY',
        maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1, approversForOverride: approvers.map((a) => a.id), requiredApproversCount: 2 },
      },
    ],
  });
  return { wallet, vault: await account({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } }) };
}

/** A 2 SOL transfer from such a wallet (a new one unless given) to its vault: it waits for approval. */
async function transferOverLimit(pair?: { wallet: { offchainId: string; onchainId: string }; vault: { offchainId: string; onchainId: string } }) {
  const { wallet, vault } = pair ?? (await walletAndVault());
  const answer = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount: 2 } },
  });
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
  expect(first.body.approval).toMatchObject({
    status: 'PENDING',
    decisions: [{ apiKeyId: approvers[0].id, decision: 'APPROVE', comment: 'checked with the desk' }],
  });
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
  expect(rejected.body.approval).toMatchObject({
    status: 'REJECTED',
    decisions: [{ decision: 'APPROVE' }, { apiKeyId: approvers[2].id, decision: 'REJECT', comment: 'not planned' }],
  });
  expect(await until(() => status(transaction), ended)).toMatchObject({ status: 'REJECTED', success: false });
  expect(await balance(wallet.offchainId)).toBe(5 * LAMPORTS);
});

it('cancel while awaiting approval ends the write CANCELLED and the approval CANCELLED', async () => {
  const { wallet, transaction, approval } = await transferOverLimit();
  const cancelled = await cancel(transaction);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toEqual({ transaction: { offchainId: transaction, status: 'CANCELLED' } });
  expect((await status(transaction)).status).toBe('CANCELLED');
  expect(
    (
      await until(
        () => approvalOf(transaction),
        (a) => a.status !== 'PENDING',
      )
    ).status,
  ).toBe('CANCELLED');
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
    stack.call(
      'POST',
      '/api/v1/approvals/bulk',
      { itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: statusValue }] }] } },
      apiKey ? { apiKey } : {},
    );
  const pendingList = await list('PENDING', approvers[0].apiKey);
  expect(pendingList.status).toBe(200);
  expect(pendingList.body.items.map((a: { offchainId: string }) => a.offchainId)).toContain(pending.approval.offchainId);
  expect((await list('APPROVED')).body.items.length).toBeGreaterThanOrEqual(1);
  expect((await list('REJECTED')).body.items.length).toBeGreaterThanOrEqual(1);
  const writeOnly = await stack.newApiKey(stack.organizationExternalId, ['WRITE']);
  expect((await list('PENDING', writeOnly)).status).toBe(403);
  await cancel(pending.transaction);
});

it('racing 20 debits under one window: those that pass never overrun it, each held one counts the debits held before it, approving them all lands exactly what the last approver saw', async () => {
  const DEBIT = (2 * LAMPORTS) / 5;
  const wallet = await account({
    managed: true,
    seed: { amount: 9 },
    offchainReferences: { type: 'WALLET' },
    networkCurrencyDebitLimits: [
      {
        destination: 'ANY',
        maxAllowedDebit: { limitType: 'DURATION', limitAmount: 1, duration: { code: 'DAYS', unit: 1 }, approversForOverride: [approvers[0].id] },
      },
    ],
  });
  const vault = await account({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } });
  const vaultBefore = await balance(vault.offchainId);
  const send = (amount: number) =>
    stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount } },
    });
  const answers = await Promise.all(Array.from({ length: 20 }, () => send(0.4)));
  // 0.4 + 0.4 fit the 1 SOL window: whichever order they ran in, what passes without approval stays within it.
  const passed = answers.filter((a) => a.status === 201);
  expect(passed.map((a) => a.body.success)).toEqual([true, true]);
  const waiting = answers
    .filter((a) => a.status === 202 && a.body.transaction.status === 'AWAITING_APPROVAL')
    .map((a) => a.body.transaction.offchainId as string);
  expect(waiting).toHaveLength(18);
  // Each held debit counts every debit held before it: 0.8, 1.2, ... 7.6 SOL already in the window.
  const held = await Promise.all(waiting.map(approvalOf));
  const already = held.map((a) => BigInt(a.rule.alreadyInWindow)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  expect(already).toEqual(Array.from({ length: 18 }, (_, k) => BigInt((k + 2) * DEBIT)));
  expect(held.map((a) => a.rule.headroom).filter((h) => h !== '0')).toEqual([String(LAMPORTS / 5)]);

  // Approving them all (at once): each approver saw the window with every debit before it, so the
  // window ends at what the last one approved (7.6 + 0.4 SOL), never more.
  const decisions = await Promise.all(held.map((a) => decide('approve', a.offchainId, approvers[0].apiKey)));
  expect(decisions.map((d) => d.body.approval?.status)).toEqual(Array(18).fill('APPROVED'));
  const done = await Promise.all(waiting.map((t) => until(() => status(t), ended, 60_000)));
  expect(done.map((d) => d.status).filter((s) => !['CONFIRMED', 'FINALIZED'].includes(s))).toEqual([]);
  expect(await balance(vault.offchainId)).toBe(vaultBefore + 20 * DEBIT);
  expect(await balance(wallet.offchainId)).toBe(9 * LAMPORTS - 20 * DEBIT);
  // The approved debits stay in the window: the next one counts all 8 SOL and waits too.
  const next = await send(0.1);
  expect(next.status).toBe(202);
  expect((await approvalOf(next.body.transaction.offchainId)).rule).toMatchObject({ alreadyInWindow: String(20 * DEBIT), headroom: '0' });
  await cancel(next.body.transaction.offchainId);
}, 120_000);

it('an approved debit counts in the window from its approval, not from when it was held', async () => {
  const wallet = await account({
    managed: true,
    seed: { amount: 5 },
    offchainReferences: { type: 'WALLET' },
    networkCurrencyDebitLimits: [
      {
        destination: 'ANY',
        maxAllowedDebit: { limitType: 'DURATION', limitAmount: 1, duration: { code: 'SECONDS', unit: 6 }, approversForOverride: [approvers[0].id] },
      },
    ],
  });
  const vault = await account({ managed: true, offchainReferences: { type: 'ASSETS_WALLET' } });
  const send = (amount: number) =>
    stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount } },
    });
  const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
  const held = await send(2);
  const heldBy = Date.now();
  expect(held.status).toBe(202);
  await sleepUntil(heldBy + 3_500);
  const approval = await approvalOf(held.body.transaction.offchainId);
  expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).body.approval.status).toBe('APPROVED');
  expect(await until(() => status(held.body.transaction.offchainId), ended)).toMatchObject({ success: true });
  // Held over 6 s ago, approved (and sent) within the last 6 s: the 2 SOL still fill the window.
  await sleepUntil(heldBy + 6_500);
  const next = await send(0.5);
  expect(next.status).toBe(202);
  expect((await approvalOf(next.body.transaction.offchainId)).rule).toMatchObject({ alreadyInWindow: String(2 * LAMPORTS), headroom: '0' });
  await cancel(next.body.transaction.offchainId);
});

it('signals the write again when the settling decision is sent again after its signal was lost (409 as before), so the write goes on at once, not at its timeout', async () => {
  const { vault, transaction, approval } = await transferOverLimit();
  const vaultBefore = await balance(vault.offchainId);
  expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).status).toBe(200);
  // The settling decision stored and its signal never sent: the API died (or Temporal was away) right after storing it.
  const stored = await storeDecision(
    forkEm(stack.runtime.orm),
    { id: approval.offchainId, organizationId },
    { apiKeyId: approvers[1].id, decision: 'APPROVE', comment: null, at: new Date().toISOString() },
    () => undefined,
  );
  expect(stored?.approval.status).toBe('APPROVED');
  // The approver's client sends its Approve again, its first answer having been lost.
  const repeat = await decide('approve', approval.offchainId, approvers[1].apiKey);
  expect(repeat.status).toBe(409);
  const workflowId = (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: transaction } } })).body
    .workflowId as string;
  const connection = await Connection.connect({ address: temporalTarget().address });
  try {
    const history = await new Client({ connection, namespace: temporalTarget().namespace }).workflow.getHandle(workflowId).fetchHistory();
    const signals = (history.events ?? []).filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName)).toEqual(['approvalDecided']);
  } finally {
    await connection.close();
  }
  expect(await until(() => status(transaction), ended)).toMatchObject({ status: expect.stringMatching(/CONFIRMED|FINALIZED/), success: true });
  expect(await balance(vault.offchainId)).toBe(vaultBefore + 2 * LAMPORTS);
});

describe('Cancel racing the decision that settles the approval', () => {
  /** The write's status and its approval's, once both ended. */
  const outcome = async (transaction: string) => {
    const write = await until(() => status(transaction), ended);
    return { write: write.status as string, approval: (await approvalOf(transaction)).status as string };
  };

  it('a decision stored before Cancel wins even while its signal is on its way: Cancel is refused (400) and the write lands', async () => {
    const { wallet, vault, transaction, approval } = await transferOverLimit();
    const vaultBefore = await balance(vault.offchainId);
    expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).status).toBe(200);
    // The Approve route's first half: the settling decision is on the record, its signal not sent yet.
    const stored = await storeDecision(
      forkEm(stack.runtime.orm),
      { id: approval.offchainId, organizationId },
      { apiKeyId: approvers[1].id, decision: 'APPROVE', comment: null, at: new Date().toISOString() },
      () => undefined,
    );
    expect(stored?.approval.status).toBe('APPROVED');
    const refused = await cancel(transaction);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'itemData.transaction', message: expect.stringContaining('APPROVED') });
    expect(await outcome(transaction)).toEqual({ write: expect.stringMatching(/CONFIRMED|FINALIZED/), approval: 'APPROVED' });
    expect(await balance(vault.offchainId)).toBe(vaultBefore + 2 * LAMPORTS);
    expect(await balance(wallet.offchainId)).toBe(3 * LAMPORTS);
  });

  it('whichever of Cancel and the settling Approve comes first, the approval and the write end alike (12 races)', async () => {
    const pair = await walletAndVault(25);
    const races = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const { transaction, approval } = await transferOverLimit(pair);
        expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).status).toBe(200);
        // Approve 0 to 132 ms after Cancel: from Approve first to Cancel first, through the moments
        // Cancel is already in the workflow but has not reached the approval record yet.
        const [approved, cancelled] = await Promise.all([
          new Promise((resolve) => setTimeout(resolve, 12 * i)).then(() => decide('approve', approval.offchainId, approvers[1].apiKey)),
          cancel(transaction),
        ]);
        return { approve: approved.status, cancel: cancelled.status, ...(await outcome(transaction)) };
      }),
    );
    for (const race of races) {
      if (race.approval === 'APPROVED')
        expect(race).toEqual({ approve: 200, cancel: 400, write: expect.stringMatching(/CONFIRMED|FINALIZED/), approval: 'APPROVED' });
      else expect(race).toEqual({ approve: 409, cancel: 200, write: 'CANCELLED', approval: 'CANCELLED' });
    }
    // What landed moved, what was cancelled did not.
    const landed = races.filter((r) => r.approval === 'APPROVED').length;
    expect(await balance(pair.wallet.offchainId)).toBe((25 - 2 * landed) * LAMPORTS);
  }, 90_000);
});

describe('token debits', () => {
  type Ref = { onchainId: string; offchainId: string };
  let spl: string;
  beforeAll(async () => {
    const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const byAuthority = { offchainId: authority.offchainId };
    spl = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'SPL',
          onchainData: { decimals: 6 },
          mintAuthority: byAuthority,
          freezeAuthority: byAuthority,
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId;
  });
  const at = (owner: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: spl } });
  /** Base units, after checking the chain and the records agree. */
  const units = async (owner: Ref): Promise<number> => {
    const body = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner) } })).body;
    expect(body.offchain.balance).toEqual(body.onchain.balance);
    return body.onchain.balance.lamports;
  };
  /** A wallet holding 100 tokens whose token debits (transfers and burns) over 10 need two of the three approvers, and a holder. */
  async function holders() {
    const wallet = await account({
      managed: true,
      offchainReferences: { type: 'WALLET' },
      tokenDebitLimits: [
        {
          destination: 'ANY',
          operationType: 'ANY',
          maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 10, approversForOverride: approvers.map((a) => a.id), requiredApproversCount: 2 },
        },
      ],
    });
    const holder = await account({ managed: true });
    for (const owner of [wallet, holder])
      expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner) } })).status).toBe(201);
    expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(wallet), value: { amount: 100 } } })).body).toMatchObject({
      success: true,
    });
    return { wallet, holder };
  }
  const transfer = (from: Ref, to: Ref, amount: number) =>
    stack.call('POST', '/api/v1/positions/transfer', { itemData: { source: at(from), destination: at(to), value: { amount } } });
  const burn = (from: Ref, amount: number) => stack.call('POST', '/api/v1/positions/burn', { itemData: { burnFrom: at(from), value: { amount } } });
  const awaiting = async (answer: { status: number; body: any }) => {
    expect(answer.status).toBe(202);
    expect(answer.body.transaction.status).toBe('AWAITING_APPROVAL');
    const transaction = answer.body.transaction.offchainId as string;
    return { transaction, approval: await approvalOf(transaction) };
  };

  it('a token transfer and a burn over the limit wait, and land once two of three approve; chain and records agree', async () => {
    const { wallet, holder } = await holders();
    expect((await transfer(wallet, holder, 5)).body).toMatchObject({ success: true });
    const sent = await awaiting(await transfer(wallet, holder, 20));
    expect(sent.approval).toMatchObject({
      status: 'PENDING',
      account: { offchainId: wallet.offchainId },
      requiredApproversCount: 2,
      rule: { amount: '20000000', headroom: '10000000', limit: { operationType: 'ANY' } },
    });
    const burnt = await awaiting(await burn(wallet, 15));
    expect(burnt.approval.rule).toMatchObject({ amount: '15000000', headroom: '10000000' });
    // Nothing moves on one approval of two.
    for (const { approval } of [sent, burnt]) expect((await decide('approve', approval.offchainId, approvers[0].apiKey)).body.approval.status).toBe('PENDING');
    expect(await units(wallet)).toBe(95_000_000);
    for (const { approval } of [sent, burnt]) expect((await decide('approve', approval.offchainId, approvers[2].apiKey)).body.approval.status).toBe('APPROVED');
    for (const { transaction } of [sent, burnt])
      expect(await until(() => status(transaction), ended)).toMatchObject({ status: expect.stringMatching(/CONFIRMED|FINALIZED/), success: true });
    expect(await units(wallet)).toBe(100_000_000 - 5_000_000 - 20_000_000 - 15_000_000);
    expect(await units(holder)).toBe(25_000_000);
  });

  it('a rejected token transfer or burn moves nothing', async () => {
    const { wallet, holder } = await holders();
    const sent = await awaiting(await transfer(wallet, holder, 20));
    const burnt = await awaiting(await burn(wallet, 15));
    for (const { approval } of [sent, burnt]) expect((await decide('reject', approval.offchainId, approvers[1].apiKey)).body.approval.status).toBe('REJECTED');
    for (const { transaction } of [sent, burnt]) expect(await until(() => status(transaction), ended)).toMatchObject({ status: 'REJECTED', success: false });
    expect(await units(wallet)).toBe(100_000_000);
    expect(await units(holder)).toBe(0);
  });
});
