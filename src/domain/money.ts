/**
 * Exact money: amounts are bigint base units inside the service; decimal text only at the edge.
 * Nothing here goes through a binary float.
 */
import { LedgerError, validationError } from './errors';

/** The largest amount the network can hold (u64). */
export const U64_MAX = 2n ** 64n - 1n;

/** Lamports per SOL: the network currency has 9 decimals. */
export const NETWORK_CURRENCY_DECIMALS = 9;

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses decimal text (as it came on the wire, exponent allowed) into base units with `decimals` places.
 * Fails with VALIDATION_ERROR on negative numbers, garbage, or more fractional digits than `decimals`.
 */
export function toBaseUnits(text: string, decimals: number, field: string): bigint {
  const match = DECIMAL.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw validationError(field, `${field} must be a decimal number, got "${text}"`);
  const [, sign, whole, fraction = '', exponentText] = match;
  const exponent = exponentText ? Number(exponentText) : 0;
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) throw validationError(field, `${field} is out of range`);
  // Shift the decimal point by the exponent, on the digit string.
  let digits = (whole || '0') + fraction;
  let pointAt = (whole || '0').length + exponent;
  if (pointAt < 0) {
    digits = '0'.repeat(-pointAt) + digits;
    pointAt = 0;
  }
  if (pointAt > digits.length) digits = digits + '0'.repeat(pointAt - digits.length);
  const intPart = digits.slice(0, pointAt) || '0';
  const fracPart = digits.slice(pointAt).replace(/0+$/, '');
  if (fracPart.length > decimals) {
    throw validationError(field, `${field} has ${fracPart.length} decimal places; at most ${decimals} are allowed`);
  }
  const units = BigInt(intPart) * 10n ** BigInt(decimals) + BigInt(fracPart + '0'.repeat(decimals - fracPart.length) || '0');
  if (sign === '-' && units !== 0n) throw validationError(field, `${field} must not be negative`);
  return units;
}

/** Formats base units as exact decimal text with no trailing zeros ("1.5", "0", "123"). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? '.' + fraction : ''}`;
}

/** The spec's value input: `amount` (decimal, UI units) or `lamports` (integer base units), as exact text. */
export interface ValueInput {
  amount?: string;
  lamports?: string;
}

/**
 * Resolves a value input to base units. Either field may be sent; when both are sent they must agree.
 * Fails with VALIDATION_ERROR naming the field at fault.
 */
export function resolveValue(value: ValueInput, decimals: number, field: string): bigint {
  const fromAmount = value.amount !== undefined ? toBaseUnits(value.amount, decimals, `${field}.amount`) : undefined;
  let fromLamports: bigint | undefined;
  if (value.lamports !== undefined) {
    if (!/^\d+$/.test(value.lamports)) throw validationError(`${field}.lamports`, `${field}.lamports must be a non-negative integer`);
    fromLamports = BigInt(value.lamports);
  }
  if (fromAmount === undefined && fromLamports === undefined) {
    throw validationError(field, `${field} needs amount or lamports`);
  }
  if (fromAmount !== undefined && fromLamports !== undefined && fromAmount !== fromLamports) throw disagreement(value, field);
  const units = (fromAmount ?? fromLamports) as bigint;
  if (units > U64_MAX) throw tooLarge(fromLamports !== undefined ? `${field}.lamports` : `${field}.amount`, field);
  return units;
}

const disagreement = (value: ValueInput, field: string) =>
  new LedgerError('VALIDATION_ERROR', `${field}.amount (${value.amount}) and ${field}.lamports (${value.lamports}) disagree`, `${field}.lamports`);
const tooLarge = (at: string, field: string) => validationError(at, `${field} is larger than the network can hold (2^64 - 1 base units)`);

/** The most decimals an asset can have (a mint's decimals are one byte). */
export const MAX_DECIMALS = 255;

/**
 * The rules on a value that hold whatever the asset's decimals, so they are checked before the asset
 * is looked up: amount or lamports sent, neither beyond u64 at any decimals, and both, when sent,
 * equal at some decimals ("1" and "10" may be, "1" and "3" never). Returns whether the value is zero.
 * VALIDATION_ERROR naming the field at fault, as resolveValue would.
 */
export function checkValueAlone(value: ValueInput, field: string): { zero: boolean } {
  if (value.amount === undefined && value.lamports === undefined) throw validationError(field, `${field} needs amount or lamports`);
  // The amount in the finest base units any asset has; its fewest-decimals form is that with the trailing zeros off.
  const finest = value.amount !== undefined ? toBaseUnits(value.amount, MAX_DECIMALS, `${field}.amount`) : undefined;
  if (finest !== undefined && fewestUnits(finest) > U64_MAX) throw tooLarge(`${field}.amount`, field);
  if (value.lamports === undefined) return { zero: finest === 0n };
  if (!/^\d+$/.test(value.lamports)) throw validationError(`${field}.lamports`, `${field}.lamports must be a non-negative integer`);
  const lamports = BigInt(value.lamports);
  if (lamports > U64_MAX) throw tooLarge(`${field}.lamports`, field);
  if (finest !== undefined && !agreeAtSomeDecimals(finest, lamports)) throw disagreement(value, field);
  return { zero: lamports === 0n };
}

/** An amount in MAX_DECIMALS base units, in the base units of the fewest decimals that hold it exactly. */
function fewestUnits(finest: bigint): bigint {
  let units = finest;
  for (let dropped = 0; units !== 0n && units % 10n === 0n && dropped < MAX_DECIMALS; dropped++) units /= 10n;
  return units;
}

/** Whether lamports × 10^k is the amount in MAX_DECIMALS base units for some k in 0..MAX_DECIMALS (the asset having MAX_DECIMALS − k decimals). */
function agreeAtSomeDecimals(finest: bigint, lamports: bigint): boolean {
  if (lamports === 0n) return finest === 0n;
  if (finest % lamports !== 0n) return false;
  const ratio = (finest / lamports).toString();
  return /^10*$/.test(ratio) && ratio.length - 1 <= MAX_DECIMALS;
}

/** The `{amount, lamports}` pair the API answers with, both exact. */
export function balanceOf(units: bigint, decimals: number): { amount: string; lamports: bigint } {
  return { amount: fromBaseUnits(units, decimals), lamports: units };
}

/**
 * Base units times a decimal multiplier (Scaled UI Amount), as exact decimal text in UI units.
 * The multiplier's shortest decimal text is taken as exact, e.g. 1.5 → 3/2.
 */
export function scaleAmount(units: bigint, decimals: number, multiplier: number): string {
  const text = String(multiplier);
  const [whole, fraction = ''] = text.includes('e') ? [multiplier.toFixed(20).replace(/0+$/, ''), ''] : text.split('.');
  const [w, f] = whole.includes('.') ? whole.split('.') : [whole, fraction];
  return fromBaseUnits(units * BigInt(w + f), decimals + f.length);
}
