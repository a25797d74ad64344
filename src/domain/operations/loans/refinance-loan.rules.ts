/**
 * Refinance Loan's rules (spec 4.4, docs/loans.md) over the request and the loan, accounts and
 * strategies the handler looked up: the parties the request names are the loan's, `toLender` is the
 * loan's lender (a rollover) or another strategy's vault, that strategy lends the loan's principal
 * against all its collateral, and the loan's loan-to-value is within its limit. Pure; the lending
 * guards are lending.rules.ts's.
 */
import { validationError } from '../../errors';
import { durationDays, rolledOver } from '../../loans';
import { quoteFor, type LoanQuote } from './lending.rules';
import { requireUnsettled, type InstrumentFacts, type LoanFacts, type StrategyFacts } from './loan.rules';

/** The field naming the strategy a loan moves to. */
export const TO_LENDER = 'itemData.toLender';

/** Only an OPEN or OVERDUE loan is refinanced. */
export function requireRefinanceable(loan: Pick<LoanFacts, 'status'>): void {
  requireUnsettled(loan.status, `the loan is ${loan.status}`);
}

/** fromLender (an account's address) is the loan's lender: its account or its strategy's vault. */
export function requireFromLender(loan: Pick<LoanFacts, 'lenderAddress' | 'strategyAddress'>, from: string): void {
  if (from !== loan.lenderAddress && from !== loan.strategyAddress)
    throw validationError('itemData.fromLender', `the loan's lender is ${loan.lenderAddress} (strategy vault ${loan.strategyAddress})`);
}

/** borrower (an account's address) is the loan's borrower. */
export function requireNamedBorrower(loan: Pick<LoanFacts, 'borrowerAddress'>, borrower: string): void {
  if (borrower !== loan.borrowerAddress) throw validationError('itemData.borrower', `the loan's borrower is ${loan.borrowerAddress}`);
}

/** borrowedItem names the borrower's position of the principal (nothing moves to it). */
export function requireBorrowedItem(principal: InstrumentFacts, instrument: InstrumentFacts): void {
  if (instrument.id !== principal.id) throw validationError('itemData.borrowedItem', `the loan's borrowed item is ${principal.mintAddress}`);
}

/** Whether `toLender` (an account's address) names the loan's own lender (its account or its strategy's vault): a rollover. */
export const isSameLender = (loan: Pick<LoanFacts, 'lenderAddress' | 'strategyAddress'>, to: string) =>
  to === loan.lenderAddress || to === loan.strategyAddress;

/** Another lender is named by its strategy's vault: the strategy whose vault is `to` (null: none) must exist. */
export function requireStrategyVault<S>(strategy: S | null, to: string): S {
  if (!strategy)
    throw validationError(
      TO_LENDER,
      `${to} is not a loan strategy's vault: to refinance to another lender, name the vault of its strategy (loanStrategy of Fetch Loan Strategies); to roll over with the same lender, omit toLender`,
    );
  return strategy;
}

/** The strategy the loan moves to lends the loan's principal. */
export function requireSamePrincipal(
  strategy: Pick<StrategyFacts, 'principalInstrumentId' | 'principalMint'>,
  loan: Pick<LoanFacts, 'principalInstrumentId' | 'principalMint'>,
): void {
  if (strategy.principalInstrumentId !== loan.principalInstrumentId)
    throw validationError(TO_LENDER, `the strategy lends ${strategy.principalMint}; the loan's principal is ${loan.principalMint}`);
}

/** The strategy's quote for the loan's collateral at the duration; a collateral it does not accept is 400 naming `field`. */
export function quoteOf(
  strategy: Pick<StrategyFacts, 'collateral'>,
  loan: Pick<LoanFacts, 'collateralInstrumentIds' | 'collateralMints'>,
  durationIndex: number,
  field: string,
): LoanQuote {
  const terms = loan.collateralInstrumentIds.map((id, i) => {
    const found = strategy.collateral.find((c) => c.financialInstrumentId === id);
    if (!found) throw validationError(field, `the strategy does not accept ${loan.collateralMints[i]} (pledged item ${i}) as collateral`);
    return found;
  });
  return quoteFor(terms, durationIndex, 'itemData.durationIndex');
}

/** The loan's loan-to-value now (`ltv`, principal and interest over its collateral) is within the new strategy's limit. */
export function checkMoveLoanToValue(ltv: bigint, quote: Pick<LoanQuote, 'loanToValueRatio'>): void {
  if (ltv > BigInt(quote.loanToValueRatio))
    throw validationError(
      TO_LENDER,
      `the loan's loan-to-value is ${ltv} cBPS (principal and interest over its collateral), above the strategy's limit of ${quote.loanToValueRatio}: repay some or pledge more first`,
    );
}

/** The new term's terms, as the handler carries them from lookup to record. */
export interface RefinancedTerms {
  apy: number;
  loanToValueRatio: number;
  liquidationRatio: number;
  durationIndex: number;
  secondsPerDay: number;
}

/** The loan's record fields for a new term from `at`: `interest` (base units) added to principalDue, OPEN at the new terms. */
export function refinancedLoanFields(loan: Pick<LoanFacts, 'principalDue'>, terms: RefinancedTerms, interest: bigint, at: Date) {
  const next = rolledOver({ principalDue: BigInt(loan.principalDue) }, interest, at, durationDays[terms.durationIndex], terms.secondsPerDay);
  return {
    principalDue: next.principalDue.toString(),
    interestOutstanding: '0',
    termStartAt: next.termStartAt,
    maturityAt: next.maturityAt,
    lastInterestUpdateTime: at,
    apy: terms.apy,
    loanToValueRatio: terms.loanToValueRatio,
    liquidationRatio: terms.liquidationRatio,
    durationIndex: terms.durationIndex,
    durationDays: durationDays[terms.durationIndex],
    status: 'OPEN',
  };
}
