/**
 * The node's data directory:
 *   state.json              chain tables, identities and the committed length of each log
 *                           (written atomically: temp file + rename; it is the commit point)
 *   accounts-<n>.journal    account journal, generation n (a compaction starts n+1)
 *   transactions.log        one JSON line per landed transaction, append-only
 *   slots.log               one fixed-size record per completed block since genesis (slot-history.ts)
 * Bytes past the committed lengths belong to a block that never became confirmed and are cut on open.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChainSnapshot } from './chain';
import type { SlotRecordBackend } from './slot-history';

export interface SavedState {
  format: 1;
  genesisHash: string;
  identity: string;
  faucetSeed: string;
  chain: ChainSnapshot;
  accountJournalGeneration: number;
  accountJournalBytes: number;
  transactionLogBytes: number;
  /** Absent in states written before the slot history existed (it is then seeded from `chain.blocks`). */
  slotHistoryBytes?: number;
}

/** The fields the node supplies at each commit; log lengths are filled in here. */
export type StateFields = Omit<SavedState, 'format' | 'accountJournalGeneration' | 'accountJournalBytes' | 'transactionLogBytes' | 'slotHistoryBytes'>;

const STATE_FILE = 'state.json';
const TRANSACTION_LOG = 'transactions.log';
const SLOT_HISTORY = 'slots.log';
const journalFile = (generation: number) => `accounts-${generation}.journal`;
const READ_CHUNK = 16 * 1024 * 1024;

/**
 * Writes go to explicit offsets (not O_APPEND): a write that failed half-way is simply
 * overwritten by the retry instead of shifting every later offset.
 */
function openForPositionalWrites(file: string): number {
  fs.closeSync(fs.openSync(file, 'a'));
  return fs.openSync(file, 'r+');
}

function writeAll(fd: number, data: Buffer, position: number): void {
  for (let done = 0; done < data.length;) done += fs.writeSync(fd, data, done, data.length - done, position + done);
}

class FileSlotRecords implements SlotRecordBackend {
  constructor(
    readonly fd: number,
    public bytes: number,
  ) {}

  read(offset: number, length: number): Buffer {
    const data = Buffer.allocUnsafe(length);
    for (let done = 0; done < length;) {
      const read = fs.readSync(this.fd, data, done, length - done, offset + done);
      if (read === 0) throw new Error(`local node: slot history ends at ${offset + done}, wanted ${offset + length}`);
      done += read;
    }
    return data;
  }

  append(data: Buffer): void {
    writeAll(this.fd, data, this.bytes);
    this.bytes += data.length;
  }
}

export class NodeStorage {
  private journalFd: number;
  private readonly transactionFd: number;
  /** The slot history's file: appends are written at once and become part of the chain at the next commit. */
  readonly slotRecords: FileSlotRecords;
  /** The journal generation a compaction replaced, deleted once the new one is committed. */
  private obsoleteJournal: string | null = null;

  private constructor(
    private readonly dir: string,
    readonly saved: SavedState | null,
    private journalGeneration: number,
    private journalBytes: number,
    private transactionBytes: number,
    slotBytes: number,
  ) {
    this.journalFd = openForPositionalWrites(this.file(journalFile(journalGeneration)));
    this.transactionFd = openForPositionalWrites(this.file(TRANSACTION_LOG));
    this.slotRecords = new FileSlotRecords(openForPositionalWrites(this.file(SLOT_HISTORY)), slotBytes);
    // Drop whatever a crash left beyond the last commit.
    fs.ftruncateSync(this.journalFd, journalBytes);
    fs.ftruncateSync(this.transactionFd, transactionBytes);
    fs.ftruncateSync(this.slotRecords.fd, slotBytes);
  }

  static open(dir: string): NodeStorage {
    fs.mkdirSync(dir, { recursive: true });
    const statePath = path.join(dir, STATE_FILE);
    const saved = fs.existsSync(statePath) ? (JSON.parse(fs.readFileSync(statePath, 'utf8')) as SavedState) : null;
    if (saved && saved.format !== 1) throw new Error(`local node: unknown state format in ${statePath}`);
    const generation = saved?.accountJournalGeneration ?? 0;
    for (const name of fs.readdirSync(dir)) {
      if (/^accounts-\d+\.journal$/.test(name) && name !== journalFile(generation)) fs.rmSync(path.join(dir, name));
    }
    return new NodeStorage(dir, saved, generation, saved?.accountJournalBytes ?? 0, saved?.transactionLogBytes ?? 0, saved?.slotHistoryBytes ?? 0);
  }

  private file(name: string): string {
    return path.join(this.dir, name);
  }

  readAccountJournal(): Buffer {
    const journal = Buffer.allocUnsafe(this.journalBytes);
    let done = 0;
    while (done < journal.length) done += fs.readSync(this.journalFd, journal, done, journal.length - done, done);
    return journal;
  }

  get accountJournalBytes(): number {
    return this.journalBytes;
  }

  /** Calls back once per committed transaction-log line with its position. */
  readTransactionLog(onLine: (line: string, offset: number, length: number) => void): void {
    const chunk = Buffer.allocUnsafe(READ_CHUNK);
    let carry = Buffer.alloc(0);
    let position = 0;
    while (position < this.transactionBytes) {
      const read = fs.readSync(this.transactionFd, chunk, 0, Math.min(READ_CHUNK, this.transactionBytes - position), position);
      if (read === 0) break;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      const dataStart = position - carry.length;
      let lineStart = 0;
      for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, lineStart)) {
        onLine(data.toString('utf8', lineStart, newline), dataStart + lineStart, newline - lineStart);
        lineStart = newline + 1;
      }
      carry = Buffer.from(data.subarray(lineStart));
      position += read;
    }
  }

  readTransactionLine(offset: number, length: number): string {
    const line = Buffer.allocUnsafe(length);
    fs.readSync(this.transactionFd, line, 0, length, offset);
    return line.toString('utf8');
  }

  appendAccounts(entries: Buffer): void {
    if (entries.length === 0) return;
    writeAll(this.journalFd, entries, this.journalBytes);
    this.journalBytes += entries.length;
  }

  /** Appends lines and returns where each one starts. */
  appendTransactions(lines: string[]): { offset: number; length: number }[] {
    if (lines.length === 0) return [];
    const buffers = lines.map((line) => Buffer.from(`${line}\n`, 'utf8'));
    const positions = [];
    let offset = this.transactionBytes;
    for (const buffer of buffers) {
      positions.push({ offset, length: buffer.length - 1 });
      offset += buffer.length;
    }
    writeAll(this.transactionFd, Buffer.concat(buffers), this.transactionBytes);
    this.transactionBytes = offset;
    return positions;
  }

  /** Starts a new journal generation holding `entries`; it takes effect with the next commit. */
  replaceAccountJournal(entries: Buffer): void {
    const next = this.journalGeneration + 1;
    fs.writeFileSync(this.file(journalFile(next)), entries);
    fs.closeSync(this.journalFd);
    this.obsoleteJournal = this.file(journalFile(this.journalGeneration));
    this.journalFd = openForPositionalWrites(this.file(journalFile(next)));
    this.journalGeneration = next;
    this.journalBytes = entries.length;
  }

  /** The commit point: everything appended so far becomes part of the saved chain. */
  commit(fields: StateFields): void {
    const state: SavedState = {
      format: 1,
      ...fields,
      accountJournalGeneration: this.journalGeneration,
      accountJournalBytes: this.journalBytes,
      transactionLogBytes: this.transactionBytes,
      slotHistoryBytes: this.slotRecords.bytes,
    };
    const target = this.file(STATE_FILE);
    const temporary = `${target}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(state));
    fs.renameSync(temporary, target);
    if (this.obsoleteJournal) {
      fs.rmSync(this.obsoleteJournal, { force: true });
      this.obsoleteJournal = null;
    }
  }

  close(): void {
    fs.closeSync(this.journalFd);
    fs.closeSync(this.transactionFd);
    fs.closeSync(this.slotRecords.fd);
  }
}
