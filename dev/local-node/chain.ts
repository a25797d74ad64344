/**
 * Blocks on top of LiteSVM, which has none: each tick closes the block in progress,
 * takes a fresh blockhash from LiteSVM, moves the Clock to wall time and keeps the
 * SlotHashes sysvar the way a cluster would (lookup tables depend on it).
 */
import { Clock, EpochSchedule, type LiteSvm, type SlotHashInput } from 'litesvm/dist/internal';
import { MemorySlotRecords, SlotHistory, type SlotRecordBackend } from './slot-history';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface BlockInfo {
  slot: number;
  height: number;
  blockhash: string;
  /** Unix seconds the block's Clock showed. */
  blockTime: number;
}

/** What a restart needs to continue the same chain. */
export interface ChainSnapshot {
  currentSlot: number;
  currentHeight: number;
  /** How many times LiteSVM's blockhash was advanced since genesis; replayed on load. */
  hashChainLength: number;
  epochStartTimestamp: number;
  /** Completed blocks, newest first. */
  blocks: BlockInfo[];
}

/** A blockhash stays usable for this many blocks after its own (MAX_PROCESSING_AGE). */
export const MAX_BLOCKHASH_AGE = 150;
/** Blocks between `processed` and `finalized`. */
export const FINALITY_DEPTH = 32;
const SLOT_HASHES_CAPACITY = 512;
const SLOTS_PER_EPOCH = 432_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class Chain {
  /** Slot of the block in progress: where new transactions land. */
  currentSlot: number;
  currentHeight: number;
  currentBlockTime: number;
  private hashChainLength: number;
  private epochStartTimestamp: number;
  private readonly blocks: BlockInfo[];
  private readonly slotHashes: SlotHashInput[];
  private readonly blocksByHash = new Map<string, BlockInfo>();
  /** Every completed block since genesis (the table above holds only the newest 512). */
  readonly history: SlotHistory;

  constructor(
    private readonly svm: LiteSvm,
    snapshot?: ChainSnapshot,
    historyRecords: SlotRecordBackend = new MemorySlotRecords(),
  ) {
    this.history = new SlotHistory(historyRecords);
    // Epochs of a fixed 432,000 slots, like mainnet after warmup.
    svm.setEpochSchedule(new EpochSchedule(BigInt(SLOTS_PER_EPOCH), BigInt(SLOTS_PER_EPOCH), false, 0n, 0n));
    this.currentBlockTime = nowSeconds();
    if (snapshot) {
      // LiteSVM's blockhash sequence is deterministic from genesis: replaying it resumes exactly.
      for (let i = 0; i < snapshot.hashChainLength; i++) svm.expireBlockhash();
      this.currentSlot = snapshot.currentSlot;
      this.currentHeight = snapshot.currentHeight;
      this.hashChainLength = snapshot.hashChainLength;
      this.epochStartTimestamp = snapshot.epochStartTimestamp;
      this.blocks = snapshot.blocks.slice(0, SLOT_HASHES_CAPACITY);
      if (this.blocks[0]?.blockhash !== svm.latestBlockhash()) {
        throw new Error('local node: saved blockhash chain does not match LiteSVM (was the state written by another LiteSVM version?)');
      }
    } else {
      // Start each new chain at a random point of the sequence so two fresh nodes never share blockhashes.
      this.hashChainLength = Math.floor(Math.random() * 1000);
      for (let i = 0; i < this.hashChainLength; i++) svm.expireBlockhash();
      this.currentSlot = 1;
      this.currentHeight = 1;
      this.epochStartTimestamp = this.currentBlockTime;
      this.blocks = [{ slot: 0, height: 0, blockhash: svm.latestBlockhash(), blockTime: this.currentBlockTime }];
    }
    // States saved before the history existed start it with the table's blocks.
    this.history.appendMissing(this.blocks.slice().reverse());
    this.slotHashes = this.blocks.map((block) => ({ slot: BigInt(block.slot), hash: block.blockhash }));
    for (const block of this.blocks) this.blocksByHash.set(block.blockhash, block);
    this.applySysvars();
  }

  /** Closes the block in progress and opens the next one. */
  tick(): BlockInfo {
    this.svm.expireBlockhash();
    this.hashChainLength++;
    const closed: BlockInfo = {
      slot: this.currentSlot,
      height: this.currentHeight,
      blockhash: this.svm.latestBlockhash(),
      blockTime: this.currentBlockTime,
    };
    this.blocks.unshift(closed);
    this.history.append(closed);
    this.slotHashes.unshift({ slot: BigInt(closed.slot), hash: closed.blockhash });
    this.blocksByHash.set(closed.blockhash, closed);
    if (this.blocks.length > SLOT_HASHES_CAPACITY) {
      this.blocksByHash.delete(this.blocks.pop()!.blockhash);
      this.slotHashes.pop();
    }
    this.currentSlot++;
    this.currentHeight++;
    this.currentBlockTime = Math.max(this.currentBlockTime, nowSeconds());
    if (this.currentSlot % SLOTS_PER_EPOCH === 0) this.epochStartTimestamp = this.currentBlockTime;
    this.applySysvars();
    return closed;
  }

  private applySysvars(): void {
    const epoch = BigInt(this.epoch());
    this.svm.setClock(new Clock(BigInt(this.currentSlot), BigInt(this.epochStartTimestamp), epoch, epoch + 1n, BigInt(this.currentBlockTime)));
    this.svm.setSlotHashes(this.slotHashes);
  }

  epoch(slot = this.currentSlot): number {
    return Math.floor(slot / SLOTS_PER_EPOCH);
  }

  get slotsPerEpoch(): number {
    return SLOTS_PER_EPOCH;
  }

  slotAt(commitment: Commitment): number {
    if (commitment === 'processed') return this.currentSlot;
    if (commitment === 'confirmed') return this.currentSlot - 1;
    return Math.max(this.oldestSlot(), this.currentSlot - FINALITY_DEPTH);
  }

  /** The highest commitment a landed slot has reached. */
  commitmentOf(slot: number): Commitment {
    if (slot <= this.slotAt('finalized')) return 'finalized';
    return slot <= this.slotAt('confirmed') ? 'confirmed' : 'processed';
  }

  heightAt(commitment: Commitment): number {
    return this.currentHeight - (this.currentSlot - this.slotAt(commitment));
  }

  private oldestSlot(): number {
    return this.blocks[this.blocks.length - 1].slot;
  }

  /** The newest completed block visible at a commitment (its hash is what getLatestBlockhash returns). */
  latestBlock(commitment: Commitment): BlockInfo {
    const slot = commitment === 'finalized' ? this.slotAt('finalized') : this.currentSlot - 1;
    // Slots are contiguous, so a block's position follows from its slot.
    return this.blocks[this.blocks[0].slot - slot] ?? this.blocks[this.blocks.length - 1];
  }

  /** A completed block: from the table when recent, else from the history. */
  blockAt(slot: number): BlockInfo | undefined {
    if (slot >= this.currentSlot) return undefined;
    const recent = this.blocks[this.blocks[0].slot - slot];
    return recent?.slot === slot ? recent : this.history.get(slot);
  }

  /** The oldest completed block the node can serve. */
  get firstAvailableSlot(): number {
    return this.history.firstSlot ?? this.oldestSlot();
  }

  /** Completed slots with a block in [start, end], ascending, at most `limit`. */
  blockSlots(start: number, end: number, limit?: number): number[] {
    return this.history.slotsBetween(start, Math.min(end, this.currentSlot - 1), limit);
  }

  blockByHash(blockhash: string): BlockInfo | undefined {
    return this.blocksByHash.get(blockhash);
  }

  /** Whether a transaction using this blockhash may still land in the block in progress. */
  isBlockhashUsable(blockhash: string, atHeight = this.currentHeight): boolean {
    const block = this.blocksByHash.get(blockhash);
    return block !== undefined && block.height <= atHeight && atHeight <= block.height + MAX_BLOCKHASH_AGE;
  }

  /** Block time of a completed or in-progress slot. */
  blockTimeOf(slot: number): number | null {
    if (slot === this.currentSlot) return this.currentBlockTime;
    return this.blockAt(slot)?.blockTime ?? null;
  }

  recentBlocks(count: number): BlockInfo[] {
    return this.blocks.slice(0, count);
  }

  snapshot(): ChainSnapshot {
    return {
      currentSlot: this.currentSlot,
      currentHeight: this.currentHeight,
      hashChainLength: this.hashChainLength,
      epochStartTimestamp: this.epochStartTimestamp,
      blocks: this.blocks.slice(),
    };
  }
}
