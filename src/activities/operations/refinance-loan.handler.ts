/**
 * Refinance Loan (spec 4.4) with the same lender, and the rollover a strategy with `rollover: true`
 * makes at maturity (the loan's workflow runs it as a child write): a new term for durationIndex at
 * the strategy's current rate, the accrued interest added to principalDue. No value moves, so no
 * network transaction: the loan's record changes in the record step. Refinancing to another
 * lender's strategy is not built (400 naming toLender).
 */
import { FinancialInstrument, Loan, LoanStrategy } from '../../db/entities';
import { findAccountByLookup } from '../../db/repositories/accounts.repository';
import { conflict, validationError } from '../../domain/errors';
import type { RefinanceLoanItemData } from '../../domain/inputs/loan.inputs';
import { durationDays, interestAt, quoteFor, rolledOver } from '../../domain/loans';
import { holdLoanFor, loanOfEscrow, requireLoanBorrower, scopeOf } from './loan-legs';
import type { OperationHandler } from './operation-handler';

interface RefinanceLoanData {
  loanId: string;
  apy: number;
  loanToValueRatio: number;
  liquidationRatio: number;
  durationIndex: number;
  secondsPerDay: number;
}

export const refinanceLoanHandler: OperationHandler<RefinanceLoanItemData, RefinanceLoanData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const loan = await loanOfEscrow(em, scope, item.escrow, 'itemData.escrow');
    await holdLoanFor(em, request, loan);
    if (loan.status !== 'OPEN' && loan.status !== 'OVERDUE') throw conflict('itemData.escrow', `the loan is ${loan.status}`);
    // The loan's own workflow (rollover) names no fee payer; a caller names the borrower.
    if (request.svmTransactionConfig.feePayer) await requireLoanBorrower(em, scope, request, loan);
    const lender = async (lookup: RefinanceLoanItemData['fromLender'], field: string) => (lookup ? (await findAccountByLookup(em, scope, lookup, field)).address : loan.lenderAddress);
    if ((await lender(item.fromLender, 'itemData.fromLender')) !== loan.lenderAddress) throw validationError('itemData.fromLender', `the loan's lender is ${loan.lenderAddress}`);
    if ((await lender(item.toLender, 'itemData.toLender')) !== loan.lenderAddress) throw validationError('itemData.toLender', 'refinancing to another lender\'s strategy is not available yet (docs/loans.md); omit toLender to roll over with the same lender');
    if (item.borrower && (await findAccountByLookup(em, scope, item.borrower, 'itemData.borrower')).address !== loan.borrowerAddress) throw validationError('itemData.borrower', `the loan's borrower is ${loan.borrowerAddress}`);
    const strategy = await em.findOneOrFail(LoanStrategy, { id: loan.strategyId });
    const terms = loan.collateralInstrumentIds.map((id, i) => {
      const found = strategy.collateral.find((c) => c.financialInstrumentId === id);
      if (!found) throw validationError('itemData.escrow', `the strategy no longer accepts pledged item ${i}`);
      return found;
    });
    const quote = quoteFor(terms, item.durationIndex, 'itemData.durationIndex');
    await em.findOneOrFail(FinancialInstrument, { id: loan.principalInstrumentId });
    const data: RefinanceLoanData = { loanId: loan.id, apy: quote.apy, loanToValueRatio: quote.loanToValueRatio, liquidationRatio: quote.liquidationRatio, durationIndex: item.durationIndex, secondsPerDay: deps.loanSecondsPerDay ?? 86_400 };
    return { needsTransaction: false, feePayer: deps.feePayerAddress, signers: [], debits: [], webhooks: { preSubmit: false, postSubmit: false }, data };
  },

  instructions() {
    return [];
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (outcome) return undefined;
    const d = resolved.data;
    const loan = await em.findOneOrFail(Loan, { id: d.loanId });
    const next = rolledOver({ principalDue: BigInt(loan.principalDue) }, interestAt(loan, at), at, durationDays[d.durationIndex], d.secondsPerDay);
    Object.assign(loan, {
      principalDue: next.principalDue.toString(),
      interestOutstanding: '0',
      termStartAt: next.termStartAt,
      maturityAt: next.maturityAt,
      lastInterestUpdateTime: at,
      apy: d.apy,
      loanToValueRatio: d.loanToValueRatio,
      liquidationRatio: d.liquidationRatio,
      durationIndex: d.durationIndex,
      durationDays: durationDays[d.durationIndex],
      status: 'OPEN',
      lastTransactionId: tx?.id ?? loan.lastTransactionId,
      updatedAt: at,
    });
    if (tx) tx.accountIds = [...new Set([loan.escrowAccountId, ...tx.accountIds])];
    return { onchainId: loan.escrowAddress, offchainId: loan.escrowAccountId };
  },

  async reconcile(em, deps, request, resolved) {
    const loan = await em.findOneOrFail(Loan, { id: resolved.data.loanId });
    await deps.loans?.changed(request.organizationId, loan.escrowAddress);
  },
};
