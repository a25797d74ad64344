/**
 * JSON with full-width integers. Solana writes u64 fields (lamports, rentEpoch = u64::MAX)
 * as plain JSON numbers, so responses carry bigints written verbatim and requests keep
 * integers beyond 2^53 exact.
 */

// Node >= 21 has JSON.rawJSON; TypeScript's ES2023 lib does not declare it yet.
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

interface ReviverContext {
  source?: string;
}

// A 16+ digit run is the only way a request can hold an unsafe integer; skip the reviver otherwise.
const LONG_INTEGER = /\d{16,}/;

function keepLargeIntegers(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && /^-?\d+$/.test(context.source)) {
    return BigInt(context.source);
  }
  return value;
}

export function parseJson(text: string): unknown {
  return LONG_INTEGER.test(text) ? JSON.parse(text, keepLargeIntegers as (key: string, value: unknown) => unknown) : JSON.parse(text);
}

function writeBigIntVerbatim(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? rawJson(value.toString()) : value;
}

export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, writeBigIntVerbatim);
}
