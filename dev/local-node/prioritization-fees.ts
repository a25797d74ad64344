/**
 * Prioritization fees of recent blocks, kept the way a validator's prioritization fee cache keeps
 * them (in memory, for getRecentPrioritizationFees): per slot, the lowest compute-unit price among
 * the block's transactions, and per write-locked account the lowest price among those locking it.
 */
import { keyId } from './key-id';

interface SlotFees {
  lowest: bigint;
  byAccount: Map<string, bigint>;
}

export class PrioritizationFeeCache {
  private readonly slots = new Map<number, SlotFees>();

  /** `capacity`: how many recent slots are kept (a validator answers the last 150). */
  constructor(private readonly capacity = 150) {}

  /** A landed transaction with compute-unit price `price` that write-locked `writable`. */
  record(slot: number, price: bigint, writable: Uint8Array[]): void {
    let fees = this.slots.get(slot);
    if (!fees) {
      fees = { lowest: price, byAccount: new Map() };
      this.slots.set(slot, fees);
      for (const old of this.slots.keys()) if (old <= slot - this.capacity) this.slots.delete(old);
    }
    if (price < fees.lowest) fees.lowest = price;
    for (const key of writable) {
      const id = keyId(key);
      const known = fees.byAccount.get(id);
      if (known === undefined || price < known) fees.byAccount.set(id, price);
    }
  }

  /** A slot's fee for these accounts as Agave answers it: the block's lowest, raised to the highest lowest among the accounts; 0 for a slot without transactions. */
  feeAt(slot: number, accounts: Uint8Array[]): bigint {
    const fees = this.slots.get(slot);
    if (!fees) return 0n;
    let fee = fees.lowest;
    for (const key of accounts) {
      const own = fees.byAccount.get(keyId(key));
      if (own !== undefined && own > fee) fee = own;
    }
    return fee;
  }
}
