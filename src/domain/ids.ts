/** Offchain ids derived from business keys, so every attempt of one write names the same records. */
import { createHash } from 'node:crypto';

/** A UUID (version 5 layout) derived from a text: the same text, the same id. */
export function uuidFromText(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The transaction record of one part of a write: the write's own id for the first, derived for the rest. */
export function partTransactionId(transactionId: string, part: number): string {
  return part === 0 ? transactionId : uuidFromText(`${transactionId}\npart ${part}`);
}
