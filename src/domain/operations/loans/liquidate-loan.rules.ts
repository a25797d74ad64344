/**
 * Liquidation's rules (docs/loans.md), for the write a loan's own workflow runs: an unsettled loan
 * goes to its lender when it is OVERDUE past its grace period, or when its loan-to-value passed its
 * liquidation ratio. Pure, over the loan, the time and its loan-to-value looked up.
 */
import { conflict } from '../../errors';
import { graceMsOf, interestAt } from '../../loans';
import { requireUnsettled, type LoanFacts } from './loan.rules';

export type LiquidationReason = 'OVERDUE' | 'LIQUIDATION_RATIO';

/** Only an OPEN or OVERDUE loan is liquidated. */
export function requireLiquidatable(loan: Pick<LoanFacts, 'status'>): void {
  requireUnsettled(loan.status, `the loan is ${loan.status}`);
}

/** Whether the loan is OVERDUE past its grace period at `now` (hours shortened as days are, `secondsPerDay`). */
export const pastGrace = (loan: Pick<LoanFacts, 'status' | 'maturityAt'>, now: Date, secondsPerDay: number) =>
  loan.status === 'OVERDUE' && now.getTime() >= loan.maturityAt.getTime() + graceMsOf(secondsPerDay);

/** A loan within its grace period is liquidated only past its liquidation ratio (`ltv`, cBPS, at the latest prices). */
export function requirePastLiquidationRatio(loan: Pick<LoanFacts, 'status' | 'liquidationRatio'>, ltv: bigint): void {
  if (ltv <= BigInt(loan.liquidationRatio))
    throw conflict(
      'itemData.escrow',
      `the loan is ${loan.status}, within its grace period and at a loan-to-value of ${ltv} cBPS, not past its liquidation ratio ${loan.liquidationRatio}`,
    );
}

/** The loan's record fields once liquidated at `at`: LIQUIDATED, interest accrued to then kept owed, nothing pledged. */
export function liquidatedLoanFields(loan: LoanFacts, at: Date) {
  return {
    status: 'LIQUIDATED',
    interestOutstanding: interestAt(loan, at).toString(),
    lastInterestUpdateTime: at,
    pledged: loan.pledged.map((p) => ({ ...p, amount: '0' })),
  };
}
