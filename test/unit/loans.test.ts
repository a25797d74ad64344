/** The loan rules (docs/loans.md): quotes, interest to the base unit, loan-to-value at exact prices. */
import { interestFor, interestPerSecondText, loanToValue } from '../../src/domain/loans';
import { checkExpectedValues } from '../../src/domain/operations/loans/create-loan.rules';
import { quoteFor } from '../../src/domain/operations/loans/lending.rules';
import { checkCollateralTerms } from '../../src/domain/operations/loans/loan-strategy.rules';
import { refusal } from '../support/expectations';
import { movementRefusal } from '../../src/domain/loan-lifecycle';

const terms = (apy: number[], ltv: number, lqt: number) => ({
  financialInstrumentId: 'x',
  mintAddress: 'm',
  apy,
  loanToValueRatio: ltv,
  liquidationRatio: lqt,
});

describe('quotes', () => {
  it("takes the highest APY and the lowest ratios of the pledged items (the lender's side)", () => {
    expect(quoteFor([terms([10, 20], 800_000, 900_000), terms([15, 25], 700_000, 850_000)], 1, 'f')).toEqual({
      apy: 25,
      liquidationRatios: [900_000, 850_000],
      loanToValueRatio: 700_000,
      liquidationRatio: 850_000,
    });
  });
  it('refuses a duration the strategy does not lend for, naming the field', () => {
    expect(refusal(() => quoteFor([terms([10], 1, 2)], 2, 'itemData.protocolDetails.durationIndex'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.protocolDetails.durationIndex',
    });
  });
  it('answers 409 naming the value that moved', () => {
    const quote = quoteFor([terms([10], 1, 2), terms([5], 1, 3)], 0, 'f');
    expect(() => checkExpectedValues(quote, { expectedApy: 10, expectedLqt: [2, 3] }, 'e')).not.toThrow();
    expect(refusal(() => checkExpectedValues(quote, { expectedApy: 9, expectedLqt: [2, 3] }, 'e'))).toMatchObject({ code: 'CONFLICT', field: 'e.expectedApy' });
    expect(refusal(() => checkExpectedValues(quote, { expectedApy: 10, expectedLqt: [2, 4] }, 'e'))).toMatchObject({
      code: 'CONFLICT',
      field: 'e.expectedLqt[1]',
    });
    expect(refusal(() => checkExpectedValues(quote, { expectedApy: 10, expectedLqt: [2] }, 'e'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'e.expectedLqt',
    });
  });
  it('refuses terms a loan cannot live by', () => {
    expect(refusal(() => checkCollateralTerms({ apy: [], loanToValueRatio: 1, liquidationRatio: 2 }, 'c'))).toMatchObject({ field: 'c.apy' });
    expect(refusal(() => checkCollateralTerms({ apy: [1], loanToValueRatio: 2, liquidationRatio: 2 }, 'c'))).toMatchObject({ field: 'c.liquidationRatio' });
  });
});

describe('interest', () => {
  it('is simple and per second, rounded down to the base unit', () => {
    // 60 tokens of 6 decimals at 12 %: 7.2 a year, 0.000000228310502… a second.
    expect(interestFor(60_000_000n, 120_000, 31_536_000n)).toBe(7_200_000n);
    expect(interestFor(60_000_000n, 120_000, 1n)).toBe(0n);
    expect(interestFor(60_000_000n, 120_000, 5n)).toBe(1n);
    expect(interestFor(60_000_000n, 120_000, -5n)).toBe(0n);
    expect(interestPerSecondText(60_000_000n, 120_000, 6)).toBe('0.000000228310502');
  });
});

describe('loan-to-value', () => {
  it('is amount over amount without prices, rounded up', () => {
    expect(loanToValue({ units: 60n, decimals: 0, price: null }, [{ units: 100n, decimals: 0, price: null }])).toBe(600_000n);
    expect(loanToValue({ units: 1n, decimals: 0, price: null }, [{ units: 3n, decimals: 0, price: null }])).toBe(333_334n);
  });
  it('values each instrument at its exact price and decimals', () => {
    // 100 usd (6 decimals, 1) against 50 bonds (2 decimals, 2.5) = 125: 80 %.
    expect(loanToValue({ units: 100_000_000n, decimals: 6, price: '1' }, [{ units: 5_000n, decimals: 2, price: '2.5' }])).toBe(800_000n);
    expect(
      loanToValue({ units: 1n, decimals: 0, price: '0.1' }, [
        { units: 1n, decimals: 0, price: '0.3' },
        { units: 0n, decimals: 9, price: '7' },
      ]),
    ).toBe(333_334n);
  });
  it('is past any ratio when the collateral is worth nothing', () => {
    expect(loanToValue({ units: 1n, decimals: 0, price: '1' }, [{ units: 1n, decimals: 0, price: '0' }])).toBe(10_000_000n);
  });
});

describe("movements the loan's workflow refuses at once", () => {
  it('moves an OPEN or OVERDUE loan, closes only a REPAID or LIQUIDATED one, and takes no other write', () => {
    for (const operation of ['REPAY_LOAN', 'SWAP_COLLATERAL', 'REFINANCE_LOAN'] as const) {
      expect(movementRefusal('OPEN', operation)).toBeNull();
      expect(movementRefusal('OVERDUE', operation)).toBeNull();
      for (const settled of ['REPAID', 'LIQUIDATED', 'CLOSED']) expect(movementRefusal(settled, operation)).toMatch(settled);
    }
    expect(movementRefusal('REPAID', 'CLOSE_LOAN')).toBeNull();
    expect(movementRefusal('LIQUIDATED', 'CLOSE_LOAN')).toBeNull();
    expect(movementRefusal('OPEN', 'CLOSE_LOAN')).toMatch(/only a REPAID or LIQUIDATED loan is closed/);
    expect(movementRefusal('CLOSED', 'CLOSE_LOAN')).toMatch(/CLOSED/);
    expect(movementRefusal('OPEN', 'LIQUIDATE_LOAN')).toMatch(/not a movement/);
  });
});
