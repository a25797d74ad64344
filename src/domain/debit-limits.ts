/**
 * Debit limits (spec 8). This module holds the default table and the per-transaction rule; the
 * rolling-window and approval rules slot into checkDebit when configured limits arrive.
 */
import { LedgerError } from './errors';
import { NETWORK_CURRENCY_DECIMALS, fromBaseUnits, toBaseUnits } from './money';
import type { Debit } from './write';

export type DestinationClass = Debit['destination']['class'];

export interface DebitLimit {
  destination: 'ANY' | DestinationClass;
  maxAllowedDebit: { limitType: 'PER_TRANSACTION' | 'DURATION'; limitAmount: string; duration?: { code: string; unit: number } };
}

/** Spec 8's defaults for network currency: OFF_PLATFORM 0/0, NON_MANAGED 1 per transaction, MANAGED unlimited. */
export const defaultNetworkCurrencyLimits: DebitLimit[] = [
  { destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '0' } },
  { destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'DURATION', limitAmount: '0', duration: { code: 'DAYS', unit: 1 } } },
  { destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '1' } },
];

/** The per-transaction limits that apply to one debit; throws LIMIT_EXCEEDED naming the limit that fired. */
export function checkPerTransaction(limits: DebitLimit[], debit: Debit, decimals = NETWORK_CURRENCY_DECIMALS): void {
  const amount = BigInt(debit.amount);
  for (const limit of limits) {
    if (limit.maxAllowedDebit.limitType !== 'PER_TRANSACTION') continue;
    if (limit.destination !== 'ANY' && limit.destination !== debit.destination.class) continue;
    const max = toBaseUnits(limit.maxAllowedDebit.limitAmount, decimals, 'limitAmount');
    if (amount > max) {
      throw new LedgerError(
        'LIMIT_EXCEEDED',
        `debit of ${fromBaseUnits(amount, decimals)} from ${debit.address} to a ${debit.destination.class} destination exceeds the ${limit.destination} per-transaction limit of ${limit.maxAllowedDebit.limitAmount}`,
        undefined,
        { limit, debit: { address: debit.address, amount: debit.amount, destination: debit.destination } },
      );
    }
  }
}
