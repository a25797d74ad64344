/**
 * Persists accounts as an append-only journal of the accounts each block wrote, instead of
 * `svm.toBytes()`: a snapshot costs time proportional to the whole state every block and
 * fails beyond ~43k accounts, while the journal costs only what changed.
 *
 * Entry layout: key(32) flags(1) and, when the account exists,
 * lamports(u64) owner(32) rentEpoch(u64) dataLength(u32) data.
 */
import { Account, type LiteSvm } from 'litesvm/dist/internal';
import { keyFromId, keyId } from './key-id';

const FLAG_EXISTS = 1;
const FLAG_EXECUTABLE = 2;
const HEADER_BYTES = 32 + 1 + 8 + 32 + 8 + 4;

interface JournalEntry {
  key: Uint8Array;
  account: Account | null;
  executable: boolean;
}

function encodeEntries(svm: LiteSvm, keys: Iterable<Uint8Array>): Buffer {
  const parts: Buffer[] = [];
  for (const key of keys) {
    const account = svm.getAccount(key);
    if (!account) {
      const deleted = Buffer.alloc(33);
      deleted.set(key, 0);
      parts.push(deleted);
      continue;
    }
    const data = account.data();
    const entry = Buffer.allocUnsafe(HEADER_BYTES + data.length);
    entry.set(key, 0);
    entry[32] = FLAG_EXISTS | (account.executable() ? FLAG_EXECUTABLE : 0);
    entry.writeBigUInt64LE(account.lamports(), 33);
    entry.set(account.owner(), 41);
    entry.writeBigUInt64LE(account.rentEpoch(), 73);
    entry.writeUInt32LE(data.length, 81);
    entry.set(data, HEADER_BYTES);
    parts.push(entry);
  }
  return Buffer.concat(parts);
}

function* decodeEntries(journal: Buffer): Generator<JournalEntry> {
  let offset = 0;
  while (offset < journal.length) {
    const key = new Uint8Array(journal.subarray(offset, offset + 32));
    const flags = journal[offset + 32];
    if ((flags & FLAG_EXISTS) === 0) {
      offset += 33;
      yield { key, account: null, executable: false };
      continue;
    }
    const lamports = journal.readBigUInt64LE(offset + 33);
    const owner = new Uint8Array(journal.subarray(offset + 41, offset + 73));
    const rentEpoch = journal.readBigUInt64LE(offset + 73);
    const length = journal.readUInt32LE(offset + 81);
    const data = new Uint8Array(journal.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length));
    const executable = (flags & FLAG_EXECUTABLE) !== 0;
    offset += HEADER_BYTES + length;
    yield { key, account: new Account(lamports, data, owner, executable, rentEpoch), executable };
  }
}

export class AccountJournal {
  /** A node without a data directory journals nothing. */
  constructor(private readonly enabled: boolean) {}

  private dirty = new Map<string, Uint8Array>();
  /** Every key the journal ever wrote: what a compaction must rewrite. */
  private readonly written = new Set<string>();

  markWritten(key: Uint8Array): void {
    const id = keyId(key);
    // Without storage only the set of keys is kept (getProgramAccounts walks it).
    if (!this.enabled) this.written.add(id);
    else if (!this.dirty.has(id)) this.dirty.set(id, key);
  }

  /** Every key ever written (the account may since be closed): what getProgramAccounts walks. */
  *keys(): Generator<Uint8Array> {
    for (const id of this.written) yield keyFromId(id);
    for (const [id, key] of this.dirty) if (!this.written.has(id)) yield key;
  }

  hasChanges(): boolean {
    return this.dirty.size > 0;
  }

  /** The current state of every account written since the last `clearChanges`. */
  encodeChanges(svm: LiteSvm): Buffer {
    return encodeEntries(svm, this.dirty.values());
  }

  /** Called once the encoded changes are safely stored. */
  clearChanges(): void {
    for (const id of this.dirty.keys()) this.written.add(id);
    this.dirty = new Map();
  }

  /** The whole journaled state in one entry per account, to replace a journal grown long. */
  compact(svm: LiteSvm): Buffer {
    for (const id of this.dirty.keys()) this.written.add(id);
    const live: Uint8Array[] = [];
    for (const id of this.written) {
      const key = keyFromId(id);
      if (svm.getAccount(key)) live.push(key);
      else this.written.delete(id);
    }
    return encodeEntries(svm, live);
  }

  /** Applies a journal to a fresh LiteSVM; the last entry per key wins. */
  replay(svm: LiteSvm, journal: Buffer): void {
    const latest = new Map<string, JournalEntry>();
    for (const entry of decodeEntries(journal)) latest.set(keyId(entry.key), entry);
    // Programs load from their data accounts, so executables go last.
    const ordered = [...latest.values()].sort((a, b) => Number(a.executable) - Number(b.executable));
    for (const entry of ordered) {
      this.written.add(keyId(entry.key));
      if (entry.account) svm.setAccount(entry.key, entry.account);
      else if (svm.getAccount(entry.key)) svm.setAccount(entry.key, new Account(0n, new Uint8Array(0), new Uint8Array(32), false, 0n));
    }
  }
}
