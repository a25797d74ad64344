/**
 * Repay Loan's rules (spec 4.4, docs/loans.md) over the request and the loan the handler looked up:
 * something to repay or release, a repayment in the principal of at most what is owed, and what
 * stays pledged after a release keeps an unsettled loan within its loan-to-value limit. Pure; the
 * items out of the escrow are checked by loan.rules.ts's checkOutOfEscrow.
 */
import { validationError } from '../../errors';
import { applyRepayment, interestAt } from '../../loans';
import { fromBaseUnits, resolveValue } from '../../money';
import type { LoanMovementItem } from './loan.inputs';
import { requireUnsettled, type InstrumentFacts, type LoanFacts } from './loan.rules';

/** Only an OPEN or OVERDUE loan is repaid. */
export function requireOwing(loan: Pick<LoanFacts, 'status'>): void {
  requireUnsettled(loan.status, `the loan is ${loan.status}: nothing is owed`);
}

/** A Repay Loan repays, releases, or both. */
export function requireRepayOrRelease(repays: LoanMovementItem[], releases: LoanMovementItem[]): void {
  if (repays.length + releases.length === 0) throw validationError('itemData', 'give itemsToRepay, itemsToRelease or both');
}

/**
 * One repayment (`p`: its field) from the borrower's position of `instrument`: in the principal,
 * a value or repayAll, more than zero and at most `owed` (principal and interest until now, base
 * units; repayAll pays exactly that). Answers the base units paid.
 */
export function repaymentUnits(principal: InstrumentFacts, instrument: InstrumentFacts, repay: LoanMovementItem, p: string, owed: bigint): bigint {
  if (instrument.id !== principal.id) throw validationError(`${p}.positionLookup`, `the loan is repaid in its principal ${principal.mintAddress}`);
  if (!!repay.repayAll === !!repay.value) throw validationError(`${p}.value`, 'give value or repayAll (one of them)');
  const paid = repay.repayAll ? owed : resolveValue(repay.value!, principal.decimals, `${p}.value`);
  if (paid === 0n) throw validationError(`${p}.value`, 'the amount must be more than zero');
  if (paid > owed)
    throw validationError(
      `${p}.value`,
      `the loan owes ${fromBaseUnits(owed, principal.decimals)} (principal and interest until now); repay that much with repayAll`,
    );
  return paid;
}

/** What remains pledged after the releases leaves the loan (still owing) at `ltv` cBPS, at most its limit. */
export function checkReleaseLoanToValue(loan: Pick<LoanFacts, 'loanToValueRatio'>, ltv: bigint): void {
  if (ltv > BigInt(loan.loanToValueRatio))
    throw validationError(
      'itemData.itemsToRelease',
      `what would remain pledged leaves the loan at a loan-to-value of ${ltv} cBPS, above its limit of ${loan.loanToValueRatio}: release less or repay more`,
    );
}

/** The loan's balances after paying `paid` base units with `interest` accrued to then (interest first; repayAll settles it). */
export function balanceAfterRepayment(loan: Pick<LoanFacts, 'principalDue' | 'principalRepaid'>, interest: bigint, paid: bigint, repayAll: boolean) {
  return applyRepayment(
    { principalDue: BigInt(loan.principalDue), principalRepaid: BigInt(loan.principalRepaid), interestOutstanding: 0n },
    interest,
    paid,
    repayAll,
  );
}

/**
 * The loan's record fields once the repayment lands at `at`: its balances with interest to `at`,
 * REPAID when settled, and the released units out of its pledged items.
 */
export function repaidLoanFields(loan: LoanFacts, paid: bigint, repayAll: boolean, released: { financialInstrumentId: string; amount: string }[], at: Date) {
  const after = balanceAfterRepayment(loan, interestAt(loan, at), paid, repayAll);
  return {
    principalDue: after.principalDue.toString(),
    principalRepaid: after.principalRepaid.toString(),
    interestOutstanding: after.interestOutstanding.toString(),
    lastInterestUpdateTime: at,
    status: after.settled ? 'REPAID' : loan.status,
    pledged: loan.pledged.map((p) => ({
      ...p,
      amount: (
        BigInt(p.amount) - released.filter((r) => r.financialInstrumentId === p.financialInstrumentId).reduce((sum, r) => sum + BigInt(r.amount), 0n)
      ).toString(),
    })),
  };
}
