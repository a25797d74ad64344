/**
 * The PriceSource port (src/domain/prices.ts) over this service's own feeds: an instrument's price
 * is the latest value of the newest PRICE data source linked to it in the organization (a data
 * source whose first value never landed has none). Read from the records, which the refresh
 * writes in the same database transaction as it records the landed value.
 */
import type { Orm } from '../../db/orm';
import { newestPriceSource } from '../../db/repositories/oracle-data-sources.repository';
import type { InstrumentPrice, PriceSource } from '../../domain/prices';

export function createOraclePriceSource(orm: Orm): PriceSource {
  return {
    async priceOf(organizationId: string, financialInstrumentId: string): Promise<InstrumentPrice | null> {
      const source = await newestPriceSource(orm.em.fork(), organizationId, financialInstrumentId);
      if (!source?.latestValue || !source.latestValueAt) return null;
      return {
        value: source.latestValue,
        updatedAt: source.latestValueAt.toISOString(),
        slot: source.latestSlot ?? null,
        dataSource: { onchainId: source.address, offchainId: source.id },
      };
    },
  };
}
