/**
 * Every completed block since genesis (slot, height, block time, blockhash), so getBlock,
 * getBlocks and getBlockTime answer for any slot like an RPC node with full history, while the
 * chain's own table keeps only the 512 blocks SlotHashes needs.
 *
 * Fixed-size little-endian records, in slot order: a record's place is found by binary search,
 * so a slot without a block (none today: a dropped fork leaves its blocks, empty) would cost nothing.
 * With a data directory the records live in an append-only file read back on demand (memory
 * does not grow with the chain); without one, in a growing buffer.
 */
import { decodeBase58Exact, encodeBase58 } from './base58';
import type { BlockInfo } from './chain';

/** slot u64, height u64, blockTime i64, blockhash 32 bytes (base58-decoded). */
export const SLOT_RECORD_BYTES = 56;

/** Where the records are kept: a file through the node's storage, or memory. */
export interface SlotRecordBackend {
  /** Committed and pending bytes. */
  readonly bytes: number;
  read(offset: number, length: number): Buffer;
  append(data: Buffer): void;
}

export class MemorySlotRecords implements SlotRecordBackend {
  private buffer = Buffer.alloc(64 * SLOT_RECORD_BYTES);
  bytes = 0;

  read(offset: number, length: number): Buffer {
    return this.buffer.subarray(offset, offset + length);
  }

  append(data: Buffer): void {
    if (this.bytes + data.length > this.buffer.length) {
      const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.bytes + data.length));
      this.buffer.copy(grown, 0, 0, this.bytes);
      this.buffer = grown;
    }
    data.copy(this.buffer, this.bytes);
    this.bytes += data.length;
  }
}

function encodeRecord(block: BlockInfo): Buffer {
  const record = Buffer.alloc(SLOT_RECORD_BYTES);
  record.writeBigUInt64LE(BigInt(block.slot), 0);
  record.writeBigUInt64LE(BigInt(block.height), 8);
  record.writeBigInt64LE(BigInt(block.blockTime), 16);
  const hash = decodeBase58Exact(block.blockhash, 32);
  if (!hash) throw new Error(`slot history: blockhash ${block.blockhash} is not 32 bytes of base58`);
  record.set(hash, 24);
  return record;
}

function decodeRecord(record: Buffer): BlockInfo {
  return {
    slot: Number(record.readBigUInt64LE(0)),
    height: Number(record.readBigUInt64LE(8)),
    blockTime: Number(record.readBigInt64LE(16)),
    blockhash: encodeBase58(record.subarray(24, 56)),
  };
}

export class SlotHistory {
  constructor(private readonly records: SlotRecordBackend) {}

  get count(): number {
    return Math.floor(this.records.bytes / SLOT_RECORD_BYTES);
  }

  private slotOfRecord(index: number): number {
    return Number(this.records.read(index * SLOT_RECORD_BYTES, 8).readBigUInt64LE(0));
  }

  private recordAt(index: number): BlockInfo {
    return decodeRecord(this.records.read(index * SLOT_RECORD_BYTES, SLOT_RECORD_BYTES));
  }

  /** The index of the first record whose slot is >= `slot`. */
  private lowerBound(slot: number): number {
    let low = 0;
    let high = this.count;
    // Slots are usually contiguous: try the direct position first.
    if (high > 0) {
      const guess = slot - this.slotOfRecord(0);
      if (guess >= 0 && guess < high && this.slotOfRecord(guess) === slot) return guess;
    }
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.slotOfRecord(middle) < slot) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Appends a closed block; slots must increase. */
  append(block: BlockInfo): void {
    const last = this.lastSlot;
    if (last !== null && block.slot <= last) throw new Error(`slot history: slot ${block.slot} after ${last}`);
    this.records.append(encodeRecord(block));
  }

  /** Appends, oldest first, the blocks newer than the last record (seeding a history from a chain snapshot). */
  appendMissing(blocksOldestFirst: readonly BlockInfo[]): void {
    const last = this.lastSlot;
    for (const block of blocksOldestFirst) if (last === null || block.slot > last) this.append(block);
  }

  get firstSlot(): number | null {
    return this.count > 0 ? this.slotOfRecord(0) : null;
  }

  get lastSlot(): number | null {
    return this.count > 0 ? this.slotOfRecord(this.count - 1) : null;
  }

  get(slot: number): BlockInfo | undefined {
    const index = this.lowerBound(slot);
    if (index >= this.count) return undefined;
    const block = this.recordAt(index);
    return block.slot === slot ? block : undefined;
  }

  /** Slots with a block in [start, end], ascending, at most `limit`. */
  slotsBetween(start: number, end: number, limit = Number.MAX_SAFE_INTEGER): number[] {
    const slots: number[] = [];
    if (end < start) return slots;
    const first = this.lowerBound(start);
    // Slots increase, so at most end - start + 1 records can fall in the range: one read for all of them.
    const count = Math.min(this.count - first, end - start + 1, limit);
    if (count <= 0) return slots;
    const records = this.records.read(first * SLOT_RECORD_BYTES, count * SLOT_RECORD_BYTES);
    for (let i = 0; i < count; i++) {
      const slot = Number(records.readBigUInt64LE(i * SLOT_RECORD_BYTES));
      if (slot > end) break;
      slots.push(slot);
    }
    return slots;
  }
}
