/**
 * A fork that abandons every block above the finalized slot (in-process fault hook, see
 * LocalNode.dropUnfinalizedBlocks): what a cluster does when the validators finalize another branch.
 * Each landed transaction keeps the pre-images of the accounts it wrote while its slot is not yet
 * finalized (so memory holds at most FINALITY_DEPTH slots of them); a drop restores them newest first,
 * which leaves every account exactly as at the finalized slot, and removes the transactions from the
 * store and the signature index. The abandoned slots' blocks stay, empty; the chain continues.
 */
import { Account, type LiteSvm } from 'litesvm/dist/internal';
import type { AccountJournal } from './account-journal';
import type { Chain } from './chain';
import type { TransactionStore } from './transaction-store';

/** An account as it was before a transaction wrote it (null: it did not exist). */
interface PreImage {
  key: Uint8Array;
  account: Account | null;
}

interface UnfinalizedTransaction {
  slot: number;
  signature: string;
  preImages: PreImage[];
}

export class UnfinalizedWrites {
  /** Landed order (slots never decrease along it). */
  private transactions: UnfinalizedTransaction[] = [];

  /** The accounts `written` as they are now, before a transaction runs. */
  capture(svm: LiteSvm, written: Uint8Array[]): PreImage[] {
    return written.map((key) => ({ key, account: svm.getAccount(key) }));
  }

  landed(slot: number, signature: string, preImages: PreImage[]): void {
    this.transactions.push({ slot, signature, preImages });
  }

  /** Forgets what can no longer be undone: transactions at or below the finalized slot. */
  prune(finalizedSlot: number): void {
    let keep = 0;
    while (keep < this.transactions.length && this.transactions[keep].slot <= finalizedSlot) keep++;
    if (keep > 0) this.transactions = this.transactions.slice(keep);
  }

  /** Removes and returns the transactions above the finalized slot, newest first. */
  takeAbove(finalizedSlot: number): UnfinalizedTransaction[] {
    this.prune(finalizedSlot);
    const taken = this.transactions.reverse();
    this.transactions = [];
    return taken;
  }

  get size(): number {
    return this.transactions.length;
  }
}

// LiteSVM has no delete: an account is gone when it holds no lamports (as the account journal replays it).
const GONE = () => new Account(0n, new Uint8Array(0), new Uint8Array(32), false, 0n);

/**
 * Undoes every transaction above the finalized slot: account states restored, transactions
 * forgotten (getSignatureStatuses and getTransaction answer null, history no longer lists them).
 * Returns their signatures, newest first. The caller saves, so a restart sees the same chain.
 */
export function dropUnfinalizedBlocks(parts: {
  svm: LiteSvm;
  chain: Chain;
  store: TransactionStore;
  journal: AccountJournal;
  unfinalized: UnfinalizedWrites;
}): string[] {
  const dropped = parts.unfinalized.takeAbove(parts.chain.slotAt('finalized'));
  for (const transaction of dropped) {
    for (const { key, account } of transaction.preImages) {
      parts.svm.setAccount(key, account ?? GONE());
      parts.journal.markWritten(key);
    }
  }
  parts.store.remove(dropped.map((transaction) => transaction.signature));
  return dropped.map((transaction) => transaction.signature);
}
