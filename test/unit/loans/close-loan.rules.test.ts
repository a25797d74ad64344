/** Close Loan's rules: a settled loan only, the rent anywhere but the escrow. */
import { closedLoanFields, leftoverGoesToBorrower, requireClosable, requireRefundElsewhere } from '../../../src/domain/operations/loans/close-loan.rules';
import { expectRefusal, loan } from './fixtures';

describe('Close Loan', () => {
  it('closes a REPAID or LIQUIDATED loan only', () => {
    expect(() => requireClosable(loan({ status: 'REPAID' }))).not.toThrow();
    expect(() => requireClosable(loan({ status: 'LIQUIDATED' }))).not.toThrow();
    for (const status of ['OPEN', 'OVERDUE', 'CLOSED']) expectRefusal(() => requireClosable(loan({ status })), 'CONFLICT', 'itemData.escrow');
  });

  it('refunds the rent anywhere but the escrow being closed', () => {
    expect(() => requireRefundElsewhere('Borrower', 'Escrow')).not.toThrow();
    expectRefusal(() => requireRefundElsewhere('Escrow', 'Escrow'), 'VALIDATION_ERROR', 'itemData.refundDestination');
  });

  it('gives what is left to the borrower of a repaid loan, to the lender of a liquidated one', () => {
    expect(leftoverGoesToBorrower(loan({ status: 'REPAID' }))).toBe(true);
    expect(leftoverGoesToBorrower(loan({ status: 'LIQUIDATED' }))).toBe(false);
  });

  it('records the loan CLOSED with nothing pledged', () => {
    expect(closedLoanFields(loan())).toEqual({ status: 'CLOSED', pledged: [{ ...loan().pledged[0], amount: '0' }] });
  });
});
