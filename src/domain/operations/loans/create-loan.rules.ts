/**
 * Create Loan's rules (spec 4.4, docs/loans.md) over the request and the strategy, instruments and
 * vault the handler looked up: one borrowed item of the strategy's principal, pledges it accepts
 * (once each, a frozen-by-default one not topped up), the quote the borrower accepted, and the
 * loan-to-value within the strategy's limit. Pure; the lending guards are lending.rules.ts's.
 */
import { conflict, validationError } from '../../errors';
import { durationDays, maturityOf, type CollateralTerms } from '../../loans';
import type { CreateLoanItemData } from './loan.inputs';
import type { LoanQuote } from './lending.rules';
import { acceptedTerms, positiveUnits, type InstrumentFacts, type PledgedItem, type StrategyFacts } from './loan.rules';

type ItemToBorrow = CreateLoanItemData['itemsToBorrow'][number];
type ItemToPledge = CreateLoanItemData['itemsToPledge'][number];

/** A loan borrows one item (the strategy's principal); answers it. */
export function requireOneBorrow(items: ItemToBorrow[]): ItemToBorrow {
  const borrow = items[0];
  if (!borrow || items.length !== 1) throw validationError('itemData.itemsToBorrow', "a loan borrows one item: the strategy's principal");
  return borrow;
}

/** The borrowed item is the instrument the strategy lends. */
export function requireStrategyPrincipal(strategy: Pick<StrategyFacts, 'principalInstrumentId' | 'principalMint'>, principal: InstrumentFacts): void {
  if (principal.id !== strategy.principalInstrumentId)
    throw validationError('itemData.itemsToBorrow[0].positionLookup', `the strategy lends ${strategy.principalMint}, not ${principal.mintAddress}`);
}

/** A loan pledges at least one item. */
export function requirePledges(items: ItemToPledge[]): void {
  if (items.length === 0) throw validationError('itemData.itemsToPledge', 'a loan pledges at least one item');
}

/**
 * One pledged item (`p`: its field) of `instrument`, after the items whose instrument ids are
 * `pledgedIds`: a collateral the strategy accepts, pledged once, not topped up when frozen by default
 * (spec 4.4 rule 6: its thaw instructions leave no room), more than zero. Answers its terms and units.
 */
export function checkPledge(
  strategy: Pick<StrategyFacts, 'collateral'>,
  instrument: InstrumentFacts,
  pledge: ItemToPledge,
  p: string,
  pledgedIds: string[],
): { terms: CollateralTerms; units: bigint } {
  const terms = acceptedTerms(strategy, instrument, `${p}.positionLookup`);
  if (pledgedIds.includes(instrument.id))
    throw validationError(`${p}.positionLookup`, `${instrument.mintAddress} is pledged twice; pledge it once with the sum`);
  if (instrument.defaultPositionState === 'FROZEN' && (pledge.transferFrom || pledge.mintAsset)) {
    throw validationError(
      pledge.transferFrom ? `${p}.transferFrom` : `${p}.mintAsset`,
      `${instrument.mintAddress} is frozen by default: its thaw instructions must fit the transaction, so it cannot be topped up with transferFrom or mintAsset here; prefund the position`,
    );
  }
  return { terms, units: positiveUnits(pledge.value, instrument.decimals, `${p}.value`) };
}

/** expectedLoanValues must equal the current quote: otherwise 409, naming what moved (`p`: the expectedLoanValues field). */
export function checkExpectedValues(quote: LoanQuote, expected: { expectedApy: number; expectedLqt: number[] }, p: string): void {
  if (expected.expectedApy !== quote.apy) throw conflict(`${p}.expectedApy`, `the quote moved: the APY is now ${quote.apy} cBPS, not ${expected.expectedApy}`);
  if (expected.expectedLqt.length !== quote.liquidationRatios.length)
    throw validationError(`${p}.expectedLqt`, `${p}.expectedLqt holds one liquidation ratio per pledged item (${quote.liquidationRatios.length})`);
  expected.expectedLqt.forEach((lqt, i) => {
    if (lqt !== quote.liquidationRatios[i])
      throw conflict(
        `${p}.expectedLqt[${i}]`,
        `the quote moved: the liquidation ratio of pledged item ${i} is now ${quote.liquidationRatios[i]} cBPS, not ${lqt}`,
      );
  });
}

/** The new loan's loan-to-value (`ltv`, cBPS) is at most the quote's limit. */
export function checkOpeningLoanToValue(ltv: bigint, quote: Pick<LoanQuote, 'loanToValueRatio'>): void {
  if (ltv > BigInt(quote.loanToValueRatio))
    throw validationError(
      'itemData.itemsToBorrow[0].value',
      `the loan-to-value would be ${ltv} cBPS, above the strategy's limit of ${quote.loanToValueRatio}: borrow less or pledge more`,
    );
}

/** The new loan's balances and term when its transaction lands at `at` (`secondsPerDay` shortens days for tests). */
export function openedLoanTerms(quote: LoanQuote, principalUnits: string, durationIndex: number, secondsPerDay: number, at: Date) {
  const days = durationDays[durationIndex];
  return {
    principalDue: principalUnits,
    principalRepaid: '0',
    interestOutstanding: '0',
    apy: quote.apy,
    loanToValueRatio: quote.loanToValueRatio,
    liquidationRatio: quote.liquidationRatio,
    durationIndex,
    durationDays: days,
    termStartAt: at,
    maturityAt: maturityOf(at, days, secondsPerDay),
    lastInterestUpdateTime: at,
    status: 'OPEN',
  };
}

/** What Create Loan's lookup resolved of the loan it opens (the handler adds its legs). */
export interface OpeningLoan {
  escrow: string;
  strategyId: string;
  strategyAddress: string;
  borrower: { address: string; id: string };
  lender: { address: string; id: string };
  principal: { id: string; mint: string; decimals: number; units: string };
  pledged: Omit<PledgedItem, 'escrowPosition'>[];
  quote: LoanQuote;
  durationIndex: number;
  secondsPerDay: number;
}

/**
 * The loan's record once its transaction landed at `at`: the parties, each pledge at the escrow's
 * position of its instrument (the movements opened them), and the terms from `at`.
 */
export function openedLoanRecord(
  loan: OpeningLoan,
  escrowAccountId: string,
  escrowPositions: readonly { financialInstrumentId: string; address: string }[],
  transactionId: string | null,
  at: Date,
) {
  return {
    strategyId: loan.strategyId,
    strategyAddress: loan.strategyAddress,
    escrowAddress: loan.escrow,
    escrowAccountId,
    borrowerAddress: loan.borrower.address,
    borrowerAccountId: loan.borrower.id,
    lenderAddress: loan.lender.address,
    lenderAccountId: loan.lender.id,
    principalInstrumentId: loan.principal.id,
    principalMint: loan.principal.mint,
    principalDecimals: loan.principal.decimals,
    pledged: loan.pledged.map((p) => ({ ...p, escrowPosition: escrowPositions.find((x) => x.financialInstrumentId === p.financialInstrumentId)!.address })),
    collateralMints: loan.pledged.map((p) => p.mintAddress),
    collateralInstrumentIds: loan.pledged.map((p) => p.financialInstrumentId),
    ...openedLoanTerms(loan.quote, loan.principal.units, loan.durationIndex, loan.secondsPerDay, at),
    creationTransactionId: transactionId,
    lastTransactionId: transactionId,
    createdAt: at,
    updatedAt: at,
  };
}
