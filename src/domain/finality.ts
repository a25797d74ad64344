/**
 * Following a landed transaction to finality (docs/finality.md): the pure decisions. What the
 * network reports for a signature, set against the record, gives the next step; the balances a
 * transaction moved are kept as moves so a transaction that leaves the chain can be undone exactly.
 */
import type { SignatureStatus } from '../network/svm-network';

/** One offchain balance change a transaction's record step made: an account's lamports or a position's base units (signed decimal). */
export interface BalanceMove {
  kind: 'ACCOUNT' | 'POSITION';
  /** The account's or position's offchain id. */
  id: string;
  delta: string;
}

/** The moves a record step made, in the order made; moves of one record add up (the restore applies their opposite sums). */
export function addBalanceMove(moves: BalanceMove[] | null | undefined, move: { kind: BalanceMove['kind']; id: string; delta: bigint }): BalanceMove[] {
  const list = moves ? [...moves] : [];
  if (move.delta === 0n) return list;
  const found = list.findIndex((m) => m.kind === move.kind && m.id === move.id);
  if (found < 0) return [...list, { kind: move.kind, id: move.id, delta: move.delta.toString() }];
  list[found] = { ...list[found], delta: (BigInt(list[found].delta) + move.delta).toString() };
  return list;
}

/** The opposite of every move (what restores the balances), zero sums left out. */
export function reversedMoves(moves: readonly BalanceMove[] | null | undefined): BalanceMove[] {
  return (moves ?? []).filter((m) => BigInt(m.delta) !== 0n).map((m) => ({ ...m, delta: (-BigInt(m.delta)).toString() }));
}

/** What the record knows about a followed transaction. */
export interface FollowedRecord {
  status: string;
  slot: bigint | null;
  confirmationsCount: number | null;
}

/** The network's tips this tick: its newest confirmed and finalized slots. */
export interface ChainTips {
  confirmedSlot: bigint;
  finalizedSlot: bigint;
}

export type FinalityStep =
  /** Nothing to write. */
  | { kind: 'UNCHANGED' }
  /** Still below finality: the count (and slot, if the transaction moved to another block) to store; `status` CONFIRMED once the network says so. */
  | { kind: 'PROGRESS'; status: 'SUBMITTED' | 'CONFIRMED'; confirmations: number; slot: bigint }
  | { kind: 'FINALIZED'; confirmations: number; slot: bigint }
  /** No status while the finalized slot is past the recorded slot: confirm with one more read before ending it FAILED. */
  | { kind: 'MAYBE_LEFT_CHAIN' };

/** The count only grows: the network's count while it reports one, never below what was recorded. */
export function grownCount(recorded: number | null, reported: number | null): number {
  return Math.max(recorded ?? 0, reported ?? 0);
}

/**
 * The count a finalized transaction keeps: the last count seen when there was one; when none was
 * ever seen (the first look found it rooted, where the network reports none), the distance from its
 * slot to the network's confirmed slot, at least 1. Never 0.
 */
export function finalizedCount(recorded: number | null, slot: bigint, confirmedSlot: bigint): number {
  if (recorded && recorded > 0) return recorded;
  const distance = confirmedSlot - slot;
  return distance > 0n ? Number(distance) : 1;
}

/** The next step for one followed record, from the network's status of its signature (null: the network knows none). */
export function finalityStep(record: FollowedRecord, status: SignatureStatus | null, tips: ChainTips): FinalityStep {
  if (!status) {
    // A transaction not yet seen below a finalized slot may still be in flight; one below it has left the chain.
    return record.slot !== null && tips.finalizedSlot > record.slot ? { kind: 'MAYBE_LEFT_CHAIN' } : { kind: 'UNCHANGED' };
  }
  if (status.confirmationStatus === 'finalized') {
    return {
      kind: 'FINALIZED',
      confirmations: finalizedCount(grownCount(record.confirmationsCount, status.confirmations), status.slot, tips.confirmedSlot),
      slot: status.slot,
    };
  }
  const confirmations = grownCount(record.confirmationsCount, status.confirmations);
  const next = status.confirmationStatus === 'confirmed' ? 'CONFIRMED' : (record.status as 'SUBMITTED' | 'CONFIRMED');
  if (confirmations === (record.confirmationsCount ?? 0) && next === record.status && status.slot === record.slot) return { kind: 'UNCHANGED' };
  return { kind: 'PROGRESS', status: next, confirmations, slot: status.slot };
}

/** The errorMessage of a transaction that left the chain. */
export const leftChainMessage = (slot: bigint) =>
  `the transaction left the chain before finalization: it landed in slot ${slot}, which the network did not finalize; every balance it moved was restored`;
