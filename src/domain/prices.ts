/**
 * The price port: what a loan needs to value its items (loan-to-value, liquidation). Prices come
 * from oracle data sources (docs/oracle-data-sources.md once it exists); a loan whose pledged and
 * borrowed instruments are the same needs none (its ratio is amount over amount).
 */
export interface InstrumentPrice {
  /** Exact decimal text: the price of one whole token (UI amount) in the data source's quote. */
  value: string;
  /** When the data source's value was last written. */
  updatedAt: string;
  /** The slot it was written in, null when not known. */
  slot: string | null;
  /** The data source it came from (reported in a loan's marketData). */
  dataSource: { onchainId: string; offchainId: string };
}

export interface PriceSource {
  /**
   * The latest price of an instrument as the organization sees it: from the newest PRICE data
   * source linked to the instrument; null when it has none.
   */
  priceOf(organizationId: string, financialInstrumentId: string): Promise<InstrumentPrice | null>;
}

/** Until a feed is plugged in: no instrument has a price. */
export const noPrices: PriceSource = { priceOf: async () => null };
