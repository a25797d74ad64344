/**
 * Recording network transactions (API.md section 9, docs/chain-follower.md): for each organization
 * following a touched account, one transaction record with origin NETWORK, the balances of its
 * accounts and positions moved by what the transaction changed, and a position record for a new
 * token account of a followed owner of an instrument the organization has on record. Exactly
 * once: the record's id is a name-based UUID of (organization, cluster, signature) and a unique
 * index guards NETWORK records; a record already there moves nothing. The caller runs this in its
 * database transaction (the follower: together with its cursor's advance).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findAssociatedTokenPda } from '@solana-program/token-2022';
import { address } from '@solana/kit';
import { moveAccountLamports } from '../db/repositories/accounts.repository';
import { insertPosition, movePositionBalance } from '../db/repositories/positions.repository';
import { explainFailure } from '../domain/program-errors';
import { addBalanceMove, type BalanceMove } from '../domain/finality';
import {
  followedSet,
  matchBlock,
  type FollowedAccount,
  type FollowedPosition,
  type FollowedSet,
  type FollowedTransaction,
  type OrganizationMatch,
} from './network-events';
import { NETWORK_OPERATION, networkTransactionId, uuidV5 } from './ids';

export type { FollowedTransaction } from './network-events';

/** A record made (or found made by an earlier run) for one organization. */
export interface RecordedNetworkTransaction {
  transactionId: string;
  organizationId: string;
  signature: string;
  slot: bigint;
  /** False when an earlier run had recorded it already (nothing moved this time). */
  recordedNow: boolean;
}

const exec = <T extends Record<string, unknown>[] = Record<string, unknown>[]>(
  em: EntityManager,
  sql: string,
  params: unknown[],
  mode: 'all' | 'run' = 'all',
) => em.getConnection().execute<T>(sql, params, mode, em.getTransactionContext());

/**
 * The followed set of a cluster: accounts with subscribeToNetworkEvents on and their active
 * positions; `addresses` narrows it to the accounts and positions at (or owned by) these addresses.
 */
export async function loadFollowedSet(em: EntityManager, cluster: string, addresses?: string[]): Promise<FollowedSet> {
  if (addresses?.length === 0) return followedSet([], []);
  // (Knex expands an array binding into a list: `in (?)`.)
  const narrow = addresses ? ` and (a.address in (?) or a.id in (select owner_account_id from position where cluster = ? and address in (?)))` : '';
  const accounts = await exec<{ id: string; organization_id: string; address: string; network_events_from_slot: string | null }[]>(
    em,
    `select a.id, a.organization_id, a.address, a.network_events_from_slot from account a
     where a.cluster = ? and a.subscribe_to_network_events and a.status <> 'CLOSED'${narrow}`,
    addresses ? [cluster, addresses, cluster, addresses] : [cluster],
  );
  const ids = accounts.map((a) => a.id);
  const positions = ids.length
    ? await exec<{ id: string; organization_id: string; address: string; owner_account_id: string; mint_address: string }[]>(
        em,
        `select id, organization_id, address, owner_account_id, mint_address from position where cluster = ? and owner_account_id in (?) and status <> 'CLOSED'`,
        [cluster, ids],
      )
    : [];
  return followedSet(
    accounts.map((a): FollowedAccount => ({
      id: a.id,
      organizationId: a.organization_id,
      address: a.address,
      fromSlot: a.network_events_from_slot === null ? null : BigInt(a.network_events_from_slot),
    })),
    positions.map((p): FollowedPosition => ({
      id: p.id,
      organizationId: p.organization_id,
      address: p.address,
      ownerAccountId: p.owner_account_id,
      mintAddress: p.mint_address,
    })),
  );
}

/**
 * A stamp that changes whenever the followed set of a cluster does: which accounts are subscribed
 * (and from which slot, in which status) and which positions they hold, hashed, never their
 * balances (a deposit must not force a reload). One aggregate query, where loading the set at
 * 100,000 accounts reads 200,000 rows and takes longer than a block (docs/chain-follower.md).
 */
export async function followedSetStamp(em: EntityManager, cluster: string): Promise<string> {
  const [row] = await exec<{ stamp: string }[]>(
    em,
    `select (select count(*) || ':' || coalesce(sum(hashtext(id::text || status || coalesce(network_events_from_slot::text, ''))::bigint), 0)
               from account where cluster = ? and subscribe_to_network_events)
       || '/' || (select count(*) || ':' || coalesce(sum(hashtext(p.id::text || p.status)::bigint), 0)
               from position p join account a on a.id = p.owner_account_id where a.cluster = ? and a.subscribe_to_network_events) as stamp`,
    [cluster, cluster],
  );
  return row.stamp;
}

/** The followed set, kept between steps and loaded again only when its stamp changes. */
export function cachedFollowedSet() {
  const cache = new Map<string, { stamp: string; set: FollowedSet }>();
  return async (em: EntityManager, cluster: string): Promise<FollowedSet> => {
    const stamp = await followedSetStamp(em, cluster);
    const hit = cache.get(cluster);
    if (hit?.stamp === stamp) return hit.set;
    const set = await loadFollowedSet(em, cluster);
    cache.set(cluster, { stamp, set });
    return set;
  };
}

/** Signatures among these that the service sent itself (its writes' records): the follower leaves them to the write's record. */
export async function sentByService(em: EntityManager, cluster: string, signatures: string[]): Promise<Set<string>> {
  if (signatures.length === 0) return new Set();
  const rows = await exec<{ signature: string }[]>(
    em,
    `select signature from ledger_transaction where cluster = ? and signature in (?) and origin = 'SERVICE'`,
    [cluster, signatures],
  );
  return new Set(rows.map((r) => r.signature));
}

/** Whether a token account is its owner's associated account for its mint (under either token program). */
async function isAssociated(tokenAccount: string, owner: string, mint: string): Promise<boolean> {
  for (const tokenProgram of ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']) {
    const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: address(tokenProgram) });
    if (ata === tokenAccount) return true;
  }
  return false;
}

/** One organization's record of one transaction, with its balance moves; null when already recorded. */
async function recordFor(
  em: EntityManager,
  cluster: string,
  tx: FollowedTransaction,
  match: OrganizationMatch,
  now: Date,
): Promise<RecordedNetworkTransaction> {
  const id = networkTransactionId(match.organizationId, cluster, tx.signature);
  const at = tx.blockTime ?? now;
  const failed = tx.err !== null && tx.err !== undefined;
  const status = failed ? 'FAILED' : 'CONFIRMED';
  const inserted = await exec<{ id: string }[]>(
    em,
    `insert into ledger_transaction (id, organization_id, operation, cluster, status, status_history, workflow_id, signature, fee_payer, signers, success, error_message,
       slot, fee, txn_timestamp, account_ids, origin, part, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?, ?, ?, ?, ?, '{}', 'NETWORK', 0, ?, ?)
     on conflict do nothing returning id`,
    [
      id,
      match.organizationId,
      NETWORK_OPERATION,
      cluster,
      status,
      JSON.stringify([{ status, at: now.toISOString() }]),
      `chain-follower-${cluster}`,
      tx.signature,
      tx.accountKeys[0] ?? null,
      // The addresses that signed it, as a service write's record lists its signers (JSON: Knex would expand an array binding into a list).
      JSON.stringify(tx.signers),
      !failed,
      failed ? explainFailure(JSON.stringify(tx.err)) : null,
      tx.slot.toString(),
      tx.fee.toString(),
      at,
      now,
      now,
    ],
  );
  const recorded = { transactionId: id, organizationId: match.organizationId, signature: tx.signature, slot: tx.slot };
  if (inserted.length === 0) return { ...recorded, recordedNow: false };

  const linked: string[] = [];
  // What this record moved, for finality's restore if the transaction leaves the chain (docs/finality.md).
  let moves: BalanceMove[] = [];
  for (const { account, pre, post } of match.accounts) {
    await moveAccountLamports(em, account.id, post - pre, { id, signature: tx.signature }, at);
    moves = addBalanceMove(moves, { kind: 'ACCOUNT', id: account.id, delta: post - pre });
    linked.push(account.id);
  }
  for (const { position, owner, pre, post } of match.positions) {
    await movePositionBalance(em, position.id, post - pre);
    moves = addBalanceMove(moves, { kind: 'POSITION', id: position.id, delta: post - pre });
    await exec(em, 'update position set last_transaction_id = ?, last_transaction_at = ?, updated_at = ? where id = ?', [id, at, now, position.id], 'run');
    linked.push(owner.id, position.id);
  }
  for (const token of match.newTokenAccounts) {
    // Made a position record since the followed set was loaded (by an earlier deposit of the same batch): moved like a known one.
    const [known] = await exec<{ id: string }[]>(em, 'select id from position where organization_id = ? and cluster = ? and address = ?', [
      match.organizationId,
      cluster,
      token.address,
    ]);
    if (known) {
      await movePositionBalance(em, known.id, token.post - token.pre);
      moves = addBalanceMove(moves, { kind: 'POSITION', id: known.id, delta: token.post - token.pre });
      await exec(em, 'update position set last_transaction_id = ?, last_transaction_at = ?, updated_at = ? where id = ?', [id, at, now, known.id], 'run');
      linked.push(token.owner.id, known.id);
      continue;
    }
    const [instrument] = await exec<{ id: string }[]>(
      em,
      `select id from financial_instrument where organization_id = ? and cluster = ? and mint_address = ? and status <> 'CLOSED' order by created_at limit 1`,
      [match.organizationId, cluster, token.mint],
    );
    if (!instrument) continue;
    // The chain's balance after the transaction is the new record's balance (it may have held tokens before the record knew it).
    const positionId = await insertPosition(em, {
      id: uuidForPosition(match.organizationId, cluster, token.address),
      organizationId: match.organizationId,
      cluster,
      address: token.address,
      ownerAddress: token.owner.address,
      ownerAccountId: token.owner.id,
      financialInstrumentId: instrument.id,
      mintAddress: token.mint,
      associated: await isAssociated(token.address, token.owner.address, token.mint),
      status: 'ACTIVE',
      frozen: false,
      balance: token.post.toString(),
      lastTransactionId: id,
      creationTransactionId: id,
      at,
    });
    moves = addBalanceMove(moves, { kind: 'POSITION', id: positionId, delta: token.post - token.pre });
    linked.push(token.owner.id, positionId);
  }
  const ids = [...new Set(linked)];
  if (ids.length)
    await exec(
      em,
      'update ledger_transaction set account_ids = array[?]::text[], balance_moves = ?::jsonb where id = ?',
      [ids, JSON.stringify(moves), id],
      'run',
    );
  return { ...recorded, recordedNow: true };
}

const uuidForPosition = (organizationId: string, cluster: string, tokenAccount: string) =>
  uuidV5(`network-position:${organizationId}:${cluster}:${tokenAccount}`);

/**
 * Records the network transactions that touch followed accounts (skipping those the service sent),
 * once per organization following them, in `em`'s transaction. Reconciliation's repair calls it with
 * transactions found in an account's history (`ignoreFromSlot`: before the flag was turned on too);
 * a transaction of a known signature and slot is read with network.getBlock(slot) and picked by
 * signature. `set`: the followed set already loaded (the follower's); default: loaded for the
 * transactions' addresses.
 */
export async function recordNetworkTransactions(
  em: EntityManager,
  cluster: string,
  transactions: FollowedTransaction[],
  options: { now?: Date; set?: FollowedSet; ignoreFromSlot?: boolean } = {},
): Promise<RecordedNetworkTransaction[]> {
  if (transactions.length === 0) return [];
  const now = options.now ?? new Date();
  const set =
    options.set ??
    (await loadFollowedSet(em, cluster, [
      ...new Set(transactions.flatMap((tx) => [...tx.accountKeys, ...tx.tokenBalances.flatMap((b) => [b.address, ...(b.owner ? [b.owner] : [])])])),
    ]));
  const candidates = matchBlock(set, transactions, new Set(), options.ignoreFromSlot);
  const ours = await sentByService(
    em,
    cluster,
    candidates.map((c) => c.tx.signature),
  );
  const recorded: RecordedNetworkTransaction[] = [];
  for (const { tx, matches } of candidates.filter((c) => !ours.has(c.tx.signature)))
    for (const match of matches) recorded.push(await recordFor(em, cluster, tx, match, now));
  return recorded;
}
