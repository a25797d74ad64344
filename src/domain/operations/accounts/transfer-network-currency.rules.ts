/**
 * Transfer Network Currency: the rules on the amount and the destination, and the class
 * of a debit's destination that spec 8's limits are chosen by. Pure: the lookup step supplies the
 * onboarded accounts.
 */
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import type { TransferNetworkCurrencyItemData } from './account.inputs';
import { LedgerError, validationError } from '../../errors';
import { fromBaseUnits, NETWORK_CURRENCY_DECIMALS, resolveValue } from '../../money';
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

/**
 * The System Program moves lamports only out of its own accounts without data: network currency
 * seeded into an account with dataLength > 0 cannot be transferred out (spec 2.3 rule 2). Checked
 * before anything is signed, so a transfer that would fail onchain pays no fee. VALIDATION_ERROR naming `field`.
 */
export function checkTransferableSource(address: string, onchain: { owner: string; dataLength: number }, field: string): void {
  if (onchain.owner !== SYSTEM_PROGRAM_ADDRESS) {
    throw validationError(
      field,
      `account ${address} is owned by program ${onchain.owner}, not the System Program (a mint, a token account or another program's account): only that program can move its lamports`,
    );
  }
  if (onchain.dataLength > 0) {
    throw validationError(
      field,
      `account ${address} holds ${onchain.dataLength} bytes of data: network currency seeded into a System Program account with dataLength > 0 cannot be transferred out (spec 2.3 rule 2)`,
    );
  }
}

/** The network's base fee: lamports per signature of a transaction. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;

const sol = (lamports: bigint) => `${fromBaseUnits(lamports, NETWORK_CURRENCY_DECIMALS)} (${lamports} lamports)`;

/**
 * The balance pre-check: the source sends at most what it holds minus what it must keep. It keeps
 * the base fee when it pays it (`fee`, 0 otherwise) and, unless it sends everything, the
 * rent-exempt minimum (the network refuses a transfer that leaves an account between 0 and that
 * minimum). INSUFFICIENT_BALANCE naming itemData.value.
 */
export function checkAvailableLamports(source: { address: string; lamports: bigint }, amount: bigint, fee: bigint, rentExemptMinimum: bigint): void {
  const left = source.lamports - fee - amount;
  if (left === 0n || left >= rentExemptMinimum) return;
  const spendable = source.lamports - fee;
  const most =
    spendable > rentExemptMinimum
      ? `at most ${sol(spendable - rentExemptMinimum)}, or all ${sol(spendable)}`
      : spendable > 0n
        ? `only all ${sol(spendable)}`
        : 'nothing';
  throw new LedgerError(
    'INSUFFICIENT_BALANCE',
    `the source ${source.address} holds ${sol(source.lamports)}${fee > 0n ? ` and pays the fee of ${fee} lamports` : ''}; it keeps the rent-exempt minimum of ${rentExemptMinimum} lamports unless it sends everything, so it can send ${most}; ${sol(amount)} cannot be transferred`,
    'itemData.value',
  );
}
