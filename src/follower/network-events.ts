/**
 * Which network transactions the chain follower records, and for whom (docs/chain-follower.md):
 * pure matching of a block's transactions against the followed set, no IO. The set is every
 * account with subscribeToNetworkEvents on (managed or not) and its positions, per organization;
 * a transaction touches an account when one of its account keys (static or loaded from a lookup
 * table) is the account's address or one of its positions' addresses, or when one of its token
 * balances belongs to a token account the account owns (a deposit to a token account the record
 * does not know yet names the owner only there).
 */
import type { BlockTransaction } from '../network/svm-network';

export interface FollowedAccount {
  id: string;
  organizationId: string;
  address: string;
  /** The first slot followed for this account (null: from wherever the follower is). */
  fromSlot: bigint | null;
}

export interface FollowedPosition {
  id: string;
  organizationId: string;
  address: string;
  ownerAccountId: string;
  mintAddress: string;
}

/** The followed set of one cluster, keyed by address: O(1) per account key, whatever its size. */
export interface FollowedSet {
  accounts: Map<string, FollowedAccount[]>;
  positions: Map<string, FollowedPosition[]>;
  accountsById: Map<string, FollowedAccount>;
}

export function followedSet(accounts: FollowedAccount[], positions: FollowedPosition[]): FollowedSet {
  const set: FollowedSet = { accounts: new Map(), positions: new Map(), accountsById: new Map(accounts.map((a) => [a.id, a])) };
  for (const account of accounts) set.accounts.set(account.address, [...(set.accounts.get(account.address) ?? []), account]);
  const followed = set.accountsById;
  // Positions follow with their owner (and from its slot): an unsubscribed owner's positions are not followed.
  for (const position of positions.filter((p) => followed.has(p.ownerAccountId)))
    set.positions.set(position.address, [...(set.positions.get(position.address) ?? []), position]);
  return set;
}

/** A network transaction with its block's slot and time, as the follower (and reconciliation's repair) records it. */
export interface FollowedTransaction extends BlockTransaction {
  slot: bigint;
  blockTime: Date | null;
}

/** What one transaction means for one organization following it. */
export interface OrganizationMatch {
  organizationId: string;
  /** Followed accounts whose lamports the transaction loaded, with their change. */
  accounts: { account: FollowedAccount; pre: bigint; post: bigint }[];
  /** Known positions of followed accounts the transaction loaded, with their change in base units. */
  positions: { position: FollowedPosition; owner: FollowedAccount; pre: bigint; post: bigint }[];
  /** Token accounts of a followed owner the record does not know yet (a position is made if the instrument is on record). */
  newTokenAccounts: { address: string; mint: string; owner: FollowedAccount; pre: bigint; post: bigint }[];
}

const follows = (account: FollowedAccount, slot: bigint, ignoreFromSlot: boolean) => ignoreFromSlot || account.fromSlot === null || slot >= account.fromSlot;

/**
 * The organizations a transaction concerns and what it changed for each, in a stable order (by
 * organization id). `ignoreFromSlot`: reconciliation's repair records history from before the flag.
 */
export function matchTransaction(set: FollowedSet, tx: FollowedTransaction, ignoreFromSlot = false): OrganizationMatch[] {
  // Most of a block is strangers' traffic: one lookup per key decides, before anything is built.
  const touches =
    tx.accountKeys.some((key) => set.accounts.has(key) || set.positions.has(key)) ||
    tx.tokenBalances.some((b) => set.positions.has(b.address) || (b.owner !== null && set.accounts.has(b.owner)));
  if (!touches) return [];
  const byOrganization = new Map<string, OrganizationMatch>();
  const matchOf = (organizationId: string) =>
    byOrganization.get(organizationId) ??
    byOrganization.set(organizationId, { organizationId, accounts: [], positions: [], newTokenAccounts: [] }).get(organizationId)!;

  const lamports = new Map(tx.balances.map((b) => [b.address, b]));
  for (const key of new Set(tx.accountKeys)) {
    for (const account of set.accounts.get(key) ?? []) {
      if (!follows(account, tx.slot, ignoreFromSlot)) continue;
      const change = lamports.get(key);
      matchOf(account.organizationId).accounts.push({ account, pre: change?.pre ?? 0n, post: change?.post ?? 0n });
    }
  }
  const tokens = new Map(tx.tokenBalances.map((b) => [b.address, b]));
  for (const key of new Set([...tx.accountKeys, ...tokens.keys()])) {
    const change = tokens.get(key);
    const known = set.positions.get(key) ?? [];
    for (const position of known) {
      const owner = set.accountsById.get(position.ownerAccountId);
      if (!owner || !follows(owner, tx.slot, ignoreFromSlot) || !change) continue;
      matchOf(position.organizationId).positions.push({ position, owner, pre: change.pre, post: change.post });
    }
    if (!change?.owner) continue;
    // A token account of a followed owner that an organization does not hold as a position yet.
    for (const owner of set.accounts.get(change.owner) ?? []) {
      if (!follows(owner, tx.slot, ignoreFromSlot) || known.some((p) => p.organizationId === owner.organizationId)) continue;
      matchOf(owner.organizationId).newTokenAccounts.push({ address: key, mint: change.mint, owner, pre: change.pre, post: change.post });
    }
  }
  return [...byOrganization.values()].sort((a, b) => a.organizationId.localeCompare(b.organizationId));
}

/** The transactions of a block that concern any organization, minus those the service sent (`sentByService`). */
export function matchBlock(
  set: FollowedSet,
  transactions: FollowedTransaction[],
  sentByService: ReadonlySet<string>,
  ignoreFromSlot = false,
): { tx: FollowedTransaction; matches: OrganizationMatch[] }[] {
  return transactions
    .filter((tx) => !sentByService.has(tx.signature))
    .map((tx) => ({ tx, matches: matchTransaction(set, tx, ignoreFromSlot) }))
    .filter((m) => m.matches.length > 0);
}
