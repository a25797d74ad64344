/**
 * Reconciliation's rules (docs/reconciliation.md), pure: what the chain holds for a record, where the
 * record and the chain differ, and which of the service's own writes explain a difference. The pass
 * that reads the records and the chain is src/activities/reconciliation/reconcile.ts.
 */
import { getBase64Encoder, getCompiledTransactionMessageDecoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';

/** `account`: the lamports of an account's address; `position`: the token amount of a position's token account. */
export type HoldingKind = 'account' | 'position';

/** A record as reconciliation compares it. */
export interface Holding {
  kind: HoldingKind;
  recordId: string;
  organizationId: string;
  address: string;
  /** The record's balance: lamports, or token base units. */
  recorded: bigint;
  /** Follows the chain (its own subscribeToNetworkEvents, or its owner's for a position): only these are repaired. */
  subscribed: boolean;
}

/** An account as one chain read saw it (null: no account at the address). */
export type ChainAccount = { owner: string; lamports: bigint; data: Uint8Array } | null;

export interface Drift extends Holding {
  chain: bigint;
  /** chain − recorded. */
  difference: bigint;
  /** The chain read's context slot. */
  slot: bigint;
}

/** SPL Token and Token-2022 accounts share the base layout: mint (32), owner (32), amount (u64 LE at 64). */
const TOKEN_AMOUNT_OFFSET = 64;

/** A token account's amount; 0 where no account exists (closed, never made); null when the account is not a token account. */
export function tokenAmountOf(account: ChainAccount): bigint | null {
  if (!account) return 0n;
  if (account.owner !== TOKEN_PROGRAM_ADDRESS && account.owner !== TOKEN_2022_PROGRAM_ADDRESS) return null;
  if (account.data.length < TOKEN_AMOUNT_OFFSET + 8) return null;
  return new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength).getBigUint64(TOKEN_AMOUNT_OFFSET, true);
}

/** What the chain holds for a holding: the address's lamports, or its token amount (an account that is not a token account holds none). */
export function chainValueOf(holding: Pick<Holding, 'kind'>, account: ChainAccount): bigint {
  if (holding.kind === 'account') return account?.lamports ?? 0n;
  return tokenAmountOf(account) ?? 0n;
}

/** One address as a chain read saw it, with the read's context slot. */
export interface ChainReading {
  account: ChainAccount;
  slot: bigint;
}

/** Every holding whose record differs from the chain read (`readings` by address; a holding without one is not compared). */
export function findDrifts<H extends Holding>(holdings: H[], readings: ReadonlyMap<string, ChainReading>): (H & Drift)[] {
  const drifts: (H & Drift)[] = [];
  for (const holding of holdings) {
    const reading = readings.get(holding.address);
    if (!reading) continue;
    const chain = chainValueOf(holding, reading.account);
    if (chain !== holding.recorded) drifts.push({ ...holding, chain, difference: chain - holding.recorded, slot: reading.slot });
  }
  return drifts;
}

/**
 * One of the service's writes as reconciliation sees it, read after the chain read.
 * `recorded`: its outcome and balance changes are in the records (SUBMITTED or CONFIRMED with
 * success); otherwise it is still in flight (BUILT, AWAITING_SIGNATURES, SIGNED, SUBMITTED).
 * `landed`: whether the network knows its signature now (null: no signature known to ask about).
 * `lifetimeLive`: its message may still land (a durable nonce, or a blockhash not yet expired).
 */
export interface ServiceWrite {
  recorded: boolean;
  landed: boolean | null;
  lifetimeLive: boolean;
  /** Addresses its message loads; null when some cannot be known (a lookup table not on record). */
  addresses: string[] | null;
}

/**
 * Whether a write explains a difference on the addresses it loads:
 * - in flight and landed: the chain holds its effect, the records not yet (its record step is to come);
 * - in flight without a known signature and a live lifetime: it may have landed unseen;
 * - recorded but no longer known to the network: it left the chain before finalization (finality
 *   following restores the balances it moved).
 * A write in flight that has not landed cannot be in a chain read made before it was looked at.
 */
export function writeExplains(write: Omit<ServiceWrite, 'addresses'>): boolean {
  if (write.recorded) return write.landed === false;
  if (write.landed === null) return write.lifetimeLive;
  return write.landed;
}

/** Whether any of `writes` explains a difference at `address`. */
export function explainedByWrites(address: string, writes: ServiceWrite[]): boolean {
  return writes.some((write) => (write.addresses === null || write.addresses.includes(address)) && writeExplains(write));
}

/**
 * The addresses a compiled message loads: its static keys and, through `tables` (lookup table
 * address → its addresses in table order), the ones its lookups name; null when a table is unknown.
 */
export function messageAddresses(serializedMessageBase64: string, tables: ReadonlyMap<string, readonly string[]>): string[] | null {
  const message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(serializedMessageBase64));
  const addresses: string[] = [...message.staticAccounts];
  for (const lookup of ('addressTableLookups' in message ? message.addressTableLookups : undefined) ?? []) {
    const table = tables.get(lookup.lookupTableAddress);
    if (!table) return null;
    for (const index of [...lookup.writableIndexes, ...lookup.readonlyIndexes]) {
      if (table[index] === undefined) return null;
      addresses.push(table[index]);
    }
  }
  return addresses;
}

/**
 * The verdict on a difference once the records are read again after the chain read and the writes:
 * `caughtUp` (the record now equals the chain), `changed` (the record moved during the pass: a write
 * recorded meanwhile, whose chain effect the read may or may not hold; next pass decides), `explained`
 * (a write of the service explains it), or `drift` (nothing recorded explains it: a finding).
 */
export type Verdict = 'caughtUp' | 'changed' | 'explained' | 'drift';

export function judge(drift: Drift, recordedNow: bigint | undefined, explained: boolean): Verdict {
  // A record gone (deleted, no longer ACTIVE) between the reads is left to the next pass.
  if (recordedNow === undefined) return 'changed';
  if (recordedNow === drift.chain) return 'caughtUp';
  if (recordedNow !== drift.recorded) return 'changed';
  return explained ? 'explained' : 'drift';
}

/** Splits `items` into batches of at most `size` (getMultipleAccounts takes 100 addresses a call). */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
