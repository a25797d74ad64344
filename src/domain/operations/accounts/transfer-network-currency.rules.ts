/**
 * Transfer Network Currency: the rules on the amount and the destination, and the class
 * of a debit's destination that spec 8's limits are chosen by. Pure: the lookup step supplies the
 * onboarded accounts.
 */
import type { TransferNetworkCurrencyItemData } from './account.inputs';
import { validationError } from '../../errors';
import { NETWORK_CURRENCY_DECIMALS, resolveValue } from '../../money';
import type { Debit } from '../../write';

/** The lamports to move: the value in base units, more than zero. Throws VALIDATION_ERROR naming itemData.value. */
export function transferLamports(item: Pick<TransferNetworkCurrencyItemData, 'value'>): bigint {
  const amount = resolveValue(item.value, NETWORK_CURRENCY_DECIMALS, 'itemData.value');
  if (amount === 0n) throw validationError('itemData.value', 'the amount must be more than zero');
  return amount;
}

/** Transfer Network Currency's rules on the request alone (run by the API before any lookup). */
export function validateTransferNetworkCurrency(item: TransferNetworkCurrencyItemData): void {
  transferLamports(item);
}

/**
 * Where a debit goes, classified for spec 8's limits: an onboarded destination must be ACTIVE and is
 * MANAGED or NON_MANAGED by whether the service holds its key. Throws VALIDATION_ERROR naming `field`.
 */
export function onboardedDestination(account: { address: string; managed: boolean; status: string }, field: string): NonNullable<Debit['destination']> {
  if (account.status !== 'ACTIVE') throw validationError(field, `the destination account is ${account.status}`);
  return { address: account.address, class: account.managed ? 'MANAGED' : 'NON_MANAGED' };
}

/** An address outside the platform, classified for spec 8's limits. */
export const offPlatformDestination = (address: string): NonNullable<Debit['destination']> => ({ address, class: 'OFF_PLATFORM' });

/** A transfer moves value between two accounts. VALIDATION_ERROR naming itemData.destination. */
export function checkDistinct(source: string, destination: string): void {
  if (destination === source) throw validationError('itemData.destination', 'the destination is the source');
}
