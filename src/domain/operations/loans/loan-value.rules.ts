/**
 * A loan's loan-to-value at prices (docs/loans.md): a loan whose collateral is all its principal
 * needs no price (amount over amount); otherwise every instrument needs one, and a missing price is
 * a 409 naming the item whose instrument has none. Pure: the prices come looked up.
 */
import { conflict } from '../../errors';
import { loanToValue } from '../../loans';
import type { InstrumentFacts } from './loan.rules';

/** An item of a loan being valued: its instrument, units, and the request field naming it (for a missing price). */
export interface ValuedItem {
  instrument: InstrumentFacts;
  units: bigint;
  field: string;
}

/** Whether valuing the loan needs prices: some collateral is another instrument than the principal. */
export const needsPrices = (principalId: string, collateral: ValuedItem[]) => !collateral.every((c) => c.instrument.id === principalId);

/**
 * Loan-to-value in cBPS of `principal` (what is owed) over `collateral`, at `prices` (instrument id →
 * price text, null or absent: it has none). The principal's missing price is named first, then the
 * collateral's in order. Prices are not read when `needsPrices` is false.
 */
export function loanToValueAtPrices(principal: ValuedItem, collateral: ValuedItem[], prices: ReadonlyMap<string, string | null>): bigint {
  const priced = needsPrices(principal.instrument.id, collateral);
  const priceOf = (item: ValuedItem) => {
    if (!priced) return null;
    const price = prices.get(item.instrument.id);
    if (price == null)
      throw conflict(
        item.field,
        `no price for ${item.instrument.mintAddress}: a loan whose collateral is another instrument than its principal values both at oracle prices, and this instrument has no price data source`,
      );
    return price;
  };
  const owed = { units: principal.units, decimals: principal.instrument.decimals, price: priceOf(principal) };
  return loanToValue(
    owed,
    collateral.map((c) => ({ units: c.units, decimals: c.instrument.decimals, price: priceOf(c) })),
  );
}
