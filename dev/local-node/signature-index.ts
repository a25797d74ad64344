/**
 * Landed transactions by account and by slot, oldest first: what getSignaturesForAddress and
 * getBlock read. One small entry per transaction, shared by every account it names, rebuilt from
 * the transaction log at start like the status entries.
 */
import { encodeBase58 } from './base58';
import { keyId } from './key-id';
import type { TransactionErrorJson } from './transaction-errors';
import type { ParsedMessage } from './wire-transaction';

export interface SignatureEntry {
  signature: string;
  slot: number;
  blockTime: number;
  err: TransactionErrorJson | null;
  /** The memos of the message as a cluster shows them ("[len] text; ..."), or null. */
  memo: string | null;
}

const MEMO_PROGRAMS = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

/** Agave's extract_memos: each memo instruction's data as "[length] text", joined by "; ". */
export function memosOf(message: ParsedMessage): string | null {
  const memos = message.instructions
    .filter((ix) => ix.programIdIndex < message.staticKeys.length && MEMO_PROGRAMS.has(encodeBase58(message.staticKeys[ix.programIdIndex])))
    .map((ix) => `[${ix.data.length}] ${Buffer.from(ix.data).toString('utf8')}`);
  return memos.length > 0 ? memos.join('; ') : null;
}

export class SignatureIndex {
  private readonly byAccount = new Map<string, SignatureEntry[]>();
  private readonly bySlot = new Map<number, SignatureEntry[]>();

  /** `accounts`: every key the transaction loaded (static and from lookup tables); repeats are ignored. */
  add(entry: SignatureEntry, accounts: Iterable<Uint8Array>): void {
    const seen = new Set<string>();
    for (const key of accounts) {
      const id = keyId(key);
      if (seen.has(id)) continue;
      seen.add(id);
      const list = this.byAccount.get(id);
      if (list) list.push(entry);
      else this.byAccount.set(id, [entry]);
    }
    const inSlot = this.bySlot.get(entry.slot);
    if (inSlot) inSlot.push(entry);
    else this.bySlot.set(entry.slot, [entry]);
  }

  /** Forgets a transaction (a fork abandoned its block): its accounts' lists and its slot's no longer show it. */
  remove(signature: string, slot: number, accounts: Iterable<Uint8Array>): void {
    for (const key of accounts) {
      const id = keyId(key);
      const list = this.byAccount.get(id);
      if (!list) continue;
      const kept = list.filter((entry) => entry.signature !== signature);
      if (kept.length === 0) this.byAccount.delete(id);
      else if (kept.length !== list.length) this.byAccount.set(id, kept);
    }
    const inSlot = this.bySlot.get(slot)?.filter((entry) => entry.signature !== signature);
    if (inSlot?.length) this.bySlot.set(slot, inSlot);
    else this.bySlot.delete(slot);
  }

  /** The account's transactions, oldest first. */
  forAccount(key: Uint8Array): readonly SignatureEntry[] {
    return this.byAccount.get(keyId(key)) ?? [];
  }

  /** The slot's transactions in the order they landed. */
  inSlot(slot: number): readonly SignatureEntry[] {
    return this.bySlot.get(slot) ?? [];
  }
}
