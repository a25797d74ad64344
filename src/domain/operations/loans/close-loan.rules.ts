/**
 * Close Loan's rules (docs/loans.md) over the request and the loan and escrow the handler looked up:
 * only a settled loan (REPAID or LIQUIDATED) is closed, and the rent goes anywhere but the escrow
 * being closed. Pure.
 */
import { conflict, validationError } from '../../errors';
import type { LoanFacts, PledgedItem } from './loan.rules';

/** Only a REPAID or LIQUIDATED loan is closed. */
export function requireClosable(loan: Pick<LoanFacts, 'status'>): void {
  if (loan.status !== 'REPAID' && loan.status !== 'LIQUIDATED')
    throw conflict('itemData.escrow', `the loan is ${loan.status}: only a REPAID or LIQUIDATED loan is closed`);
}

/** refundDestination (an address) is not the escrow being closed. */
export function requireRefundElsewhere(refundTo: string, escrow: string): void {
  if (refundTo === escrow) throw validationError('itemData.refundDestination', 'the rent cannot go to the escrow being closed');
}

/** Whom what is left in the escrow goes to: the borrower of a REPAID loan, the lender's vault of a LIQUIDATED one. */
export const leftoverGoesToBorrower = (loan: Pick<LoanFacts, 'status'>) => loan.status === 'REPAID';

/** The loan's record fields once closed: CLOSED, nothing pledged. */
export const closedLoanFields = (loan: { pledged: PledgedItem[] }) => ({ status: 'CLOSED', pledged: loan.pledged.map((p) => ({ ...p, amount: '0' })) });
