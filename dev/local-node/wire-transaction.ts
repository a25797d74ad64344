/**
 * Reads Solana wire transactions (legacy and v0) straight from bytes, so the node can
 * find signatures, keys and the blockhash without kit's slower object decoding.
 */

/** Packet data limit of a cluster; larger transactions are refused before execution. */
export const MAX_TRANSACTION_BYTES = 1232;

export type TransactionVersion = 'legacy' | 0;

export interface CompiledInstruction {
  programIdIndex: number;
  accountIndexes: Uint8Array;
  data: Uint8Array;
}

export interface LookupTableReference {
  tableKey: Uint8Array;
  writableIndexes: Uint8Array;
  readonlyIndexes: Uint8Array;
}

export interface ParsedMessage {
  version: TransactionVersion;
  bytes: Uint8Array;
  numRequiredSignatures: number;
  numReadonlySigned: number;
  numReadonlyUnsigned: number;
  staticKeys: Uint8Array[];
  blockhash: Uint8Array;
  /** Where the blockhash sits inside `bytes` (replaceRecentBlockhash rewrites it). */
  blockhashOffset: number;
  instructions: CompiledInstruction[];
  lookups: LookupTableReference[];
}

export interface ParsedTransaction {
  bytes: Uint8Array;
  signatures: Uint8Array[];
  message: ParsedMessage;
  /** Where the message starts inside `bytes`. */
  messageOffset: number;
}

/** The bytes do not form a well-formed, sanitized transaction. */
export class WireFormatError extends Error {}

class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  u8(): number {
    if (this.offset >= this.bytes.length) throw new WireFormatError('unexpected end of data');
    return this.bytes[this.offset++];
  }

  /** compact-u16 length prefix */
  shortVec(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = this.u8();
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) throw new WireFormatError('compact-u16 overflow');
        return value;
      }
    }
    throw new WireFormatError('compact-u16 too long');
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new WireFormatError('unexpected end of data');
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
}

function readMessage(reader: Reader): ParsedMessage {
  const start = reader.offset;
  const first = reader.u8();
  let version: TransactionVersion = 'legacy';
  let numRequiredSignatures = first;
  if (first & 0x80) {
    if ((first & 0x7f) !== 0) throw new WireFormatError(`unsupported transaction version ${first & 0x7f}`);
    version = 0;
    numRequiredSignatures = reader.u8();
  }
  const numReadonlySigned = reader.u8();
  const numReadonlyUnsigned = reader.u8();
  const staticKeys: Uint8Array[] = [];
  for (let n = reader.shortVec(); n > 0; n--) staticKeys.push(reader.take(32));
  const blockhashOffset = reader.offset - start;
  const blockhash = reader.take(32);
  const instructions: CompiledInstruction[] = [];
  for (let n = reader.shortVec(); n > 0; n--) {
    const programIdIndex = reader.u8();
    const accountIndexes = reader.take(reader.shortVec());
    const data = reader.take(reader.shortVec());
    instructions.push({ programIdIndex, accountIndexes, data });
  }
  const lookups: LookupTableReference[] = [];
  if (version === 0) {
    for (let n = reader.shortVec(); n > 0; n--) {
      const tableKey = reader.take(32);
      const writableIndexes = reader.take(reader.shortVec());
      const readonlyIndexes = reader.take(reader.shortVec());
      lookups.push({ tableKey, writableIndexes, readonlyIndexes });
    }
  }
  const message: ParsedMessage = {
    version,
    bytes: reader.bytes.subarray(start, reader.offset),
    numRequiredSignatures,
    numReadonlySigned,
    numReadonlyUnsigned,
    staticKeys,
    blockhash,
    blockhashOffset,
    instructions,
    lookups,
  };
  sanitizeMessage(message);
  return message;
}

/** The structural checks a cluster applies before it looks at any account. */
function sanitizeMessage(message: ParsedMessage): void {
  const staticCount = message.staticKeys.length;
  if (message.numRequiredSignatures === 0 || message.numReadonlySigned >= message.numRequiredSignatures) {
    throw new WireFormatError('Transaction failed to sanitize accounts offsets correctly');
  }
  if (message.numRequiredSignatures + message.numReadonlyUnsigned > staticCount) {
    throw new WireFormatError('Transaction failed to sanitize accounts offsets correctly');
  }
  const totalKeys = staticCount + loadedKeyCount(message);
  if (totalKeys > 256) throw new WireFormatError('Transaction failed to sanitize accounts offsets correctly');
  for (const lookup of message.lookups) {
    if (lookup.writableIndexes.length + lookup.readonlyIndexes.length === 0) {
      throw new WireFormatError('Transaction failed to sanitize accounts offsets correctly');
    }
  }
  for (const instruction of message.instructions) {
    // The fee payer can never be the program, and programs must be static keys.
    if (instruction.programIdIndex === 0 || instruction.programIdIndex >= staticCount) {
      throw new WireFormatError('Transaction failed to sanitize accounts offsets correctly');
    }
    for (const index of instruction.accountIndexes) {
      if (index >= totalKeys) throw new WireFormatError('Transaction failed to sanitize accounts offsets correctly');
    }
  }
}

export function parseMessage(bytes: Uint8Array): ParsedMessage {
  const reader = new Reader(bytes);
  const message = readMessage(reader);
  if (reader.offset !== bytes.length) throw new WireFormatError('trailing bytes after the message');
  return message;
}

export function parseTransaction(bytes: Uint8Array): ParsedTransaction {
  const reader = new Reader(bytes);
  const signatures: Uint8Array[] = [];
  for (let n = reader.shortVec(); n > 0; n--) signatures.push(reader.take(64));
  const messageOffset = reader.offset;
  const message = readMessage(reader);
  if (reader.offset !== bytes.length) throw new WireFormatError('trailing bytes after the message');
  if (signatures.length !== message.numRequiredSignatures) {
    throw new WireFormatError('Transaction failed to sanitize accounts offsets correctly');
  }
  return { bytes, signatures, message, messageOffset };
}

export function loadedKeyCount(message: ParsedMessage): number {
  let count = 0;
  for (const lookup of message.lookups) count += lookup.writableIndexes.length + lookup.readonlyIndexes.length;
  return count;
}

/** Write-locked static keys, following the header's layout (signers first, then unsigned). */
export function isStaticKeyWritable(message: ParsedMessage, index: number): boolean {
  if (index < message.numRequiredSignatures) return index < message.numRequiredSignatures - message.numReadonlySigned;
  return index < message.staticKeys.length - message.numReadonlyUnsigned;
}
