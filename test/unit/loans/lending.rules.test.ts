/** What a strategy must allow before its vault lends: a rate for the duration, originations, cap and buffer. */
import { checkCapacity, needsOutstanding, quoteFor, requireOriginations } from '../../../src/domain/operations/loans/lending.rules';
import { BOND, expectRefusal, strategy, terms } from './fixtures';

const F = 'itemData.itemsToBorrow[0].value';

describe('quoteFor', () => {
  it('takes the highest APY and the lowest ratios', () => {
    expect(quoteFor([terms(BOND, [10, 20], 800_000, 900_000), terms(BOND, [15, 25], 700_000, 850_000)], 1, 'f')).toEqual({
      apy: 25,
      liquidationRatios: [900_000, 850_000],
      loanToValueRatio: 700_000,
      liquidationRatio: 850_000,
    });
  });
  it('refuses a duration one pledged item is not lent for, naming the field', () => {
    expect(quoteFor([terms(BOND, [10, 20])], 1, 'f').apy).toBe(20);
    expectRefusal(
      () => quoteFor([terms(BOND, [10, 20]), terms(BOND, [10])], 1, 'itemData.protocolDetails.durationIndex'),
      'VALIDATION_ERROR',
      'itemData.protocolDetails.durationIndex',
    );
  });
});

describe('requireOriginations', () => {
  it('refuses a strategy that takes no new loans with 409', () => {
    expect(() => requireOriginations(strategy(), 'V', 'f')).not.toThrow();
    expectRefusal(() => requireOriginations(strategy({ originationsEnabled: false }), 'V', 'itemData.toLender'), 'CONFLICT', 'itemData.toLender');
  });

  it('refuses a vault that is no strategy of the organization with 404 naming it', () => {
    expectRefusal(
      () => requireOriginations(null, 'Vault111', 'itemData.protocolDetails.loanStrategyAddress'),
      'NOT_FOUND',
      'itemData.protocolDetails.loanStrategyAddress',
    );
    expect(() => requireOriginations(null, 'Vault111', 'f')).toThrow('Vault111 is not a loan strategy of the organization');
  });
});

describe('checkCapacity', () => {
  it('has no limit without a cap or buffer', () => {
    expect(needsOutstanding(strategy())).toBe(false);
    expect(() => checkCapacity(strategy(), 6, 10n ** 12n, 0n, 0n, F)).not.toThrow();
  });

  it('lends up to the origination cap exactly, not one unit more', () => {
    const capped = strategy({ originationCap: '1000' });
    expect(needsOutstanding(capped)).toBe(true);
    expect(() => checkCapacity(capped, 0, 400n, 10_000n, 600n, F)).not.toThrow();
    const error = expectRefusal(() => checkCapacity(capped, 0, 401n, 10_000n, 600n, F), 'CONFLICT', F);
    expect(error.message).toBe("the strategy's origination cap is 1000; 600 is lent already, so 401 more does not fit");
  });

  it('keeps the liquidity buffer exactly, not one unit less', () => {
    const buffered = strategy({ liquidityBuffer: '100' });
    expect(() => checkCapacity(buffered, 0, 900n, 1_000n, 0n, F)).not.toThrow();
    expect(expectRefusal(() => checkCapacity(buffered, 0, 901n, 1_000n, 0n, F), 'CONFLICT', F).message).toContain('it lends at most 900');
    expect(expectRefusal(() => checkCapacity(buffered, 0, 1n, 50n, 0n, F), 'CONFLICT', F).message).toContain('it lends at most 0');
  });
});
