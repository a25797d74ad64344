/** Repay Loan's rules: a loan that owes, something to do, a repayment of at most what is owed, the limit after a release. */
import { interestFor } from '../../../src/domain/loans';
import {
  checkReleaseLoanToValue,
  repaidLoanFields,
  repaymentUnits,
  requireOwing,
  requireRepayOrRelease,
} from '../../../src/domain/operations/loans/repay-loan.rules';
import { BOND, expectRefusal, loan, START, USD } from './fixtures';

const at = { position: { offchainId: 'p' } };
const P = 'itemData.itemsToRepay[0]';
const OWED = 100_500_000n;

describe('what Repay Loan takes', () => {
  it('a loan that owes', () => {
    expect(() => requireOwing(loan({ status: 'OVERDUE' }))).not.toThrow();
    expect(expectRefusal(() => requireOwing(loan({ status: 'REPAID' })), 'CONFLICT', 'itemData.escrow').message).toBe('the loan is REPAID: nothing is owed');
  });

  it('something to repay or release', () => {
    expect(() => requireRepayOrRelease([], [{ positionLookup: at }])).not.toThrow();
    expectRefusal(() => requireRepayOrRelease([], []), 'VALIDATION_ERROR', 'itemData');
  });
});

describe('repaymentUnits', () => {
  it('answers the value paid, or exactly what is owed for repayAll', () => {
    expect(repaymentUnits(USD, USD, { positionLookup: at, value: { amount: '10' } }, P, OWED)).toBe(10_000_000n);
    expect(repaymentUnits(USD, USD, { positionLookup: at, repayAll: true }, P, OWED)).toBe(OWED);
  });

  it('takes exactly what is owed as a value, not one base unit more', () => {
    expect(repaymentUnits(USD, USD, { positionLookup: at, value: { lamports: OWED.toString() } }, P, OWED)).toBe(OWED);
    expect(
      expectRefusal(
        () => repaymentUnits(USD, USD, { positionLookup: at, value: { lamports: (OWED + 1n).toString() } }, P, OWED),
        'VALIDATION_ERROR',
        `${P}.value`,
      ).message,
    ).toBe('the loan owes 100.5 (principal and interest until now); repay that much with repayAll');
  });

  it('is in the principal', () => {
    expect(
      expectRefusal(() => repaymentUnits(USD, BOND, { positionLookup: at, value: { amount: '1' } }, P, OWED), 'VALIDATION_ERROR', `${P}.positionLookup`)
        .message,
    ).toBe('the loan is repaid in its principal UsdMint');
  });

  it('gives value or repayAll, one of them', () => {
    expectRefusal(() => repaymentUnits(USD, USD, { positionLookup: at }, P, OWED), 'VALIDATION_ERROR', `${P}.value`);
    expectRefusal(() => repaymentUnits(USD, USD, { positionLookup: at, value: { amount: '1' }, repayAll: true }, P, OWED), 'VALIDATION_ERROR', `${P}.value`);
  });

  it('is more than zero (also a repayAll of a loan owing nothing)', () => {
    expectRefusal(() => repaymentUnits(USD, USD, { positionLookup: at, value: { amount: '0' } }, P, OWED), 'VALIDATION_ERROR', `${P}.value`);
    expectRefusal(() => repaymentUnits(USD, USD, { positionLookup: at, repayAll: true }, P, 0n), 'VALIDATION_ERROR', `${P}.value`);
  });
});

describe('checkReleaseLoanToValue', () => {
  it('leaves the loan at its limit exactly, not 1 cBPS above', () => {
    expect(() => checkReleaseLoanToValue(loan(), 600_000n)).not.toThrow();
    expectRefusal(() => checkReleaseLoanToValue(loan(), 600_001n), 'VALIDATION_ERROR', 'itemData.itemsToRelease');
  });
});

describe('repaidLoanFields', () => {
  const day = new Date(START.getTime() + 86_400_000);
  const interest = interestFor(100_000_000n, 100_000, 86_400n);

  it('pays interest first, then principal, and takes the released units out of the pledged items', () => {
    const fields = repaidLoanFields(loan(), interest + 1_000_000n, false, [{ financialInstrumentId: BOND.id, amount: '500' }], day);
    expect(fields).toEqual({
      principalDue: '99000000',
      principalRepaid: '1000000',
      interestOutstanding: '0',
      lastInterestUpdateTime: day,
      status: 'OPEN',
      pledged: [{ ...loan().pledged[0], amount: '19500' }],
    });
  });

  it('settles the loan with repayAll whatever accrued since the quote', () => {
    const fields = repaidLoanFields(loan({ status: 'OVERDUE' }), 1n, true, [], day);
    expect(fields).toMatchObject({ principalDue: '0', principalRepaid: '100000000', interestOutstanding: '0', status: 'REPAID' });
  });

  it('keeps unpaid interest owed', () => {
    expect(repaidLoanFields(loan(), 1n, false, [], day)).toMatchObject({
      principalDue: '100000000',
      interestOutstanding: (interest - 1n).toString(),
      status: 'OPEN',
    });
  });
});
