/**
 * A loan's own workflow on the real stack (docs/loans.md), with loan days of 2 seconds
 * (LOAN_SECONDS_PER_DAY): maturity → OVERDUE → LIQUIDATED after the grace period (48 h, here 4 s)
 * with the collateral moved to the lender's vault once; a repaid loan's workflow ends at once; the
 * `nextAction` query and the search attributes operators find loans by.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { liquidationWorkflowId, loanWorkflowId } from '../../src/domain/loan-lifecycle';
import { Loan } from '../../src/db/entities';
import { forkEm } from '../../src/main/runtime';
import { createLoan } from '../support/loan-kit';
import { organizationSegment } from '../../src/domain/workflow-ids';
import { startStack, type Stack } from '../support/stack';
import { temporalTarget } from '../support/temporal';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let client: Client;
let connection: Connection;
let usd: Ref;
let lender: Ref;

const account = async (itemData: Record<string, unknown> = { managed: true }) =>
  (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as Ref;
const at = (owner: Ref, mint: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint.onchainId } });
const mint = async (owner: Ref, amount: number) => {
  await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner, usd) } });
  expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner, usd), value: { amount } } })).body).toMatchObject({
    success: true,
  });
};
const holding = async (owner: Ref): Promise<string> => {
  const body = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner, usd) } })).body;
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return String(body.onchain.balance.amount);
};
const status = async (escrow: string) =>
  (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body.status as string;

/** A funded strategy and a one-"day" loan: 20 pledged, 10 borrowed. */
async function openLoan(rollover = false) {
  const vault = (
    await stack.call('POST', '/api/v1/loans/strategies', {
      itemData: {
        strategy: {},
        lender: { offchainId: lender.offchainId },
        principal: { financialInstrument: { onchainId: usd.onchainId } },
        collateral: [{ financialInstrument: { onchainId: usd.onchainId }, apy: [100_000, 200_000], loanToValueRatio: 800_000, liquidationRatio: 900_000 }],
        rollover,
      },
    })
  ).body.newLoanStrategy as Ref;
  expect(
    (
      await stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: at(lender, usd), destination: at(vault, usd), value: { amount: 100 }, initializeDestinationPositionIfNeeded: true },
      })
    ).body,
  ).toMatchObject({ success: true });
  const borrower = await account({ managed: true, canPayFees: true, seed: { amount: 1 } });
  await mint(borrower, 20);
  const { escrow, loanId } = await createLoan(stack, vault, borrower, usd, { borrow: 10, pledge: 20 });
  return { vault, borrower, escrow, loanId };
}

beforeAll(async () => {
  stack = await startStack({ loanSecondsPerDay: 2 });
  connection = await Connection.connect({ address: temporalTarget().address });
  client = new Client({ connection, namespace: temporalTarget().namespace });
  const authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } } }))
    .body.newAccount;
  usd = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 6 },
        mintAuthority: { offchainId: authority.offchainId },
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STABLECOIN' } } },
      },
    })
  ).body.newFinancialInstrument;
  lender = await account();
  await mint(lender, 1000);
});
afterAll(async () => {
  await connection?.close();
  await stack?.close();
});

it('marks a loan OVERDUE at maturity and LIQUIDATED after the grace period, the collateral moved to the vault once', async () => {
  const { vault, borrower, escrow, loanId } = await openLoan();
  // Named by the organization's external id (the API key's organization), not its internal one.
  const handle = client.workflow.getHandle(`loan-${stack.organizationExternalId.replace(/-/g, '_')}-${escrow}`);
  expect(handle.workflowId).not.toContain((await forkEm(stack.runtime.orm).findOneOrFail(Loan, { id: loanId })).organizationId);
  const first = await handle.query<{ action: string; at: string; status: string }>('nextAction');
  expect(first).toMatchObject({ action: 'MARK_OVERDUE', status: 'OPEN' });
  const described = await handle.describe();
  expect(described.searchAttributes).toMatchObject({
    LedgerOrganization: [stack.organizationExternalId],
    LedgerEscrow: [escrow],
    LedgerBorrower: [borrower.onchainId],
    LedgerLender: [lender.onchainId],
    LedgerLoanStrategy: [vault.onchainId],
    LedgerLoanStatus: ['OPEN'],
  });

  await waitFor(async () => (await status(escrow)) === 'OVERDUE', 10_000, 200);
  expect(await handle.query('nextAction')).toMatchObject({ action: 'LIQUIDATE', status: 'OVERDUE' });
  await waitFor(async () => (await status(escrow)) === 'LIQUIDATED', 15_000, 200);
  expect(await handle.result()).toBe('LIQUIDATED');
  // The liquidation is a write like any other to an operator: its search attributes, its summary in the Web UI.
  const organization = { id: (await forkEm(stack.runtime.orm).findOneOrFail(Loan, { id: loanId })).organizationId, externalId: stack.organizationExternalId };
  const liquidation = await client.workflow.getHandle(liquidationWorkflowId(organizationSegment(organization), loanId)).describe();
  expect(liquidation.searchAttributes).toMatchObject({
    LedgerOrganization: [stack.organizationExternalId],
    LedgerOperation: ['LIQUIDATE_LOAN'],
    LedgerTransactionOffchainId: [expect.any(String)],
    LedgerStatus: [expect.stringMatching(/^(CONFIRMED|FINALIZED)$/)],
  });
  expect(await liquidation.staticSummary()).toBe(`Liquidate Loan · ${stack.organizationExternalId}`);
  // 100 funded, 10 lent, 20 of collateral taken: 110, and the borrower keeps what was lent.
  expect(await holding(vault)).toBe('110');
  expect(await holding(borrower)).toBe('10');
  const closed = await stack.call('PATCH', '/api/v1/loans/close', {
    itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow } },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(closed.body).toMatchObject({ success: true });
  expect(await status(escrow)).toBe('CLOSED');

  // The run's history replays on today's workflow code; LOAN_HISTORY_FIXTURE=1 stores it for the replay test of later releases.
  const history = await handle.fetchHistory();
  await Worker.runReplayHistory({ workflowsPath: require.resolve('../../src/workflows') }, history, handle.workflowId);
  if (process.env.LOAN_HISTORY_FIXTURE)
    fs.writeFileSync(path.join(__dirname, '../fixtures/loan-liquidation-history.pb'), temporal.api.history.v1.History.encode(history).finish());
});

it('ends the workflow of a loan repaid before maturity, and nothing is liquidated', async () => {
  const { vault, borrower, escrow, loanId } = await openLoan();
  const repaid = await stack.call('PATCH', '/api/v1/loans/repay', {
    itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, itemsToRepay: [{ positionLookup: at(borrower, usd), repayAll: true }] },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(repaid.body).toMatchObject({ success: true });
  const organizationId = (await forkEm(stack.runtime.orm).findOneOrFail(Loan, { id: loanId })).organizationId;
  expect(await client.workflow.getHandle(loanWorkflowId({ id: organizationId, externalId: stack.organizationExternalId }, escrow)).result()).toBe('REPAID');
  expect(await status(escrow)).toBe('REPAID');
  expect(Number(await holding(vault))).toBeGreaterThanOrEqual(100);
});

it('rolls a loan over at maturity when its strategy says so: a new term, interest capitalised; Refinance Loan does the same on request', async () => {
  const { borrower, escrow, loanId } = await openLoan(true);
  const details = async () => (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;
  const organizationId = (await forkEm(stack.runtime.orm).findOneOrFail(Loan, { id: loanId })).organizationId;
  const handle = client.workflow.getHandle(loanWorkflowId({ id: organizationId, externalId: stack.organizationExternalId }, escrow));
  // From its start, the workflow says what it will do at maturity: the rollover.
  expect(await handle.query('nextAction')).toMatchObject({ action: 'ROLLOVER', status: 'OPEN' });
  const first = await details();
  const rolled = await waitFor(
    async () => {
      const now = await details();
      return now.termStartAt !== first.termStartAt ? now : undefined;
    },
    10_000,
    200,
  );
  expect(rolled.status).toBe('OPEN');
  expect(Date.parse(rolled.termStartAt)).toBeGreaterThanOrEqual(Date.parse(first.maturityAt));
  expect(Date.parse(rolled.maturityAt) - Date.parse(rolled.termStartAt)).toBe(2_000);
  // 10 at 10 % for about 2 s is far below a base unit: principalDue stays 10, and the interest clock restarted.
  expect(rolled.borrowedItems[0]).toMatchObject({ principalDue: 10, interestOutstanding: 0, lastInterestUpdateTime: rolled.termStartAt });
  const transactions = await stack.call('POST', '/api/v1/transactions/bulk/compact', {
    itemQuery: { filter: [{ fieldName: 'operation', filterValues: [{ filterType: 'EQUALS', valueString: 'REFINANCE_LOAN' }] }] },
  });
  expect(transactions.body.count).toBeGreaterThanOrEqual(1);

  // The loan rolls over every 2 s here; a Refinance Loan that meets a rollover waits for it in the loan's workflow (one movement at a time), never a 409.
  for (let i = 0; i < 4; i++) {
    const again = await stack.call('PATCH', '/api/v1/loans/refinance', {
      itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, durationIndex: 0 },
      svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
    });
    expect(again.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 600));
  }
  const refinanced = await stack.call('PATCH', '/api/v1/loans/refinance', {
    itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, durationIndex: 1 },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(refinanced.status).toBe(200);
  expect(refinanced.body).toMatchObject({ success: true, onchainId: null, status: 'FINALIZED' });
  const weekly = await details();
  expect(weekly).toMatchObject({ status: 'OPEN', durationIndex: 1, borrowedItems: [{ apy: 200_000, duration: { code: 'DAYS', unit: 7 } }] });
  // The workflow waits for the new term's end: its state is the record's.
  // Its strategy rolls over: at the new maturity the workflow rolls it over again, it never marks it OVERDUE.
  expect(await handle.query('nextAction')).toEqual({ action: 'ROLLOVER', at: weekly.maturityAt, status: 'OPEN' });
  const otherLender = await stack.call('PATCH', '/api/v1/loans/refinance', {
    itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, durationIndex: 1, toLender: { offchainId: borrower.offchainId } },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(otherLender.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.toLender' });
  const repaid = await stack.call('PATCH', '/api/v1/loans/repay', {
    itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, itemsToRepay: [{ positionLookup: at(borrower, usd), repayAll: true }] },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(repaid.body).toMatchObject({ success: true });
  expect(await handle.result()).toBe('REPAID');
  // Every movement the API sent (five refinances, the refused one to another lender, the repayment) is in the
  // workflow's history as an accepted and completed update; the rollovers are its own children.
  const events = (await handle.fetchHistory()).events ?? [];
  const { EventType } = temporal.api.enums.v1;
  expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toHaveLength(7);
  expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)).toHaveLength(7);
  // Updates interleaved with the workflow's own rollovers (taking their turn, behind patched('loan-movement-updates')) replay on today's code.
  await Worker.runReplayHistory({ workflowsPath: require.resolve('../../src/workflows') }, await handle.fetchHistory(), handle.workflowId);
});

it('never lets a repayment race the liquidation: Repay All sent as the grace period ends is paid or refused, and value moves once', async () => {
  const { vault, borrower, escrow, loanId } = await openLoan();
  const details = (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;
  // The grace period (48 h of 2-second days: 4 s) ends 4 s after maturity: repayments land around that moment.
  const graceEnd = Date.parse(details.maturityAt) + 4_000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceEnd - 150 - Date.now())));
  const repayAll = () =>
    stack.call('PATCH', '/api/v1/loans/repay', {
      itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, itemsToRepay: [{ positionLookup: at(borrower, usd), repayAll: true }] },
      svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
    });
  const answers: Promise<Awaited<ReturnType<typeof repayAll>>>[] = [];
  for (let i = 0; i < 4; i++) {
    answers.push(repayAll());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const settled = await Promise.all(answers);
  const organizationId = (await forkEm(stack.runtime.orm).findOneOrFail(Loan, { id: loanId })).organizationId;
  const outcome = await client.workflow.getHandle(loanWorkflowId({ id: organizationId, externalId: stack.organizationExternalId }, escrow)).result();
  // Each repayment waited for its turn: paid, or refused because the loan was settled, never "in progress".
  for (const answer of settled.filter((a) => a.status !== 200))
    expect(answer.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'itemData.escrow', message: expect.stringMatching(/REPAID|LIQUIDATED/) });
  const paid = settled.filter((a) => a.status === 200 && a.body.success === true).length;
  if (outcome === 'REPAID') {
    // Repaid first: 100 funded, 10 lent, 10 and some interest back; the collateral stays in the escrow.
    expect(paid).toBe(1);
    expect(Number(await holding(vault))).toBeGreaterThanOrEqual(100);
    expect(Number(await holding(vault))).toBeLessThan(100.01);
  } else {
    // Liquidated first: the 20 of collateral went to the vault, no repayment was taken.
    expect(outcome).toBe('LIQUIDATED');
    expect(paid).toBe(0);
    expect(await holding(vault)).toBe('110');
    expect(await holding(borrower)).toBe('10');
  }
});
