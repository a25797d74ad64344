/**
 * Refinance Loan to another lender's strategy on the local node (spec 4.4, docs/loans.md): lender
 * B's vault pays lender A's vault what the loan owes (principal and interest, to the base unit) in
 * one network transaction, and the loan becomes B's (lender, strategy, rate, a new term its workflow
 * follows). Create Loan's guards on B refuse with the field named and nothing moved. A worker killed
 * inside submit (the node took the bytes, the proxy holds its answer) resumes without moving twice.
 */
import { address, createSolanaRpc } from '@solana/kit';
import { Client, Connection } from '@temporalio/client';
import { Loan } from '../../src/db/entities';
import { loanWorkflowId } from '../../src/domain/loan-lifecycle';
import { interestFor } from '../../src/domain/loans';
import { forkEm } from '../../src/main/runtime';
import { startFaultWorker } from '../support/fault-process';
import { agreedBalance, at, createAccount, createStrategy, fixedPrices, mintInto, type Ref } from '../support/loan-kit';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import { startStack, type Stack } from '../support/stack';
import { temporalTarget } from '../support/temporal';
import { waitFor } from '../support/wait';

/** A loan day lasts 2 s here: a 1-day term ends while the test watches, 180 days is 6 minutes. */
const SECONDS_PER_DAY = 2;
const FEE = 5000n;
const USD = 1_000_000n;

let stack: Stack;
let proxy: RpcProxy;
let rpc: ReturnType<typeof createSolanaRpc>;
let connection: Connection;
let client: Client;
let usd: Ref;
let bond: Ref;
let lenderA: Ref;
let lenderB: Ref;
const priceTable = new Map<string, string>();
const prices = fixedPrices(priceTable);

const account = (itemData?: Record<string, unknown>) => createAccount(stack, itemData);
const mint = (owner: Ref, token: Ref, amount: number) => mintInto(stack, owner, token, amount);
/** Base units held, after checking the chain and the record agree. */
const units = async (owner: Ref, token: Ref): Promise<bigint> => BigInt((await agreedBalance(stack, owner, token)).lamports);
const lamportsOf = async (who: Ref) => (await rpc.getBalance(address(who.onchainId), { commitment: 'confirmed' }).send()).value;
const loanRecord = (escrow: string) => forkEm(stack.runtime.orm).findOneOrFail(Loan, { escrowAddress: escrow });
const details = async (escrow: string) => (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;

/** A strategy of `lender` lending usd against `collateral` (default usd), at rates for all five duration indexes by default. */
const strategy = (lender: Ref, options: Parameters<typeof createStrategy>[3] = {}) =>
  createStrategy(stack, lender, usd, { apy: [100_000, 120_000, 150_000, 200_000, 250_000], ...options });

/** A new borrower with `pledge` of `collateral` and a loan from `vault` of `borrow` usd pledging all of it. */
async function openLoan(vault: Ref, pledge: number, borrow: number, options: { collateral?: Ref; durationIndex?: number; expectedApy: number }) {
  const borrower = await account({ managed: true, canPayFees: true, seed: { amount: 1 } });
  const collateral = options.collateral ?? usd;
  await mint(borrower, collateral, pledge);
  const created = await stack.call('POST', '/api/v1/loans', {
    itemData: {
      defiProtocol: 'LEDGER_ESCROW',
      protocolDetails: {
        loanStrategyAddress: vault.onchainId,
        expectedLoanValues: { expectedApy: options.expectedApy, expectedLqt: [900_000] },
        durationIndex: options.durationIndex ?? 4,
      },
      itemsToBorrow: [{ positionLookup: at(borrower, usd), value: { amount: borrow } }],
      itemsToPledge: [{ positionLookup: at(borrower, collateral), value: { amount: pledge } }],
    },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(created.status).toBe(201);
  return { borrower, escrow: created.body.newLoan.escrow as Ref };
}

/** A Refinance Loan request of the loan in `escrow` from lender A to `toLender`, paid by `feePayer`. */
const refinanceBody = (
  escrow: Ref,
  borrower: Ref,
  toLender: Ref | undefined,
  durationIndex: number,
  options: { fromLender?: Ref; feePayer?: Ref | null; borrowedItem?: object } = {},
) => ({
  itemData: {
    defiProtocol: 'LEDGER_ESCROW',
    escrow: { onchainId: escrow.onchainId },
    fromLender: { offchainId: (options.fromLender ?? lenderA).offchainId },
    ...(toLender ? { toLender: { onchainId: toLender.onchainId } } : {}),
    borrower: { offchainId: borrower.offchainId },
    ...(options.borrowedItem ? { borrowedItem: options.borrowedItem } : {}),
    durationIndex,
  },
  svmTransactionConfig: options.feePayer === null ? {} : { feePayer: { offchainId: (options.feePayer ?? borrower).offchainId } },
});
const refinance = (...args: Parameters<typeof refinanceBody>) => stack.call('PATCH', '/api/v1/loans/refinance', refinanceBody(...args));

/** The seconds of interest a payoff holds: one whole number of seconds within [from, to] must give exactly `interest`. */
function expectInterestOfSeconds(principal: bigint, apy: number, interest: bigint, from: number, to: number) {
  const candidates = [];
  for (let s = Math.max(0, Math.floor(from) - 1); s <= Math.ceil(to) + 1; s++) candidates.push(interestFor(principal, apy, BigInt(s)));
  expect(candidates).toContain(interest);
}

beforeAll(async () => {
  // No worker in the API: the fault test below runs its own; the others use the stack's (restartWorker).
  stack = await startStack({ worker: false, writeTaskTimeoutSeconds: 2, loanSecondsPerDay: SECONDS_PER_DAY, prices });
  proxy = await startRpcProxy(stack.node.url);
  rpc = createSolanaRpc(stack.node.url);
  connection = await Connection.connect({ address: temporalTarget().address });
  client = new Client({ connection, namespace: temporalTarget().namespace });
  await stack.restartWorker();
  const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const instrument = async (type: string, decimals: number) =>
    (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version: 'SPL',
          onchainData: { decimals },
          mintAuthority: { offchainId: authority.offchainId },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: type } } },
        },
      })
    ).body.newFinancialInstrument as Ref;
  usd = await instrument('STABLECOIN', 6);
  bond = await instrument('CORPORATE_BOND', 2);
  lenderA = await account();
  lenderB = await account();
  await mint(lenderA, usd, 10_000_000);
  await mint(lenderB, usd, 10_000_000);
});
afterAll(async () => {
  await connection?.close();
  await proxy?.close();
  await stack?.close();
});

describe('Refinance Loan to another lender', () => {
  it("pays lender A principal and interest exactly from B's vault in one transaction; the loan becomes B's, at B's rate, for a new term", async () => {
    // A lends at 100 % a year for 3 months: 1,000,000 usd accrue about 0.0317 usd a second.
    const vaultA = await strategy(lenderA, { apy: [1, 1, 1, 1_000_000, 1], funds: 2_000_000 });
    const vaultB = await strategy(lenderB, { apy: [10_000, 20_000, 30_000, 40_000, 50_000], funds: 3_000_000 });
    const { borrower, escrow } = await openLoan(vaultA, 1_500_000, 1_000_000, { durationIndex: 3, expectedApy: 1_000_000 });
    const opened = await loanRecord(escrow.onchainId);
    const [a, b, own, held, fees] = [
      await units(vaultA, usd),
      await units(vaultB, usd),
      await units(borrower, usd),
      await units(escrow, usd),
      await lamportsOf(borrower),
    ];
    // Two seconds of interest at least (it accrues per whole second).
    await new Promise((r) => setTimeout(r, 2000));

    const sent = Date.now();
    const moved = await refinance(escrow, borrower, vaultB, 4, { borrowedItem: at(borrower, usd) });
    const answered = Date.now();
    expect(moved.status).toBe(200);
    // The answer is the transaction result as the whole body, like the other loan writes'.
    expect(moved.body).toMatchObject({ success: true, status: 'CONFIRMED', onchainId: expect.any(String) });
    expect(moved.body).not.toHaveProperty('escrow');

    // A got principal and interest (whole seconds of 100 %, rounded down) exactly, B paid exactly that.
    const paid = (await units(vaultA, usd)) - a;
    expect(b - (await units(vaultB, usd))).toBe(paid);
    const principal = 1_000_000n * USD;
    expectInterestOfSeconds(
      principal,
      1_000_000,
      paid - principal,
      (sent - opened.lastInterestUpdateTime.getTime()) / 1000,
      (answered - opened.lastInterestUpdateTime.getTime()) / 1000,
    );
    expect(paid - principal).toBeGreaterThan(interestFor(principal, 1_000_000, 1n));
    // Neither the borrower's principal nor the collateral moved; the borrower paid the fees of one transaction (its and B's vault's signatures).
    expect(await units(borrower, usd)).toBe(own);
    expect(await units(escrow, usd)).toBe(held);
    expect(fees - (await lamportsOf(borrower))).toBe(2n * FEE);
    const record = (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: moved.body.offchainId } } })).body;
    expect(record).toMatchObject({ onchainId: moved.body.onchainId, operation: 'REFINANCE_LOAN' });
    expect((await rpc.getSignatureStatuses([moved.body.onchainId], { searchTransactionHistory: true }).send()).value[0]?.err).toBeNull();

    // The loan is B's: lender, strategy, B's rate for 6 months, owing what B paid, from the landing on.
    const loan = await loanRecord(escrow.onchainId);
    expect({
      strategyAddress: loan.strategyAddress,
      lenderAddress: loan.lenderAddress,
      principalDue: loan.principalDue,
      interestOutstanding: loan.interestOutstanding,
      apy: loan.apy,
      durationIndex: loan.durationIndex,
      status: loan.status,
    }).toEqual({
      strategyAddress: vaultB.onchainId,
      lenderAddress: lenderB.onchainId,
      principalDue: paid.toString(),
      interestOutstanding: '0',
      apy: 50_000,
      durationIndex: 4,
      status: 'OPEN',
    });
    expect(loan.termStartAt.getTime()).toBeGreaterThanOrEqual(sent - 1000);
    expect(loan.lastInterestUpdateTime).toEqual(loan.termStartAt);
    expect(loan.maturityAt.getTime() - loan.termStartAt.getTime()).toBe(180 * SECONDS_PER_DAY * 1000);
    expect(loan.inUseByTransactionId).toBeNull();
    expect(await details(escrow.onchainId)).toMatchObject({
      loanStrategy: { onchainId: vaultB.onchainId },
      lender: { onchain: { id: lenderB.onchainId } },
      durationIndex: 4,
      borrowedItems: [{ apy: 50_000, duration: { code: 'DAYS', unit: 180 } }],
    });
    const outstanding = async (vault: Ref) =>
      (
        await stack.call('POST', '/api/v1/loans/strategies/bulk', {
          itemQuery: { filter: [{ fieldName: 'loanStrategyOnchainId', filterValues: [{ filterType: 'EQUALS', valueString: vault.onchainId }] }] },
        })
      ).body.items[0].outstandingPrincipal;
    expect(await outstanding(vaultA)).toBe(0);
    expect(await outstanding(vaultB)).toBeCloseTo(Number(paid) / 1e6, 6);

    // The loan's workflow sleeps until the new maturity.
    const handle = client.workflow.getHandle(loanWorkflowId({ id: loan.organizationId, externalId: stack.organizationExternalId }, escrow.onchainId));
    await waitFor(async () => (await handle.query<{ at: string }>('nextAction')).at === loan.maturityAt.toISOString());
    // Operators find it under its new lender and strategy.
    const listed = async (query: string) => {
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
      return ids;
    };
    await waitFor(
      async () => (await listed(`LedgerLender = "${lenderB.onchainId}" AND LedgerLoanStrategy = "${vaultB.onchainId}"`)).includes(handle.workflowId),
      10_000,
      200,
    );
  });

  it("follows the new term: B's 1-day term ends, the loan goes OVERDUE and its collateral goes to B's vault", async () => {
    const vaultA = await strategy(lenderA, { funds: 1000 });
    const vaultB = await strategy(lenderB, { funds: 1000 });
    // 180 days with A (6 minutes here); 1 day with B (2 s), then the grace period (4 s).
    const { borrower, escrow } = await openLoan(vaultA, 100, 50, { durationIndex: 4, expectedApy: 250_000 });
    const a = await units(vaultA, usd);
    const moved = await refinance(escrow, borrower, vaultB, 0);
    expect(moved.body).toMatchObject({ success: true });
    const paid = (await units(vaultA, usd)) - a;
    const b = await units(vaultB, usd);
    await waitFor(async () => (await loanRecord(escrow.onchainId)).status === 'LIQUIDATED', 30_000, 200);
    expect(await units(vaultB, usd)).toBe(b + 100n * USD);
    expect(await units(vaultA, usd)).toBe(a + paid);
    expect(await units(escrow, usd)).toBe(0n);
  });

  it("refuses what B's strategy or the request does not allow, naming the field, and moves nothing", async () => {
    priceTable.set(usd.offchainId, '1');
    priceTable.set(bond.offchainId, '2');
    const vaultA = await strategy(lenderA, { collateral: [usd, bond], funds: 1000 });
    // 100 bonds at 2 usd back 150 usd: 75 %.
    const { borrower, escrow } = await openLoan(vaultA, 100, 150, { collateral: bond, durationIndex: 4, expectedApy: 250_000 });
    const vaults = {
      noBond: await strategy(lenderB, { funds: 1000 }),
      lowLimit: await strategy(lenderB, { collateral: [bond], loanToValueRatio: 500_000, funds: 1000 }),
      closed: await strategy(lenderB, { collateral: [bond], funds: 1000, extra: { originationsEnabled: false } }),
      capped: await strategy(lenderB, { collateral: [bond], funds: 1000, extra: { originationCap: { amount: 100 } } }),
      buffered: await strategy(lenderB, { collateral: [bond], funds: 200, extra: { liquidityBuffer: { amount: 100 } } }),
      oneDay: await strategy(lenderB, { collateral: [bond], apy: [30_000], funds: 1000 }),
      good: await strategy(lenderB, { collateral: [bond], funds: 1000 }),
    };
    const stranger = await account({ managed: true, canPayFees: true, seed: { amount: 1 } });
    const before = async () => Promise.all([vaultA, ...Object.values(vaults)].map((v) => units(v, usd)));
    const balances = await before();
    const loanBefore = await loanRecord(escrow.onchainId);

    const refusals: [Awaited<ReturnType<typeof refinance>>, number, string, RegExp][] = [
      [await refinance(escrow, borrower, vaults.noBond, 2), 400, 'itemData.toLender', /does not accept/],
      [await refinance(escrow, borrower, vaults.lowLimit, 2), 400, 'itemData.toLender', /loan-to-value is 7500\d\d cBPS.*limit of 500000/],
      [await refinance(escrow, borrower, vaults.closed, 2), 409, 'itemData.toLender', /originationsEnabled/],
      [await refinance(escrow, borrower, vaults.capped, 2), 409, 'itemData.toLender', /origination cap/],
      [await refinance(escrow, borrower, vaults.buffered, 2), 409, 'itemData.toLender', /liquidity buffer/],
      [await refinance(escrow, borrower, vaults.oneDay, 2), 400, 'itemData.durationIndex', /duration index 2/],
      [await refinance(escrow, borrower, stranger, 2), 400, 'itemData.toLender', /not a loan strategy's vault/],
      [await refinance(escrow, borrower, vaults.good, 2, { fromLender: lenderB }), 400, 'itemData.fromLender', /lender is/],
      [await refinance(escrow, borrower, vaults.good, 2, { feePayer: stranger }), 400, 'svmTransactionConfig.feePayer', /borrower/],
      [await refinance(escrow, borrower, vaults.good, 2, { feePayer: null }), 400, 'svmTransactionConfig.feePayer', /fee payer/],
      [await refinance(escrow, borrower, vaults.good, 2, { borrowedItem: at(borrower, bond) }), 400, 'itemData.borrowedItem', /borrowed item/],
    ];
    for (const [answer, status, field, message] of refusals) {
      expect({ status: answer.status, field: answer.body.errors?.[0]?.field }).toEqual({ status, field });
      expect(answer.body.errors[0].message).toMatch(message);
    }
    priceTable.delete(bond.offchainId);
    const noPrice = await refinance(escrow, borrower, vaults.good, 2);
    expect({ status: noPrice.status, field: noPrice.body.errors?.[0]?.field }).toEqual({ status: 409, field: 'itemData.escrow' });
    priceTable.set(bond.offchainId, '2');

    expect(await before()).toEqual(balances);
    const loan = await loanRecord(escrow.onchainId);
    expect({ ...loan, updatedAt: null }).toEqual({ ...loanBefore, updatedAt: null });
    // Nothing kept the loan held: B's good strategy takes it.
    const moved = await refinance(escrow, borrower, vaults.good, 4);
    expect(moved.body).toMatchObject({ success: true });
    expect((await loanRecord(escrow.onchainId)).strategyAddress).toBe(vaults.good.onchainId);
  });

  it('moves the loan once when three refinances race (one movement of a loan at a time)', async () => {
    const vaultA = await strategy(lenderA, { funds: 1000 });
    const vaultB = await strategy(lenderB, { funds: 1000 });
    const { borrower, escrow } = await openLoan(vaultA, 100, 50, { expectedApy: 250_000 });
    const [a, b] = [await units(vaultA, usd), await units(vaultB, usd)];
    const answers = await Promise.all([1, 2, 3].map(() => refinance(escrow, borrower, vaultB, 4)));
    // One moved it; the others waited their turn in the loan's workflow and found the loan B's: A, their
    // fromLender, is no longer its lender (400). Nothing was refused for a write "in progress".
    const movedIt = answers.filter((x) => x.body.success);
    expect(movedIt).toHaveLength(1);
    for (const other of answers.filter((x) => !x.body.success))
      expect({ status: other.status, ...other.body.errors?.[0] }).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', field: 'itemData.fromLender' });
    const paid = (await units(vaultA, usd)) - a;
    expect(paid).toBeGreaterThanOrEqual(50n * USD);
    expect(b - (await units(vaultB, usd))).toBe(paid);
    expect((await loanRecord(escrow.onchainId)).strategyAddress).toBe(vaultB.onchainId);
  });
  it('with itemData.submitTransaction false rests at SIGNED, the loan held and unchanged, and moves on Submit Transaction', async () => {
    const vaultA = await strategy(lenderA, { funds: 1000 });
    const vaultB = await strategy(lenderB, { funds: 1000 });
    const { borrower, escrow } = await openLoan(vaultA, 100, 50, { expectedApy: 250_000 });
    const [a, b] = [await units(vaultA, usd), await units(vaultB, usd)];
    const body = refinanceBody(escrow, borrower, vaultB, 4);
    const both = await stack.call('PATCH', '/api/v1/loans/refinance', {
      ...body,
      itemData: { ...body.itemData, submitTransaction: false },
      svmTransactionConfig: { ...body.svmTransactionConfig, submitTransaction: true },
    });
    expect({ status: both.status, field: both.body.errors?.[0]?.field }).toEqual({ status: 400, field: 'itemData.submitTransaction' });

    const resting = await stack.call('PATCH', '/api/v1/loans/refinance', { ...body, itemData: { ...body.itemData, submitTransaction: false } });
    expect(resting.status).toBe(200);
    expect(resting.body).toMatchObject({ status: 'SIGNED' });
    expect([await units(vaultA, usd), await units(vaultB, usd)]).toEqual([a, b]);
    expect((await loanRecord(escrow.onchainId)).strategyAddress).toBe(vaultA.onchainId);
    const meanwhile = await refinance(escrow, borrower, vaultB, 4);
    expect({ status: meanwhile.status, field: meanwhile.body.errors?.[0]?.field }).toEqual({ status: 409, field: 'itemData.escrow' });

    const submitted = await stack.call('POST', '/api/v1/transactions/submit', {
      itemData: { transaction: { offchainId: resting.body.offchainId } },
    });
    expect(submitted.body).toMatchObject({ success: true, onchainId: resting.body.onchainId });
    const paid = (await units(vaultA, usd)) - a;
    expect(paid).toBeGreaterThanOrEqual(50n * USD);
    expect(b - (await units(vaultB, usd))).toBe(paid);
    expect(await loanRecord(escrow.onchainId)).toMatchObject({ strategyAddress: vaultB.onchainId, principalDue: paid.toString(), inUseByTransactionId: null });
  });
});

/**
 * Runs `write` on a worker process that is SIGKILLed at `point` (`held-send`: inside submit, once
 * the node took the bytes and the proxy holds its answer), then resumes it on the stack's worker.
 */
async function underFault<T>(point: 'held-send' | 'after:record', write: () => Promise<T>): Promise<T> {
  await stack.stopWorker();
  const worker = await startFaultWorker(stack, point === 'held-send' ? 'none' : point, proxy.url);
  const held = point === 'held-send' ? proxy.holdNextSend() : undefined;
  const sendsBefore = proxy.sends;
  const answer = write();
  await (held ?? worker.reached);
  await worker.kill();
  proxy.releaseHeld();
  // The node took the refinance's bytes once, before the kill.
  expect(proxy.sends).toBe(sendsBefore + 1);
  await stack.restartWorker();
  return answer;
}

describe.each(['held-send', 'after:record'] as const)('a worker killed mid-refinance (%s)', (point) => {
  it('resumes: A credited once, B debited once, one transaction, records = chain', async () => {
    const vaultA = await strategy(lenderA, { funds: 1000 });
    const vaultB = await strategy(lenderB, { funds: 1000 });
    const { borrower, escrow } = await openLoan(vaultA, 100, 50, { expectedApy: 250_000 });
    const [a, b, fees] = [await units(vaultA, usd), await units(vaultB, usd), await lamportsOf(borrower)];

    const moved = await underFault(point, () => refinance(escrow, borrower, vaultB, 4));

    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ success: true, status: expect.stringMatching(/^(CONFIRMED|FINALIZED)$/) });
    const paid = (await units(vaultA, usd)) - a;
    expect(paid).toBeGreaterThanOrEqual(50n * USD);
    expect(paid).toBeLessThan(51n * USD);
    expect(b - (await units(vaultB, usd))).toBe(paid);
    // One transaction: the borrower paid two signatures' fees once.
    expect(fees - (await lamportsOf(borrower))).toBe(2n * FEE);
    const record = (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: moved.body.offchainId } } })).body;
    expect(record).toMatchObject({ onchainId: moved.body.onchainId, operation: 'REFINANCE_LOAN' });
    // As answered, or already followed on to FINALIZED by the chain follower (docs/finality.md).
    expect([moved.body.status, 'FINALIZED']).toContain(record.status);
    expect((await rpc.getSignatureStatuses([moved.body.onchainId], { searchTransactionHistory: true }).send()).value[0]?.err).toBeNull();
    const loan = await loanRecord(escrow.onchainId);
    expect({ strategy: loan.strategyAddress, principalDue: loan.principalDue, held: loan.inUseByTransactionId }).toEqual({
      strategy: vaultB.onchainId,
      principalDue: paid.toString(),
      held: null,
    });
    for (const status of ['PENDING', 'BUILT', 'SIGNED', 'SUBMITTED']) {
      const open = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {
        itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: status }] }] },
      });
      expect({ status, count: open.body.count }).toEqual({ status, count: 0 });
    }
  });
});
