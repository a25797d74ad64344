/** Liquidation's rules: an unsettled loan past its grace period, or past its liquidation ratio. */
import { interestFor } from '../../../src/domain/loans';
import { liquidatedLoanFields, pastGrace, requireLiquidatable, requirePastLiquidationRatio } from '../../../src/domain/operations/loans/liquidate-loan.rules';
import { expectRefusal, loan, START } from './fixtures';

describe('liquidation', () => {
  it('takes an OPEN or OVERDUE loan only', () => {
    expect(() => requireLiquidatable(loan({ status: 'OVERDUE' }))).not.toThrow();
    expectRefusal(() => requireLiquidatable(loan({ status: 'REPAID' })), 'CONFLICT', 'itemData.escrow');
  });

  it('is due for an OVERDUE loan from the end of its grace period exactly (48 hours, shortened as days are)', () => {
    const overdue = loan({ status: 'OVERDUE', maturityAt: START });
    expect(pastGrace(overdue, new Date(START.getTime() + 48 * 3600_000 - 1), 86_400)).toBe(false);
    expect(pastGrace(overdue, new Date(START.getTime() + 48 * 3600_000), 86_400)).toBe(true);
    expect(pastGrace(overdue, new Date(START.getTime() + 2 * 60_000), 60)).toBe(true);
    expect(pastGrace(loan({ maturityAt: START }), new Date(START.getTime() + 100 * 3600_000), 86_400)).toBe(false);
  });

  it('within the grace period, needs the loan-to-value past the liquidation ratio (not at it)', () => {
    expect(() => requirePastLiquidationRatio(loan(), 800_001n)).not.toThrow();
    const error = expectRefusal(() => requirePastLiquidationRatio(loan(), 800_000n), 'CONFLICT', 'itemData.escrow');
    expect(error.message).toBe('the loan is OPEN, within its grace period and at a loan-to-value of 800000 cBPS, not past its liquidation ratio 800000');
  });

  it('records the loan LIQUIDATED, the interest to then owed, nothing pledged', () => {
    const day = new Date(START.getTime() + 86_400_000);
    expect(liquidatedLoanFields(loan(), day)).toEqual({
      status: 'LIQUIDATED',
      interestOutstanding: interestFor(100_000_000n, 100_000, 86_400n).toString(),
      lastInterestUpdateTime: day,
      pledged: [{ ...loan().pledged[0], amount: '0' }],
    });
  });
});
