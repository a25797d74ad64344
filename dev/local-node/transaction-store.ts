/**
 * Every landed transaction by signature: a small status entry for all of them, the full
 * record for recent ones. Older full records are read back from the transaction log, so
 * memory stays bounded however long the node runs.
 */
import { memosOf, SignatureIndex, type SignatureEntry } from './signature-index';
import type { TransactionErrorJson } from './transaction-errors';
import type { TransactionRecord } from './transaction-record';
import { parseTransaction } from './wire-transaction';

interface StatusEntry {
  slot: number;
  err: TransactionErrorJson | null;
  /** Null once evicted from memory (then it is in the log). */
  record: TransactionRecord | null;
  logOffset: number;
  logLength: number;
}

export interface TransactionStatus {
  slot: number;
  err: TransactionErrorJson | null;
}

/** Reads one saved record back from the transaction log. */
export type RecordReader = (offset: number, length: number) => TransactionRecord;

/** The index entry of a record, and every account it loaded. */
export function indexEntryOf(record: Pick<TransactionRecord, 'signature' | 'slot' | 'blockTime' | 'err' | 'wire' | 'loadedWritable' | 'loadedReadonly'>): {
  entry: SignatureEntry;
  accounts: Uint8Array[];
} {
  const { message } = parseTransaction(record.wire);
  return {
    entry: { signature: record.signature, slot: record.slot, blockTime: record.blockTime, err: record.err, memo: memosOf(message) },
    accounts: [...message.staticKeys, ...record.loadedWritable, ...record.loadedReadonly],
  };
}

export class TransactionStore {
  private readonly entries = new Map<string, StatusEntry>();
  /** By account and by slot, for getSignaturesForAddress and getBlock. */
  readonly index = new SignatureIndex();
  private unsaved: TransactionRecord[] = [];
  private unsavedRemovals: string[] = [];
  /** Saved signatures whose full record is still in memory, oldest first. */
  private cachedSaved: string[] = [];
  private cachedSavedHead = 0;

  /** `readRecord` null: no log, every record stays in memory. */
  constructor(
    private readonly readRecord: RecordReader | null,
    private readonly maxRecordsInMemory = 50_000,
  ) {}

  get count(): number {
    return this.entries.size;
  }

  has(signature: string): boolean {
    return this.entries.has(signature);
  }

  add(record: TransactionRecord): void {
    this.entries.set(record.signature, { slot: record.slot, err: record.err, record, logOffset: -1, logLength: 0 });
    const { entry, accounts } = indexEntryOf(record);
    this.index.add(entry, accounts);
    // Without a log to save to, records simply stay in memory.
    if (this.readRecord) this.unsaved.push(record);
  }

  /** Re-adds a record read from the log at startup, without keeping the full record. */
  restore(indexed: { entry: SignatureEntry; accounts: Uint8Array[] }, logOffset: number, logLength: number): void {
    const { entry, accounts } = indexed;
    this.entries.set(entry.signature, { slot: entry.slot, err: entry.err, record: null, logOffset, logLength });
    this.index.add(entry, accounts);
  }

  /**
   * Forgets transactions a fork abandoned (fork.ts): no status, no record, no history entry. With a
   * log, the removal is written to it at the next flush (a line of its own), so a restart forgets them too
   * (`fromLog`: replaying such a line at start, nothing more to write).
   */
  remove(signatures: readonly string[], fromLog = false): void {
    const removed = new Set<string>();
    for (const signature of signatures) {
      const record = this.get(signature);
      if (!record) continue;
      const { accounts } = indexEntryOf(record);
      this.index.remove(signature, record.slot, accounts);
      this.entries.delete(signature);
      removed.add(signature);
    }
    if (removed.size === 0) return;
    this.unsaved = this.unsaved.filter((record) => !removed.has(record.signature));
    if (this.readRecord && !fromLog) this.unsavedRemovals.push(...removed);
  }

  /** Hands the removals not yet in the log to `write`; they stop being pending only if it succeeds. */
  flushRemovals(write: (signatures: readonly string[]) => void): void {
    if (this.unsavedRemovals.length === 0) return;
    write(this.unsavedRemovals);
    this.unsavedRemovals = [];
  }

  status(signature: string): TransactionStatus | null {
    return this.entries.get(signature) ?? null;
  }

  get(signature: string): TransactionRecord | null {
    const entry = this.entries.get(signature);
    if (!entry) return null;
    if (entry.record) return entry.record;
    return this.readRecord && entry.logOffset >= 0 ? this.readRecord(entry.logOffset, entry.logLength) : null;
  }

  hasPending(): boolean {
    return this.unsaved.length > 0 || this.unsavedRemovals.length > 0;
  }

  /**
   * Hands the records not yet in the log to `write`, which stores them and returns where each
   * went. They stop being pending only if it succeeds.
   */
  flushPending(write: (records: readonly TransactionRecord[]) => { offset: number; length: number }[]): void {
    if (this.unsaved.length === 0) return;
    const positions = write(this.unsaved);
    const records = this.unsaved;
    this.unsaved = [];
    records.forEach((record, i) => this.markSaved(record.signature, positions[i].offset, positions[i].length));
  }

  /** Notes where a record went in the log; with a log to read from, old records leave memory. */
  private markSaved(signature: string, logOffset: number, logLength: number): void {
    const entry = this.entries.get(signature);
    if (!entry) return;
    entry.logOffset = logOffset;
    entry.logLength = logLength;
    if (!this.readRecord) return;
    this.cachedSaved.push(signature);
    while (this.cachedSaved.length - this.cachedSavedHead > this.maxRecordsInMemory) {
      const evicted = this.entries.get(this.cachedSaved[this.cachedSavedHead++]);
      if (evicted) evicted.record = null;
    }
    if (this.cachedSavedHead > this.maxRecordsInMemory) {
      this.cachedSaved = this.cachedSaved.slice(this.cachedSavedHead);
      this.cachedSavedHead = 0;
    }
  }
}
