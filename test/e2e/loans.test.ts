/**
 * Loans on the local node (spec 4.4, docs/loans.md): a lender's strategy and its funded vault, Create
 * Loan with every guard, Fetch Loan Details (interest to the second) and Fetch Loans. Balances are
 * read back from the chain and from the records after each loan write, and they must agree.
 */
import { parse } from 'lossless-json';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Loan } from '../../src/db/entities';
import { loanWorkflowId } from '../../src/domain/loan-lifecycle';
import { forkEm } from '../../src/main/runtime';
import { agreedBalance, at, createAccount, createStrategy, fixedPrices, mintInto, type Ref } from '../support/loan-kit';
import { startStack, type Stack } from '../support/stack';
import { withoutLiveState } from '../support/expectations';
import { temporalTarget } from '../support/temporal';
import { waitFor } from '../support/wait';

let stack: Stack;
let connection: Connection;
let client: Client;
let usd: Ref;
let bond: Ref;
let lender: Ref;
/** Prices the loans see (a fixed feed until oracle data sources exist). */
const priceTable = new Map<string, string>();
const prices = fixedPrices(priceTable);

const account = (itemData?: Record<string, unknown>) => createAccount(stack, itemData);
const mint = (owner: Ref, token: Ref, amount: number) => mintInto(stack, owner, token, amount);
/** UI amount held, after checking the chain and the record agree. */
const holding = async (owner: Ref, token: Ref): Promise<string> => String((await agreedBalance(stack, owner, token)).amount);
const escrowHolding = async (escrow: string, token: Ref): Promise<string> =>
  holding(
    { onchainId: escrow, offchainId: (await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { onchainId: escrow } } })).body.offchain.id },
    token,
  );

/** A strategy lending `usd` against `collateral` (default: usd itself), its vault funded with `funds`. */
const strategy = (options: Parameters<typeof createStrategy>[3] = {}) => createStrategy(stack, lender, usd, options);

const borrower = () => account({ managed: true, canPayFees: true, seed: { amount: 1 } });

/** A Create Loan body: pledge `pledge` of `collateral`, borrow `borrow` usd for a week. */
function loanBody(
  vault: Ref,
  who: Ref,
  pledge: number,
  borrow: number,
  options: { collateral?: Ref; expectedApy?: number; feePayer?: Ref; pledgeOwner?: Ref } = {},
) {
  return {
    itemData: {
      defiProtocol: 'LEDGER_ESCROW',
      protocolDetails: {
        loanStrategyAddress: vault.onchainId,
        expectedLoanValues: { expectedApy: options.expectedApy ?? 120_000, expectedLqt: [900_000] },
        durationIndex: 1,
      },
      itemsToBorrow: [{ positionLookup: at(who, usd), value: { amount: borrow } }],
      itemsToPledge: [{ positionLookup: at(options.pledgeOwner ?? who, options.collateral ?? usd), value: { amount: pledge } }],
    },
    svmTransactionConfig: { feePayer: { offchainId: (options.feePayer ?? who).offchainId } },
  };
}

/** The loan's own workflow (docs/loans.md), by its escrow. */
const loanWorkflow = async (escrow: string) =>
  client.workflow.getHandle(
    loanWorkflowId(
      { id: (await forkEm(stack.runtime.orm).findOneOrFail(Loan, { escrowAddress: escrow })).organizationId, externalId: stack.organizationExternalId },
      escrow,
    ),
  );
const { EventType } = temporal.api.enums.v1;
/** The ids of the updates the loan's workflow accepted and completed, from its history. */
async function movementUpdates(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    accepted: events
      .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
      .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.meta!.updateId!),
    completed: events
      .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)
      .map((e) => e.workflowExecutionUpdateCompletedEventAttributes!.meta!.updateId!),
  };
}
/** The workflow's `nextAction` agrees with the loan's record: its status, and the maturity it waits for. */
async function expectWorkflowAgrees(escrow: string) {
  const record = (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;
  const handle = await loanWorkflow(escrow);
  const running = (await handle.describe()).status.name === 'RUNNING';
  if (!running) return expect(await handle.result()).toBe(record.status);
  const next = await handle.query<{ action: string; at: string | null; status: string }>('nextAction');
  expect(next.status).toBe(record.status);
  if (record.status === 'OPEN') expect(next).toEqual({ action: 'MARK_OVERDUE', at: record.maturityAt, status: 'OPEN' });
}

beforeAll(async () => {
  stack = await startStack({ prices });
  connection = await Connection.connect({ address: temporalTarget().address });
  client = new Client({ connection, namespace: temporalTarget().namespace });
  const authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } }))
    .body.newAccount;
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
  lender = await account();
  await mint(lender, usd, 1_000_000);
});
afterAll(async () => {
  await connection?.close();
  await stack?.close();
});

describe('Loan strategies', () => {
  it('creates the vault as a managed account with the terms, and lists it by lender and collateral', async () => {
    const vault = await strategy({ collateral: [usd, bond], funds: 500, extra: { originationCap: { amount: 400 }, rollover: true } });
    expect(await holding(vault, usd)).toBe('500');
    const page = await stack.call('POST', '/api/v1/loans/strategies/bulk', {
      itemQuery: { filter: [{ fieldName: 'loanStrategyOnchainId', filterValues: [{ filterType: 'EQUALS', valueString: vault.onchainId }] }] },
    });
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(1);
    expect(page.body.items[0]).toMatchObject({
      loanStrategy: { onchain: { id: vault.onchainId }, offchain: { id: vault.offchainId, type: 'DEFI_SETTLEMENT_WALLET' }, managed: true },
      lender: { onchain: { id: lender.onchainId } },
      principal: { financialInstrument: { onchain: { id: usd.onchainId } } },
      collateral: [
        { financialInstrument: { onchain: { id: usd.onchainId } }, apy: [100_000, 120_000, 150_000], loanToValueRatio: 800_000, liquidationRatio: 900_000 },
        { financialInstrument: { onchain: { id: bond.onchainId } } },
      ],
      originationsEnabled: true,
      originationCap: 400,
      liquidityBuffer: null,
      rollover: true,
      outstandingPrincipal: 0,
    });
    const byCollateral = await stack.call('POST', '/api/v1/loans/strategies/bulk', {
      itemQuery: { filter: [{ fieldName: 'collateralFinancialInstrumentOnchainId', filterValues: [{ filterType: 'EQUALS', valueString: bond.onchainId }] }] },
    });
    expect(byCollateral.body.items.map((s: { loanStrategy: { onchain: { id: string } } }) => s.loanStrategy.onchain.id)).toContain(vault.onchainId);
  });

  it('refuses terms a loan could not live by, naming the field, and creates nothing', async () => {
    const refused = await stack.call('POST', '/api/v1/loans/strategies', {
      itemData: {
        strategy: {},
        lender: { offchainId: lender.offchainId },
        principal: { financialInstrument: { onchainId: usd.onchainId } },
        collateral: [{ financialInstrument: { onchainId: usd.onchainId }, apy: [1], loanToValueRatio: 900_000, liquidationRatio: 800_000 }],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.collateral[0].liquidationRatio' });
    const unmanaged = await stack.call('POST', '/api/v1/loans/strategies', {
      itemData: {
        strategy: { managed: false },
        lender: { offchainId: lender.offchainId },
        principal: { financialInstrument: { onchainId: usd.onchainId } },
        collateral: [{ financialInstrument: { onchainId: usd.onchainId }, apy: [1], loanToValueRatio: 1, liquidationRatio: 2 }],
      },
    });
    expect(unmanaged.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.strategy.managed' });
    // A lookup inside the vault's account payload that finds nothing is named where the request has it.
    const unknownAuthority = await stack.call('POST', '/api/v1/loans/strategies', {
      itemData: {
        strategy: {
          tokenDebitLimits: [
            {
              destination: 'ANY',
              mintAuthority: { offchainId: '00000000-0000-4000-8000-000000000000' },
              maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1 },
            },
          ],
        },
        lender: { offchainId: lender.offchainId },
        principal: { financialInstrument: { onchainId: usd.onchainId } },
        collateral: [{ financialInstrument: { onchainId: usd.onchainId }, apy: [1], loanToValueRatio: 1, liquidationRatio: 2 }],
      },
    });
    expect(unknownAuthority.status).toBe(404);
    expect(unknownAuthority.body.errors[0].field).toMatch(/^itemData\.strategy\.tokenDebitLimits/);
  });
});

describe('Create Loan', () => {
  it('moves the collateral into a new escrow and the principal to the borrower in one transaction; interest accrues to the second', async () => {
    const vault = await strategy({ funds: 300 });
    const alice = await borrower();
    await mint(alice, usd, 150);
    const created = await stack.call('POST', '/api/v1/loans', loanBody(vault, alice, 100, 60));
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction).toMatchObject({ success: true, status: 'CONFIRMED' });
    const { offchainId, escrow } = created.body.newLoan;
    expect(await holding(alice, usd)).toBe('110');
    expect(await holding(vault, usd)).toBe('240');
    expect(await escrowHolding(escrow.onchainId, usd)).toBe('100');

    // A year of simple interest at 12 %: 60 × 0.12 = 7.2, to the base unit.
    const open = await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow.onchainId } } });
    expect(open.status).toBe(200);
    const termStart = new Date(open.body.termStartAt);
    const inAYear = new Date(termStart.getTime() + 31_536_000_000).toISOString();
    const details = await stack.call('POST', '/api/v1/loans/single', {
      itemData: { escrow: { offchainId: escrow.offchainId }, computeEstimatedInterestUntil: inAYear },
    });
    expect(details.body).toMatchObject({
      offchainId,
      status: 'OPEN',
      loanStrategy: { onchainId: vault.onchainId },
      escrow: { onchain: { id: escrow.onchainId }, managed: true },
      borrower: { onchain: { id: alice.onchainId } },
      lender: { onchain: { id: lender.onchainId } },
      pledgedItems: [{ pledgedAmount: 100, accountDetails: { onchain: { id: usd.onchainId } } }],
      borrowedItems: [
        {
          apy: 120_000,
          loanToValueRatio: 600_000,
          liquidationRatio: 900_000,
          duration: { code: 'DAYS', unit: 7 },
          principalDue: 60,
          principalRepaid: 0,
          estimatedInterest: 7.2,
          accountDetails: { onchain: { id: usd.onchainId } },
        },
      ],
      marketData: [{ financialInstrument: { onchain: { id: usd.onchainId } }, price: null, dataSource: null }],
      durationIndex: 1,
    });
    expect(new Date(details.body.maturityAt).getTime() - termStart.getTime()).toBe(7 * 86_400_000);
    // One second of interest: 60 × 0.12 / 31,536,000 = 0.000000228310502… usd, exact to 15 places.
    const text = await (
      await fetch(`${stack.api.url}/api/v1/loans/single`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` },
        body: JSON.stringify({ itemData: { escrow: { onchainId: escrow.onchainId } } }),
      })
    ).text();
    expect(String((parse(text) as { borrowedItems: { interestPerSecond: { value: string } }[] }).borrowedItems[0].interestPerSecond.value)).toBe(
      '0.000000228310502',
    );

    const page = await stack.call('POST', '/api/v1/loans/bulk/compact', {
      itemQuery: { filter: [{ fieldName: 'borrowerOnchainId', filterValues: [{ filterType: 'EQUALS', valueString: alice.onchainId }] }] },
    });
    expect(page.body).toMatchObject({
      count: 1,
      items: [{ onchain: { id: escrow.onchainId }, offchain: { id: offchainId }, status: 'OPEN', principalDue: 60 }],
    });
    const strategies = await stack.call('POST', '/api/v1/loans/strategies/bulk', {
      itemQuery: { filter: [{ fieldName: 'loanStrategyOnchainId', filterValues: [{ filterType: 'EQUALS', valueString: vault.onchainId }] }] },
    });
    expect(strategies.body.items[0].outstandingPrincipal).toBe(60);
  });

  it("sends the principal to transferTo, another of the borrower's positions, not positionLookup's; someone else's transferTo is 400 and nothing moves", async () => {
    const vault = await strategy({ funds: 300 });
    const hana = await borrower();
    const ivan = await borrower();
    await mint(hana, usd, 150);
    await mint(ivan, usd, 10);
    // Hana's second usd position: an explicit (non-associated) token account she owns.
    const second = await account();
    const opened = await stack.call('POST', '/api/v1/positions', {
      itemData: {
        positionToInitialize: {
          position: { offchainId: second.offchainId },
          owner: { offchainId: hana.offchainId },
          financialInstrument: { onchainId: usd.onchainId },
        },
      },
    });
    expect(opened.status).toBe(201);
    const secondHolding = async () => {
      const answer = await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: { position: { offchainId: second.offchainId } } } });
      expect(answer.body.offchain.balance).toEqual(answer.body.onchain.balance);
      return String(answer.body.onchain.balance.amount);
    };
    const withTransferTo = (transferTo: unknown) => {
      const body = loanBody(vault, hana, 100, 60);
      return { ...body, itemData: { ...body.itemData, itemsToBorrow: [{ ...body.itemData.itemsToBorrow[0], transferTo }] } };
    };

    const refused = await stack.call('POST', '/api/v1/loans', withTransferTo(at(ivan, usd)));
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.itemsToBorrow[0].transferTo' });
    expect([await holding(hana, usd), await holding(ivan, usd), await holding(vault, usd), await secondHolding()]).toEqual(['150', '10', '300', '0']);

    const created = await stack.call('POST', '/api/v1/loans', withTransferTo({ position: { offchainId: second.offchainId } }));
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction).toMatchObject({ success: true });
    // The pledge left positionLookup's (associated) position; the principal went only to transferTo's.
    expect(await secondHolding()).toBe('60');
    expect(await holding(hana, usd)).toBe('50');
    expect(await holding(vault, usd)).toBe('240');
    expect(await escrowHolding(created.body.newLoan.escrow.onchainId, usd)).toBe('100');
  });

  it('values another collateral at its price, and refuses one without a price (409)', async () => {
    const vault = await strategy({ collateral: [bond], funds: 300 });
    const bob = await borrower();
    await mint(bob, bond, 100);
    const noPrice = await stack.call('POST', '/api/v1/loans', loanBody(vault, bob, 50, 10, { collateral: bond }));
    expect(noPrice.status).toBe(409);
    expect(noPrice.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'itemData.itemsToBorrow[0].positionLookup' });
    priceTable.set(usd.offchainId, '1');
    priceTable.set(bond.offchainId, '2.5');
    // 50 bonds at 2.5 = 125 usd: 101 is 80.8 %, above the 80 % limit; 100 is exactly at it.
    const tooMuch = await stack.call('POST', '/api/v1/loans', loanBody(vault, bob, 50, 101, { collateral: bond }));
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.itemsToBorrow[0].value' });
    const created = await stack.call('POST', '/api/v1/loans', loanBody(vault, bob, 50, 100, { collateral: bond }));
    expect(created.status).toBe(201);
    const details = await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: created.body.newLoan.escrow.onchainId } } });
    expect(details.body.borrowedItems[0].loanToValueRatio).toBeGreaterThanOrEqual(800_000);
    expect(details.body.marketData).toMatchObject([
      { financialInstrument: { onchain: { id: usd.onchainId } }, price: 1 },
      { financialInstrument: { onchain: { id: bond.onchainId } }, price: 2.5 },
    ]);
    expect(await holding(bob, bond)).toBe('50');
  });

  it('refuses a moved quote, a wrong fee payer, two owners, a cap, a buffer, originations off: nothing moves', async () => {
    const vault = await strategy({ funds: 100, extra: { originationCap: { amount: 50 }, liquidityBuffer: { amount: 40 } } });
    const carol = await borrower();
    const dave = await borrower();
    await mint(carol, usd, 100);
    await mint(dave, usd, 100);
    const expectRefusal = async (body: unknown, status: number, code: string, field: string) => {
      const refused = await stack.call('POST', '/api/v1/loans', body);
      expect(refused.status).toBe(status);
      expect(refused.body.errors[0]).toMatchObject({ code, field });
    };
    await expectRefusal(loanBody(vault, carol, 40, 10, { expectedApy: 100_000 }), 409, 'CONFLICT', 'itemData.protocolDetails.expectedLoanValues.expectedApy');
    await expectRefusal(loanBody(vault, carol, 40, 10, { feePayer: dave }), 400, 'VALIDATION_ERROR', 'itemData.itemsToBorrow[0].positionLookup');
    await expectRefusal(loanBody(vault, carol, 40, 10, { pledgeOwner: dave }), 400, 'VALIDATION_ERROR', 'itemData.itemsToPledge[0].positionLookup');
    const { svmTransactionConfig: _none, ...withoutFeePayer } = loanBody(vault, carol, 40, 10);
    await expectRefusal(withoutFeePayer, 400, 'VALIDATION_ERROR', 'svmTransactionConfig.feePayer');
    // The buffer keeps 40 of 100: 61 does not fit; the cap is 50: 55 does not fit either.
    await expectRefusal(loanBody(vault, carol, 100, 61), 409, 'CONFLICT', 'itemData.itemsToBorrow[0].value');
    await expectRefusal(loanBody(vault, carol, 100, 55), 409, 'CONFLICT', 'itemData.itemsToBorrow[0].value');
    expect((await stack.call('POST', '/api/v1/loans', loanBody(vault, carol, 50, 30))).status).toBe(201);
    // 30 lent: 21 more passes the buffer (70 - 21 = 49) but not the cap (51).
    await expectRefusal(loanBody(vault, dave, 50, 21), 409, 'CONFLICT', 'itemData.itemsToBorrow[0].value');
    expect(await holding(carol, usd)).toBe('80');
    expect(await holding(dave, usd)).toBe('100');
    expect(await holding(vault, usd)).toBe('70');

    const closed = await strategy({ funds: 10, extra: { originationsEnabled: false } });
    await expectRefusal(loanBody(closed, dave, 10, 1), 409, 'CONFLICT', 'itemData.protocolDetails.loanStrategyAddress');
  });
});

describe('Repay Loan and Close Loan', () => {
  const repay = (escrow: string, who: Ref, itemData: Record<string, unknown>) =>
    stack.call('PATCH', '/api/v1/loans/repay', {
      itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, ...itemData },
      svmTransactionConfig: { feePayer: { offchainId: who.offchainId } },
    });
  const details = async (escrow: string) => (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;

  it('repays in part (interest first), releases collateral only within the ratio, repays all, then closes the escrow', async () => {
    const vault = await strategy({ funds: 200 });
    const erin = await borrower();
    await mint(erin, usd, 200);
    const created = await stack.call('POST', '/api/v1/loans', loanBody(vault, erin, 100, 60));
    expect(created.status).toBe(201);
    const escrow = created.body.newLoan.escrow.onchainId as string;

    // 10 paid: the interest accrued so far (well under a unit of 0.01) first, the rest off the principal.
    const part = await repay(escrow, erin, { itemsToRepay: [{ positionLookup: at(erin, usd), value: { amount: 10 } }] });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    const afterPart = await details(escrow);
    expect(afterPart.status).toBe('OPEN');
    const principalDue = Number(afterPart.borrowedItems[0].principalDue);
    expect(principalDue).toBeGreaterThanOrEqual(50);
    expect(principalDue).toBeLessThan(50.01);
    expect(Number(afterPart.borrowedItems[0].principalRepaid)).toBeCloseTo(60 - principalDue, 6);
    expect(afterPart.borrowedItems[0].interestOutstanding).toBe(0);
    expect(await holding(vault, usd)).toBe('150');

    // About 50 owed against 100 pledged, limit 80 %: releasing 40 would leave 83 %; 30 leaves 71 %.
    const tooMuch = await repay(escrow, erin, { itemsToRelease: [{ positionLookup: at(erin, usd), value: { amount: 40 } }] });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.itemsToRelease' });
    const released = await repay(escrow, erin, { itemsToRelease: [{ positionLookup: at(erin, usd), value: { amount: 30 } }] });
    expect(released.body).toMatchObject({ success: true });
    expect(await escrowHolding(escrow, usd)).toBe('70');
    expect((await details(escrow)).pledgedItems[0].pledgedAmount).toBe(70);

    const notRepaid = await stack.call('PATCH', '/api/v1/loans/close', {
      itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow } },
      svmTransactionConfig: { feePayer: { offchainId: erin.offchainId } },
    });
    expect(notRepaid.status).toBe(409);
    const all = await repay(escrow, erin, { itemsToRepay: [{ positionLookup: at(erin, usd), repayAll: true }] });
    expect(all.body).toMatchObject({ success: true });
    const repaid = await details(escrow);
    expect(repaid).toMatchObject({ status: 'REPAID', borrowedItems: [{ principalDue: 0, principalRepaid: 60, interestOutstanding: 0, interestPerSecond: 0 }] });
    const vaultHolds = Number(await holding(vault, usd));
    expect(vaultHolds).toBeGreaterThanOrEqual(200);
    expect(vaultHolds).toBeLessThan(200.01);
    const again = await repay(escrow, erin, { itemsToRepay: [{ positionLookup: at(erin, usd), value: { amount: 1 } }] });
    expect(again.status).toBe(409);

    const escrowPosition = (
      await stack.call('POST', '/api/v1/positions/single', {
        itemData: { position: { owner: { onchainId: escrow }, financialInstrument: { onchainId: usd.onchainId } } },
      })
    ).body.onchain.id as string;
    const lamportsBefore = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: erin.offchainId } } })).body.onchain
      .balance.lamports;
    const closed = await stack.call('PATCH', '/api/v1/loans/close', {
      itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow } },
      svmTransactionConfig: { feePayer: { offchainId: erin.offchainId } },
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ success: true });
    // The collateral came back, the escrow's token account is gone and its rent went to the borrower (less the fee).
    expect(Number(await holding(erin, usd))).toBeCloseTo(200 - (vaultHolds - 200), 6);
    expect(await stack.runtime.networks.get('LOCAL')!.getAccount(escrowPosition)).toBeNull();
    const lamportsAfter = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: erin.offchainId } } })).body.onchain
      .balance.lamports;
    expect(lamportsAfter).toBeGreaterThan(lamportsBefore + 2_000_000 - 10_000);
    const final = await details(escrow);
    expect(final).toMatchObject({ status: 'CLOSED', escrow: { status: 'CLOSED' }, pledgedItems: [{ pledgedAmount: 0 }] });
    const page = await stack.call('POST', '/api/v1/loans/bulk/identifiers', {
      itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: 'CLOSED' }] }] },
    });
    expect(page.body.items).toContainEqual({ onchain: { id: escrow }, offchain: { id: created.body.newLoan.offchainId } });
  });
});

describe('one movement of a loan at a time', () => {
  it("pays once when three Repay All race: the loan's workflow runs them one after the other, the later ones find it repaid", async () => {
    const vault = await strategy({ funds: 200 });
    const fay = await borrower();
    await mint(fay, usd, 200);
    const created = await stack.call('POST', '/api/v1/loans', loanBody(vault, fay, 100, 60));
    expect(created.status).toBe(201);
    const escrow = created.body.newLoan.escrow.onchainId as string;
    const repayAll = () =>
      stack.call('PATCH', '/api/v1/loans/repay', {
        itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, itemsToRepay: [{ positionLookup: at(fay, usd), repayAll: true }] },
        svmTransactionConfig: { feePayer: { offchainId: fay.offchainId } },
      });
    const answers = await Promise.all([repayAll(), repayAll(), repayAll()]);
    expect(answers.filter((a) => a.status === 200 && a.body.success === true)).toHaveLength(1);
    // Not the hold's "in progress": each waited for its turn, then found nothing owed (or was refused at once by the workflow).
    for (const refused of answers.filter((a) => a.status !== 200))
      expect(refused.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'itemData.escrow', message: expect.stringMatching(/REPAID/) });
    // 60 borrowed and a little interest paid back once: the vault holds about 200, not about 260.
    const vaultHolds = Number(await holding(vault, usd));
    expect(vaultHolds).toBeGreaterThanOrEqual(200);
    expect(vaultHolds).toBeLessThan(200.01);
    expect((await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body.status).toBe('REPAID');
    // The paid one passed through the loan's workflow as an update, whose id is the write's workflow id.
    const handle = await loanWorkflow(escrow);
    expect(await handle.result()).toBe('REPAID');
    const paid = answers.find((a) => a.status === 200)!.body.offchainId as string;
    const workflowId = (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: paid } } })).body.workflowId as string;
    const updates = await movementUpdates(handle);
    expect(updates.accepted).toContain(workflowId);
    expect(updates.completed).toEqual(updates.accepted);
  });
});

describe("the loan's workflow takes its movements as updates", () => {
  it('runs repay, refinance and swap through the workflow, whose state agrees with the record after each; a repeat gets the first answer; a close of an open loan is refused at once', async () => {
    const vault = await strategy({ funds: 200 });
    const gil = await borrower();
    await mint(gil, usd, 200);
    const created = await stack.call('POST', '/api/v1/loans', loanBody(vault, gil, 100, 60));
    expect(created.status).toBe(201);
    const escrow = created.body.newLoan.escrow.onchainId as string;
    const handle = await loanWorkflow(escrow);
    await expectWorkflowAgrees(escrow);
    const move = (path: string, itemData: Record<string, unknown>, headers: Record<string, string> = {}) =>
      stack.call(
        'PATCH',
        `/api/v1/loans/${path}`,
        {
          itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, ...itemData },
          svmTransactionConfig: { feePayer: { offchainId: gil.offchainId } },
        },
        { headers },
      );

    // Prefer: respond-async: 202 at once, Fetch Transaction Status follows the write the workflow runs.
    const accepted = await move('repay', { itemsToRepay: [{ positionLookup: at(gil, usd), value: { amount: 10 } }] }, { prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    const repaid = await waitFor(
      async () => {
        const status = (
          await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: accepted.body.transaction.offchainId } } })
        ).body;
        return status.status === 'CONFIRMED' || status.status === 'FINALIZED' ? status : undefined;
      },
      20_000,
      200,
    );
    expect(repaid.success).toBe(true);
    expect(await holding(vault, usd)).toBe('150');
    await waitFor(async () => ((await movementUpdates(handle)).completed.includes(repaid.workflowId) ? true : undefined), 10_000, 200);
    await expectWorkflowAgrees(escrow);

    // Refinance (a new term of a month) with an Idempotency-Key, twice: one write, the same answer, the workflow waits for the new maturity.
    const key = { 'idempotency-key': `refinance-${escrow}` };
    const first = await move('refinance', { durationIndex: 2 }, key);
    expect(first.status).toBe(200);
    // The same lender's new term sends no network transaction: its answer is the write's record, like the other loan writes'.
    expect(first.body).toMatchObject({ success: true, onchainId: null, status: 'FINALIZED', errorMessage: null });
    const again = await move('refinance', { durationIndex: 2 }, key);
    expect(withoutLiveState(again.body)).toEqual(withoutLiveState(first.body));
    const month = (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;
    expect(month).toMatchObject({ status: 'OPEN', durationIndex: 2 });
    await expectWorkflowAgrees(escrow);
    const refinances = await stack.call('POST', '/api/v1/transactions/bulk/detailed', {
      itemQuery: { filter: [{ fieldName: 'operation', filterValues: [{ filterType: 'EQUALS', valueString: 'REFINANCE_LOAN' }] }] },
    });
    const ours = refinances.body.items.filter((t: { workflowId: string }) => t.workflowId.endsWith(`refinance-${escrow}`));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ offchainId: first.body.offchainId, status: 'FINALIZED', success: true, onchainId: null });

    // The same repayment sent twice at once with one key (a client retrying): one update, one write, one payment.
    const repayKey = { 'idempotency-key': `repay-${escrow}` };
    const twice = await Promise.all([0, 1].map(() => move('repay', { itemsToRepay: [{ positionLookup: at(gil, usd), value: { amount: 5 } }] }, repayKey)));
    expect(twice.map((a) => a.status)).toEqual([200, 200]);
    expect(twice[1].body.offchainId).toBe(twice[0].body.offchainId);
    expect(await holding(vault, usd)).toBe('155');

    const swapped = await move('swap-collateral', { itemsToWithdraw: [{ positionLookup: at(gil, usd), value: { amount: 10 } }] });
    expect(swapped.body).toMatchObject({ success: true });
    expect(await escrowHolding(escrow, usd)).toBe('90');
    await expectWorkflowAgrees(escrow);

    // The workflow's validator refuses a close of an OPEN loan: 409, and nothing of it in the history or the records.
    const before = (await handle.fetchHistory()).events!.length;
    const closeCount = async () =>
      (
        await stack.call('POST', '/api/v1/transactions/bulk/compact', {
          itemQuery: { filter: [{ fieldName: 'operation', filterValues: [{ filterType: 'EQUALS', valueString: 'CLOSE_LOAN' }] }] },
        })
      ).body.count as number;
    const closesBefore = await closeCount();
    const close = await move('close', {});
    expect(close.status).toBe(409);
    expect(close.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'itemData.escrow' });
    const asyncClose = await move('close', {}, { prefer: 'respond-async' });
    expect(asyncClose.status).toBe(409);
    const after = await movementUpdates(handle);
    expect(after.accepted).toHaveLength(4);
    expect(after.completed).toHaveLength(4);
    expect((await handle.fetchHistory()).events!.length).toBe(before);
    expect(await closeCount()).toBe(closesBefore);

    const all = await move('repay', { itemsToRepay: [{ positionLookup: at(gil, usd), repayAll: true }] });
    expect(all.body).toMatchObject({ success: true });
    expect(await handle.result()).toBe('REPAID');
    await expectWorkflowAgrees(escrow);
    // Its workflow has ended with the loan settled: Close starts it again (update-with-start), runs as its child, and it ends again.
    const closed = await move('close', {});
    expect(closed.body).toMatchObject({ success: true });
  });
});

describe('Swap Collateral', () => {
  it('deposits another accepted collateral and withdraws some of the first in one transaction, only within the ratio', async () => {
    priceTable.set(usd.offchainId, '1');
    priceTable.set(bond.offchainId, '2.5');
    const vault = await strategy({ collateral: [usd, bond], funds: 100 });
    const frank = await borrower();
    await mint(frank, usd, 100);
    await mint(frank, bond, 20);
    const created = await stack.call('POST', '/api/v1/loans', loanBody(vault, frank, 100, 60));
    expect(created.status).toBe(201);
    const escrow = created.body.newLoan.escrow.onchainId as string;
    const swap = (itemData: Record<string, unknown>) =>
      stack.call('PATCH', '/api/v1/loans/swap-collateral', {
        itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, ...itemData },
        svmTransactionConfig: { feePayer: { offchainId: frank.offchainId } },
      });

    // 60 owed: 60 usd and 20 bonds at 2.5 (110) is 55 %; 10 usd and the bonds (60) would be 100 %.
    const tooMuch = await swap({
      itemsToDeposit: [{ positionLookup: at(frank, bond), value: { amount: 20 } }],
      itemsToWithdraw: [{ positionLookup: at(frank, usd), value: { amount: 90 } }],
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.itemsToWithdraw' });
    expect(await holding(frank, bond)).toBe('20');

    const swapped = await swap({
      itemsToDeposit: [{ positionLookup: at(frank, bond), value: { amount: 20 } }],
      itemsToWithdraw: [{ positionLookup: at(frank, usd), value: { amount: 40 } }],
    });
    expect(swapped.status).toBe(200);
    expect(swapped.body).toMatchObject({ success: true });
    expect(await escrowHolding(escrow, usd)).toBe('60');
    expect(await escrowHolding(escrow, bond)).toBe('20');
    expect(await holding(frank, bond)).toBe('0');
    const details = (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;
    expect(details.pledgedItems).toMatchObject([
      { pledgedAmount: 60, accountDetails: { onchain: { id: usd.onchainId } } },
      { pledgedAmount: 20, accountDetails: { onchain: { id: bond.onchainId } } },
    ]);
    expect(details.marketData).toMatchObject([{ price: 1 }, { financialInstrument: { onchain: { id: bond.onchainId } }, price: 2.5 }]);
    const byCollateral = await stack.call('POST', '/api/v1/loans/bulk/identifiers', {
      itemQuery: { filter: [{ fieldName: 'collateralFinancialInstrumentOnchainId', filterValues: [{ filterType: 'EQUALS', valueString: bond.onchainId }] }] },
    });
    expect(byCollateral.body.items).toContainEqual({ onchain: { id: escrow }, offchain: { id: created.body.newLoan.offchainId } });
  });
});
