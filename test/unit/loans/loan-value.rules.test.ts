/** A loan's loan-to-value at looked-up prices: amount over amount without them, a 409 for a missing one. */
import { loanToValueAtPrices, needsPrices } from '../../../src/domain/operations/loans/loan-value.rules';
import { BOND, expectRefusal, USD } from './fixtures';

const owed = (units: bigint) => ({ instrument: USD, units, field: 'itemData.itemsToBorrow[0].positionLookup' });
const bond = (units: bigint) => ({ instrument: BOND, units, field: 'itemData.itemsToPledge[0].positionLookup' });

describe('loanToValueAtPrices', () => {
  it('needs no price when every collateral is the principal', () => {
    const self = { instrument: USD, units: 200_000_000n, field: 'c' };
    expect(needsPrices(USD.id, [self])).toBe(false);
    expect(loanToValueAtPrices(owed(100_000_000n), [self], new Map())).toBe(500_000n);
  });

  it('values both sides at their prices', () => {
    // 100 USD at 1 over 200 BOND at 1.25 = 40 %.
    expect(needsPrices(USD.id, [bond(20_000n)])).toBe(true);
    expect(
      loanToValueAtPrices(
        owed(100_000_000n),
        [bond(20_000n)],
        new Map([
          [USD.id, '1'],
          [BOND.id, '1.25'],
        ]),
      ),
    ).toBe(400_000n);
  });

  it('refuses a missing price with 409, naming the principal first, then the collateral', () => {
    expect(
      expectRefusal(() => loanToValueAtPrices(owed(1n), [bond(1n)], new Map([[BOND.id, '1']])), 'CONFLICT', 'itemData.itemsToBorrow[0].positionLookup').message,
    ).toContain('no price for UsdMint');
    expectRefusal(() => loanToValueAtPrices(owed(1n), [bond(1n)], new Map()), 'CONFLICT', 'itemData.itemsToBorrow[0].positionLookup');
    expect(
      expectRefusal(
        () =>
          loanToValueAtPrices(
            owed(1n),
            [bond(1n)],
            new Map<string, string | null>([
              [USD.id, '1'],
              [BOND.id, null],
            ]),
          ),
        'CONFLICT',
        'itemData.itemsToPledge[0].positionLookup',
      ).message,
    ).toContain('no price for BondMint');
  });
});
