/** Loans (spec 4.2 and 4.4, docs/loans.md): loan strategies, Create Loan, Fetch Loan Details, Fetch Loans. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, FinancialInstrument, Loan, LoanStrategy } from '../../db/entities';
import { findAccountByLookup } from '../../db/repositories/accounts.repository';
import { notFound } from '../../domain/errors';
import { translateItemQuery } from '../../domain/item-query';
import { GRACE_HOURS, durationDays } from '../../domain/loans';
import { noPrices } from '../../domain/prices';
import { bulkBody } from '../codecs/common.codecs';
import { closeLoanBody, createLoanBody, createLoanStrategyBody, loanDetailsBody, refinanceLoanBody, repayLoanBody, swapCollateralBody } from '../codecs/loan.codecs';
import { transactionResult } from '../../domain/responses/write.responses';
import type { ApiDeps } from '../context';
import { loanRelated, presentLoan, presentLoanStrategy, type LoanRelated } from '../presenters/loan.presenter';
import { refinanceLoanResponse, createLoanResponse, createLoanStrategyResponse, loanDetailed, loanLevels, loanStrategyPage } from '../../domain/responses/loan.responses';
import { route, type RouteSpec } from '../route';
import { actingScope } from '../tenancy';
import { bulkRoute } from './bulk-route';
import { findPage, pageFields } from '../../db/repositories/bulk-pages.repository';
import { loanQuery, loanStrategyQuery } from './query-fields';
import { writeRoute } from './write-route';
import { throughLoanWorkflow } from '../../client/loan-movements';

const PROTOCOL = `defiProtocol LEDGER_ESCROW (API.md 7): rates and ratios in cBPS (1,000,000 = 100 %); duration indexes ${durationDays.map((d, i) => `${i} = ${d} day${d > 1 ? 's' : ''}`).join(', ')}; simple interest per second, principalDue × apy / 1,000,000 / 31,536,000. See docs/loans.md.`;

/** The accounts and instruments a page of strategies shows, and the principal owed on each one's unsettled loans. */
async function strategyRelated(em: EntityManager, rows: LoanStrategy[]) {
  const accounts = new Map((await em.find(Account, { id: { $in: rows.flatMap((r) => [r.id, r.lenderAccountId]) } })).map((a) => [a.id, a]));
  const instruments = new Map((await em.find(FinancialInstrument, { id: { $in: rows.flatMap((r) => [r.principalInstrumentId, ...r.collateral.map((c) => c.financialInstrumentId)]) } })).map((i) => [i.id, i]));
  const loans = rows.length ? await em.find(Loan, { strategyId: { $in: rows.map((r) => r.id) }, status: { $in: ['OPEN', 'OVERDUE'] } }, { fields: ['strategyId', 'principalDue'] }) : [];
  const outstanding = (id: string) => loans.filter((l) => l.strategyId === id).reduce((sum, l) => sum + BigInt(l.principalDue), 0n);
  return { accounts, instruments, outstanding };
}

export function loanRoutes(deps: ApiDeps): RouteSpec[] {
  const prices = () => deps.prices ?? noPrices;
  return [
    writeRoute(deps, {
      operationId: 'createLoanStrategy',
      method: 'post',
      path: '/api/v1/loans/strategies',
      tag: 'Loans',
      summary: `Create Loan Strategy: a lender vault. strategy is the vault's account payload (spec 2.3; a new managed account, offchain reference type DEFI_SETTLEMENT_WALLET by default, debit limits and webhooks as any account); lender the lending account; principal the instrument it lends; collateral the instruments it accepts with apy per duration index, loanToValueRatio (the limit a loan may open at) and liquidationRatio (above it). originationsEnabled (default true) switches new loans; originationCap caps the principal owed on its OPEN and OVERDUE loans; liquidityBuffer is what the vault keeps; rollover (default false) starts a new term at maturity. The lender funds the vault with Transfer into the vault's position of the principal (initializeDestinationPositionIfNeeded). ${PROTOCOL}`,
      body: createLoanStrategyBody,
      successStatus: 201,
      response: createLoanStrategyResponse,
      operation: 'CREATE_LOAN_STRATEGY',
      creates: true,
      answer: 'newLoanStrategy',
    }),
    route({
      operationId: 'fetchLoanStrategies',
      method: 'post',
      path: '/api/v1/loans/strategies/bulk',
      tag: 'Loans',
      summary: 'Fetch Loan Strategies with filter, sort and paging; items are detailed records. Fields: loanStrategyOnchainId, loanStrategyOffchainId, lenderOnchainId, lenderOffchainId, principalFinancialInstrumentOnchainId, principalFinancialInstrumentOffchainId, collateralFinancialInstrumentOnchainId, originationsEnabled, rollover, createdAt (default sort, newest first).',
      role: 'READ',
      body: bulkBody,
      successStatus: 200,
      response: loanStrategyPage,
      async handler(ctx, body) {
        const { em, scope } = await actingScope(ctx, deps, body.tenancyConfig);
        const page = await findPage(em, LoanStrategy, translateItemQuery(loanStrategyQuery, body.itemQuery, scope));
        const rows = page.items;
        const { accounts, instruments, outstanding } = await strategyRelated(em, rows);
        return { ...pageFields(page), items: rows.map((row) => presentLoanStrategy(row, accounts, instruments, outstanding(row.id))) };
      },
    }),
    writeRoute(deps, {
      operationId: 'createLoan',
      method: 'post',
      path: '/api/v1/loans',
      tag: 'Loans',
      summary: `Create Loan (spec 4.4): a new escrow wallet (a managed account the service holds); the pledged items move from the borrower's positions into the escrow (topped up first in the same transaction by transferFrom, another of the borrower's positions, or mintAsset), the principal from the strategy's vault to the borrower's position (transferTo, or positionLookup), in one network transaction. svmTransactionConfig.feePayer must be the borrower, who owns every position named. Refused before anything is signed: a strategy that does not accept a collateral or lend for the duration (400), originations off, the origination cap or the liquidity buffer exceeded, a missing price (409 CONFLICT), expectedLoanValues that are not the current quote (409 CONFLICT: expectedApy is the highest APY of the pledged instruments at durationIndex, expectedLqt their liquidation ratios in order), a loan-to-value above the strategy's limit (400; a loan whose collateral is its principal needs no price). A frozen-by-default collateral is thawed in the same transaction (no transferFrom or mintAsset for it). Debit limits, approvals and webhooks apply as to any transfer. The term runs from the landing of the transaction; OVERDUE ${GRACE_HOURS} h of grace after maturity. ${PROTOCOL}`,
      body: createLoanBody,
      successStatus: 201,
      response: createLoanResponse,
      operation: 'CREATE_LOAN',
      creates: true,
      extraRecords: ['escrow'],
      async answer(ctx, answer) {
        if (answer.async) {
          ctx.state.status = 202;
          return { transaction: answer.transaction };
        }
        const escrow = answer.created ?? null;
        const loan = escrow ? await deps.orm.em.fork().findOne(Loan, { escrowAddress: escrow.onchainId, escrowAccountId: escrow.offchainId }) : null;
        return { newLoan: loan && escrow ? { offchainId: loan.id, escrow } : null, svmTransaction: answer.transaction };
      },
    }),
    writeRoute(deps, {
      operationId: 'swapCollateral',
      method: 'patch',
      path: '/api/v1/loans/swap-collateral',
      tag: 'Loans',
      summary: "Swap Collateral (spec 4.4): itemsToDeposit move from the borrower's positions into the escrow (collateral the strategy accepts; topped up first by transferFrom or mintAsset), itemsToWithdraw from the escrow back to the borrower's positions (positionLookup and value only), in one network transaction, only while the loan stays within its loan-to-value limit afterwards (400 naming itemData.itemsToWithdraw). The fee payer must be the borrower, who owns every position named. A loan that is not OPEN or OVERDUE: 409.",
      body: swapCollateralBody,
      successStatus: 200,
      response: transactionResult,
      operation: 'SWAP_COLLATERAL',
      start: throughLoanWorkflow,
    }),
    writeRoute(deps, {
      operationId: 'repayLoan',
      method: 'patch',
      path: '/api/v1/loans/repay',
      tag: 'Loans',
      summary: "Repay Loan (spec 4.4): itemsToRepay (one, in the principal) moves from the borrower's position (topped up first by transferFrom or mintAsset) into the strategy's vault, interest first (accrued to the landing of the transaction), then principal; repayAll pays everything owed when the request is looked up and settles the loan (REPAID). itemsToRelease move collateral from the escrow back to the borrower's positions, only while what remains keeps the loan's loan-to-value (principal due and interest over the collateral) within its limit (400 otherwise), any amount once repaid. One network transaction; the fee payer must be the borrower. A loan that is not OPEN or OVERDUE: 409.",
      body: repayLoanBody,
      successStatus: 200,
      response: transactionResult,
      operation: 'REPAY_LOAN',
      start: throughLoanWorkflow,
    }),
    writeRoute(deps, {
      operationId: 'refinanceLoan',
      method: 'patch',
      path: '/api/v1/loans/refinance',
      tag: 'Loans',
      summary: "Refinance Loan (spec 4.4) with the same lender (toLender omitted or the loan's lender): a new term of durationIndex from now at the strategy's current rate for the loan's collateral, the accrued interest added to principalDue; the loan is OPEN again. No value moves, so no network transaction (svmTransaction null). The fee payer, when named, must be the borrower. To another lender's strategy (toLender: its vault account): in one network transaction the new vault pays the old vault principal and interest accrued until the request is looked up, and the loan becomes the new strategy's (lender, rate for durationIndex, a new term from the landing, principalDue = what was paid), with Create Loan's guards on the new strategy (accepted collateral, originations on, cap, buffer, loan-to-value at oracle prices within its limit); the fee payer must be the borrower. A strategy with rollover: true does this at maturity on its own.",
      body: refinanceLoanBody,
      successStatus: 200,
      response: refinanceLoanResponse,
      operation: 'REFINANCE_LOAN',
      start: throughLoanWorkflow,
      answer: 'escrow',
    }),
    writeRoute(deps, {
      operationId: 'closeLoan',
      method: 'patch',
      path: '/api/v1/loans/close',
      tag: 'Loans',
      summary: "Close Loan (API.md 6): a REPAID loan's remaining collateral goes back to the borrower's positions (a LIQUIDATED loan's, if any is left, to the lender's vault), the escrow's token accounts are closed with their rent refunded to refundDestination (default: the fee payer, who must be the borrower); the escrow account record becomes CLOSED and the loan CLOSED. Another status: 409.",
      body: closeLoanBody,
      successStatus: 200,
      response: transactionResult,
      operation: 'CLOSE_LOAN',
      start: throughLoanWorkflow,
    }),
    route({
      operationId: 'fetchLoanDetails',
      method: 'post',
      path: '/api/v1/loans/single',
      tag: 'Loans',
      summary: "Fetch Loan Details (spec 2.6): the loan of the escrow, with interestOutstanding accrued until now and estimatedInterest until computeEstimatedInterestUntil (default now); loanToValueRatio is the loan's current ratio (principal due and interest over the collateral) at the prices in marketData. 404 when the account is not a loan's escrow.",
      role: 'READ',
      body: loanDetailsBody,
      successStatus: 200,
      response: loanDetailed,
      async handler(ctx, body) {
        const { em, scope } = await actingScope(ctx, deps, body.tenancyConfig);
        const field = 'itemData.escrow';
        const escrow = await findAccountByLookup(em, scope, body.itemData.escrow, field);
        const loan = await em.findOne(Loan, { ...scope, escrowAccountId: escrow.id });
        if (!loan) throw notFound(field, `account ${escrow.address} is not the escrow of a loan`);
        const now = deps.now();
        const until = body.itemData.computeEstimatedInterestUntil ? new Date(body.itemData.computeEstimatedInterestUntil) : now;
        return presentLoan(loan, 'detailed', await loanRelated(em, [loan], prices(), until, now)) as never;
      },
    }),
    bulkRoute(deps, {
      operationId: 'fetchLoans',
      levels: loanLevels,
      path: '/api/v1/loans/bulk',
      tag: 'Loans',
      summary: 'Fetch Loans with filter, sort and paging. Fields: status, escrowOnchainId, escrowOffchainId, borrowerOnchainId, borrowerOffchainId, lenderOnchainId, lenderOffchainId, loanStrategyOnchainId, loanStrategyOffchainId, principalFinancialInstrumentOnchainId, principalFinancialInstrumentOffchainId, collateralFinancialInstrumentOnchainId, collateralFinancialInstrumentOffchainId, durationIndex, termStartAt, maturityAt, createdAt (default sort, newest first). Detailed items are the record of Fetch Loan Details, interest until now.',
      entity: Loan,
      query: loanQuery,
      present: (loan, level, related?: LoanRelated) => presentLoan(loan, level, related) as never,
      related: (em, loans) => loanRelated(em, loans, prices(), deps.now(), deps.now()),
    }),
  ];
}
