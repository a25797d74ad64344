/**
 * Signed exact decimals for the oracle job interpreter: a bigint of units at a decimal scale, so
 * values read from a price source (any number of digits) are added, multiplied, compared and
 * rounded without a binary float. Division and means stop at DIVISION_PLACES places (truncated
 * toward zero), the one place where a result is not exact. money.ts keeps to unsigned base units
 * of a token; this is the general arithmetic a job definition needs.
 */
export interface ExactDecimal {
  /** The value times 10^scale. */
  units: bigint;
  scale: number;
}

/** Places a quotient is computed to (docs/oracle-data-sources.md). */
export const DIVISION_PLACES = 18;

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Parses decimal text (exponent allowed); undefined when it is not a finite decimal. */
export function parseDecimal(text: string): ExactDecimal | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const [, sign, whole, fraction = '', exponentText] = match;
  const exponent = exponentText ? Number(exponentText) : 0;
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return undefined;
  let units = BigInt((whole || '0') + fraction);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return normalize({ units: sign === '-' ? -units : units, scale });
}

/** Trailing zeros dropped, so equal values have equal form. */
function normalize(d: ExactDecimal): ExactDecimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return { units, scale };
}

/** Exact decimal text without exponent or trailing zeros ("-1.5", "0", "123"). */
export function formatDecimal(d: ExactDecimal): string {
  const { units, scale } = normalize(d);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale ? '.' + digits.slice(digits.length - scale) : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** Fractional digits of the value as written. */
export const placesOf = (d: ExactDecimal): number => normalize(d).scale;

function atScale(d: ExactDecimal, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale);
}

export function add(a: ExactDecimal, b: ExactDecimal): ExactDecimal {
  const scale = Math.max(a.scale, b.scale);
  return normalize({ units: atScale(a, scale) + atScale(b, scale), scale });
}

export const negate = (a: ExactDecimal): ExactDecimal => ({ units: -a.units, scale: a.scale });

export const subtract = (a: ExactDecimal, b: ExactDecimal): ExactDecimal => add(a, negate(b));

export const multiply = (a: ExactDecimal, b: ExactDecimal): ExactDecimal => normalize({ units: a.units * b.units, scale: a.scale + b.scale });

/** a / b to DIVISION_PLACES places, truncated toward zero; undefined when b is zero. */
export function divide(a: ExactDecimal, b: ExactDecimal): ExactDecimal | undefined {
  if (b.units === 0n) return undefined;
  // a.units/10^a.scale ÷ b.units/10^b.scale = a.units × 10^(b.scale + P − a.scale) / b.units, at scale P.
  const shift = b.scale + DIVISION_PLACES - a.scale;
  const numerator = shift >= 0 ? a.units * 10n ** BigInt(shift) : a.units;
  const denominator = shift >= 0 ? b.units : b.units * 10n ** BigInt(-shift);
  return normalize({ units: numerator / denominator, scale: DIVISION_PLACES });
}

export function compare(a: ExactDecimal, b: ExactDecimal): number {
  const scale = Math.max(a.scale, b.scale);
  const x = atScale(a, scale);
  const y = atScale(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** 'UP': away from zero; 'DOWN': toward zero (the two methods of an OracleJob roundTask). */
export function round(d: ExactDecimal, places: number, method: 'UP' | 'DOWN'): ExactDecimal {
  if (d.scale <= places) return d;
  const factor = 10n ** BigInt(d.scale - places);
  let units = d.units / factor;
  if (method === 'UP' && d.units % factor !== 0n) units += d.units < 0n ? -1n : 1n;
  return normalize({ units, scale: places });
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly ExactDecimal[]): ExactDecimal {
  const sorted = [...values].sort(compare);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : divide(add(sorted[mid - 1], sorted[mid]), { units: 2n, scale: 0 })!;
}

export function mean(values: readonly ExactDecimal[]): ExactDecimal {
  const sum = values.reduce(add, { units: 0n, scale: 0 });
  return divide(sum, { units: BigInt(values.length), scale: 0 })!;
}
