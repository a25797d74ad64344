/**
 * The node's state in one object: LiteSVM, the block table, the transaction store, the
 * account journal and the data directory, plus what happens at each tick.
 */
import { randomBytes } from 'node:crypto';
import { Account, LiteSvm } from 'litesvm/dist/internal';
import { AccountJournal } from './account-journal';
import { decodeBase58, encodeBase58 } from './base58';
import { Chain, type BlockInfo } from './chain';
import { Faucet } from './faucet';
import { programKey, type LocalNodeProgram } from './programs';
import { NodeStorage } from './storage';
import { deserializeIndexFields, deserializeRecord, removedSignaturesOf, serializeRecord, serializeRemoval } from './transaction-record';
import { PrioritizationFeeCache } from './prioritization-fees';
import { TransactionExecutor, type SubmitOutcome } from './transaction-executor';
import { dropUnfinalizedBlocks, UnfinalizedWrites } from './fork';
import { indexEntryOf, TransactionStore } from './transaction-store';
import { parseTransaction } from './wire-transaction';
import type { MintReader } from './parsed-accounts';

export interface RuntimeOptions {
  dataDir?: string;
  log: (message: string) => void;
  tuning?: RuntimeTuning;
  /** Deployed at each start, after the saved state is restored. */
  programs?: LocalNodeProgram[];
}

/** Thresholds with production defaults; tests lower them to reach the code paths quickly. */
export interface RuntimeTuning {
  /** Compact the account journal once it is both this large and JOURNAL_COMPACTION_GROWTH times its last compacted size. */
  journalCompactionMinBytes?: number;
  /** Full transaction records kept in memory once saved; older ones are read back from the log. */
  recordsInMemory?: number;
}

const U64_MAX = (1n << 64n) - 1n;
const FAUCET_TOP_UP = 1_000_000_000n * 1_000_000_000n; // a billion SOL at a time
// An idle chain still saves its slot now and then, so a restart does not rewind far.
const IDLE_TICKS_BETWEEN_SAVES = 25;
const JOURNAL_COMPACTION_MIN_BYTES = 64 * 1024 * 1024;
// Compacting only after the journal quadruples keeps its cost amortized.
const JOURNAL_COMPACTION_GROWTH = 4;

export class NodeRuntime {
  readonly svm: LiteSvm;
  readonly chain: Chain;
  readonly store: TransactionStore;
  readonly executor: TransactionExecutor;
  /** In memory, like a validator's: a restart starts with no recent fees. */
  readonly prioritizationFees = new PrioritizationFeeCache();
  readonly genesisHash: string;
  readonly identity: string;
  private readonly journal: AccountJournal;
  /** Pre-images of what unfinalized transactions wrote (in memory only: after a restart, earlier transactions cannot be dropped). */
  private readonly unfinalized = new UnfinalizedWrites();
  private readonly faucet: Faucet;
  private readonly faucetSeed: Uint8Array;
  private idleTicks = 0;
  /** Called after each block closes and is saved (PubSub notifications). */
  onBlockClosed: ((closed: BlockInfo) => void) | null = null;
  private compactedJournalBytes: number;
  private readonly journalCompactionMinBytes: number;

  constructor(
    private readonly storage: NodeStorage | null,
    private readonly log: (message: string) => void,
    tuning: RuntimeTuning = {},
  ) {
    const saved = storage?.saved ?? null;
    this.journal = new AccountJournal(storage !== null);
    // LiteSVM's own history would refuse re-sends of failed preflights; the node keeps its own.
    this.svm = new LiteSvm();
    this.svm.setTransactionHistory(0n);
    if (storage && saved) this.journal.replay(this.svm, storage.readAccountJournal());
    this.compactedJournalBytes = storage?.accountJournalBytes ?? 0;
    this.journalCompactionMinBytes = tuning.journalCompactionMinBytes ?? JOURNAL_COMPACTION_MIN_BYTES;
    this.chain = new Chain(this.svm, saved?.chain, storage?.slotRecords);
    const readRecord = storage ? (offset: number, length: number) => deserializeRecord(storage.readTransactionLine(offset, length)) : null;
    this.store = new TransactionStore(readRecord, tuning.recordsInMemory);
    if (storage && saved) {
      storage.readTransactionLog((line, offset, length) => {
        const removed = removedSignaturesOf(line);
        if (removed) this.store.remove(removed, true);
        else this.store.restore(indexEntryOf(deserializeIndexFields(line)), offset, length);
      });
    }
    this.executor = new TransactionExecutor(this.svm, this.chain, this.store, this.journal, this.prioritizationFees, this.unfinalized);
    this.faucetSeed = saved ? new Uint8Array(Buffer.from(saved.faucetSeed, 'base64')) : Faucet.newSeed();
    this.faucet = new Faucet(this.faucetSeed);
    this.genesisHash = saved?.genesisHash ?? encodeBase58(randomBytes(32));
    this.identity = saved?.identity ?? encodeBase58(randomBytes(32));
    if (saved) log(`local node: restored slot ${this.chain.currentSlot}, ${this.store.count} transactions`);
    else this.save();
  }

  static open(options: RuntimeOptions): NodeRuntime {
    const runtime = new NodeRuntime(options.dataDir ? NodeStorage.open(options.dataDir) : null, options.log, options.tuning);
    try {
      for (const program of options.programs ?? []) runtime.addProgram(program);
    } catch (error) {
      runtime.close();
      throw error;
    }
    return runtime;
  }

  /** A mint's bytes and owner program, for jsonParsed token accounts. */
  readonly readMint: MintReader = (mint) => {
    const key = decodeBase58(mint);
    const account = key?.length === 32 ? this.svm.getAccount(key) : null;
    return account ? { data: account.data(), owner: account.owner() } : null;
  };

  /** Every account written since genesis, by a transaction or setAccount (closed ones included). */
  accountKeys(): Iterable<Uint8Array> {
    return this.journal.keys();
  }

  /** Deploys an sBPF program; it is not saved with the state (see programs.ts). */
  addProgram(program: LocalNodeProgram): void {
    try {
      this.svm.addProgram(programKey(program.programId), program.elf);
    } catch (error) {
      throw new Error(`local node: cannot load program ${program.programId}: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.log(`local node: program ${program.programId} loaded (${program.elf.length} bytes)`);
  }

  /**
   * Writes an account as given, outside any transaction, and saves it like a transaction's write:
   * local tooling and tests place state no instruction can create (e.g. a transfer hook's
   * validation account without the hook's own initializer). Lamports default to rent exemption.
   */
  setAccount(address: Uint8Array, account: { owner: Uint8Array; data: Uint8Array; lamports?: bigint; executable?: boolean }): void {
    const lamports = account.lamports ?? this.svm.minimumBalanceForRentExemption(BigInt(account.data.length));
    this.svm.setAccount(address, new Account(lamports, account.data, account.owner, account.executable ?? false, U64_MAX));
    this.journal.markWritten(address);
  }

  /** Closes the block in progress. Its transactions are saved before they can read as confirmed. */
  tick(): void {
    const closed = this.chain.tick();
    this.unfinalized.prune(this.chain.slotAt('finalized'));
    if (this.journal.hasChanges() || this.store.hasPending() || ++this.idleTicks >= IDLE_TICKS_BETWEEN_SAVES) this.save();
    this.onBlockClosed?.(closed);
  }

  /** Writes what changed since the last save, then commits the chain state. A failed save is retried by the next. */
  save(): void {
    this.idleTicks = 0;
    if (!this.storage) return;
    const storage = this.storage;
    const changes = this.journal.encodeChanges(this.svm);
    if (storage.accountJournalBytes + changes.length > Math.max(this.journalCompactionMinBytes, this.compactedJournalBytes * JOURNAL_COMPACTION_GROWTH)) {
      const compacted = this.journal.compact(this.svm);
      storage.replaceAccountJournal(compacted);
      this.compactedJournalBytes = compacted.length;
      this.log(`local node: compacted the account journal to ${compacted.length} bytes`);
    } else {
      storage.appendAccounts(changes);
    }
    this.store.flushPending((records) => storage.appendTransactions(records.map(serializeRecord)));
    this.store.flushRemovals((signatures) => storage.appendTransactions([serializeRemoval(signatures)]));
    storage.commit({
      genesisHash: this.genesisHash,
      identity: this.identity,
      faucetSeed: Buffer.from(this.faucetSeed).toString('base64'),
      chain: this.chain.snapshot(),
    });
    this.journal.clearChanges();
  }

  /** Abandons every block above the finalized slot, as a fork would (fork.ts), and saves; the dropped signatures, newest first. */
  dropUnfinalizedBlocks(): string[] {
    const dropped = dropUnfinalizedBlocks({ svm: this.svm, chain: this.chain, store: this.store, journal: this.journal, unfinalized: this.unfinalized });
    this.save();
    return dropped;
  }

  /** A faucet transfer through the normal transaction path; the faucet is refilled as needed. */
  airdrop(recipient: Uint8Array, lamports: bigint): SubmitOutcome {
    const balance = this.svm.getBalance(this.faucet.address) ?? 0n;
    const needed = lamports + 1_000_000n;
    if (balance < needed) {
      const refilled = balance + needed + FAUCET_TOP_UP;
      if (refilled > U64_MAX) throw new RangeError('airdrop amount too large');
      this.svm.setAccount(this.faucet.address, new Account(refilled, new Uint8Array(0), new Uint8Array(32), false, U64_MAX));
      this.journal.markWritten(this.faucet.address);
    }
    const blockhash = decodeBase58(this.chain.latestBlock('processed').blockhash)!;
    for (let variant = 0; ; variant++) {
      const transaction = parseTransaction(this.faucet.transfer(recipient, lamports, blockhash, variant));
      if (!this.store.has(encodeBase58(transaction.signatures[0]))) return this.executor.submit(transaction, false);
    }
  }

  close(): void {
    this.save();
    this.storage?.close();
  }
}
