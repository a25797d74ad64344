/**
 * The reconciliation pass of one cluster (docs/reconciliation.md): every ACTIVE account and position
 * on record, of every organization, compared with the chain. The order of the reads is what keeps a
 * concurrent write from making a false finding:
 *   1. a page of records (their balances);
 *   2. the chain, in getMultipleAccounts batches of 100 (each with its context slot);
 *   3. for the records that differ: the service's writes still in flight or recorded but not final
 *      that load their addresses, and whether the network knows each now;
 *   4. those records again.
 * A write recorded between 1 and 4 moves the record (`changed`: left to the next pass); a write
 * recorded after 4 was in flight at 3, so it explains the difference if it had landed. What remains
 * is a drift: logged, counted, stored as an OPEN finding (one per record), and for a subscribed
 * record repaired by recording the missing network transactions. The record is never overwritten.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import type { AddressSignature, Networks, SvmNetwork } from '../../network/svm-network';
import {
  batches,
  explainedByWrites,
  findDrifts,
  judge,
  messageAddresses,
  chainValueOf,
  type ChainReading,
  type Drift,
  type Holding,
  type HoldingKind,
  type ServiceWrite,
} from '../../domain/reconciliation';
import type { MessageLifetime } from '../../domain/write';
import { countOpenFindings, markRepaired, noteRepairSignatures, resolveOpenFindings, upsertOpenFinding } from '../../db/repositories/drift-findings.repository';
import { reconciliationDrifts, reconciliationOpenFindings, reconciliationRepairs } from '../../observability/metrics';

/**
 * Records the given network transactions (oldest first) for the subscribed records they touch, once
 * each; answers the signatures it recorded now (those recorded before, by the follower, are left out).
 */
export type NetworkTransactionRecorder = (input: { cluster: string; transactions: { signature: string; slot: bigint }[] }) => Promise<string[]>;

/** Where the pass's lines go: a drift is a warning, a repair or a resolution an info line. No secrets, values as decimal strings. */
export type ReconcileLog = (level: 'warn' | 'info', fields: Record<string, unknown>, message: string) => void;

export interface ReconcileDeps {
  orm: Orm;
  networks: Networks;
  now: () => Date;
  log: ReconcileLog;
  /** The chain follower's recording (src/follower); absent: subscribed records' findings stay OPEN. */
  recordNetworkTransactions?: NetworkTransactionRecorder;
  /** Called after each page of records (the activity heartbeats). */
  onPage?: () => void;
}

export interface ReconcileSummary {
  cluster: string;
  accountsChecked: number;
  positionsChecked: number;
  /** Records that differed from the chain at the first comparison. */
  differences: number;
  /** Differences a write of the service explains, or records that moved during the pass (checked again next pass). */
  explained: number;
  /** Drifts this pass: new findings and findings still open. */
  findings: number;
  newFindings: number;
  repaired: number;
  /** Open findings whose record equals the chain again (without a repair of this pass). */
  resolved: number;
  /** OPEN findings of the cluster after the pass. */
  openFindings: number;
}

/** Records per page: bounds memory at any number of accounts. */
const PAGE_SIZE = 1000;
/** getMultipleAccounts takes at most 100 addresses. */
const READ_BATCH = 100;
/** getSignatureStatuses takes at most 256 signatures. */
const STATUS_BATCH = 256;
/** A recorded write whose slot is this far below the chain read is final: it can no longer leave the chain (finalization takes ~32 slots). */
const UNFINAL_SLOTS = 150n;
/** How far back a repair reads an address's history, in pages of 1000 signatures. */
const REPAIR_HISTORY_PAGES = 5;
/** A chain follower whose cursor moved within this time is alive: what lies beyond its cursor, it will record. */
const FOLLOWER_ALIVE_MS = 120_000;

/** `creationSlot`: the slot of the service's transaction that created the record (null: onboarded from the chain, or made offchain). */
type Row = Holding & { createdAt: Date; creationSlot: bigint | null };

const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** One page of ACTIVE records after `after` (by id), with what the comparison needs. */
async function readHoldings(em: EntityManager, cluster: string, kind: HoldingKind, after: string): Promise<Row[]> {
  const rows =
    kind === 'account'
      ? await em.getConnection().execute<Record<string, unknown>[]>(
          `select a.id, a.organization_id, a.address, a.lamports_balance as recorded, a.subscribe_to_network_events as subscribed, a.created_at,
               t.slot as creation_slot
             from account a left join ledger_transaction t on t.id = a.creation_transaction_id
             where a.cluster = ? and a.status = 'ACTIVE' and a.id > ? order by a.id limit ?`,
          [cluster, after, PAGE_SIZE],
        )
      : await em.getConnection().execute<Record<string, unknown>[]>(
          // A position follows the chain when its owner's account record (of the same organization) does.
          `select p.id, p.organization_id, p.address, p.balance as recorded, coalesce(a.subscribe_to_network_events, false) as subscribed, p.created_at,
               t.slot as creation_slot
             from position p left join account a on a.id = p.owner_account_id and a.organization_id = p.organization_id
               left join ledger_transaction t on t.id = p.creation_transaction_id
             where p.cluster = ? and p.status = 'ACTIVE' and p.id > ? order by p.id limit ?`,
          [cluster, after, PAGE_SIZE],
        );
  return rows.map((r) => ({
    kind,
    recordId: r.id as string,
    organizationId: r.organization_id as string,
    address: r.address as string,
    recorded: BigInt(r.recorded as string),
    subscribed: Boolean(r.subscribed),
    createdAt: new Date(r.created_at as string),
    creationSlot: r.creation_slot === null || r.creation_slot === undefined ? null : BigInt(r.creation_slot as string),
  }));
}

/** The records' balances now, by id (a record no longer ACTIVE is absent). */
async function rereadBalances(em: EntityManager, kind: HoldingKind, ids: string[]): Promise<Map<string, bigint>> {
  if (!ids.length) return new Map();
  const sql =
    kind === 'account'
      ? `select id, lamports_balance as recorded from account where status = 'ACTIVE' and id in (${ids.map(() => '?').join(', ')})`
      : `select id, balance as recorded from position where status = 'ACTIVE' and id in (${ids.map(() => '?').join(', ')})`;
  const rows = await em.getConnection().execute<{ id: string; recorded: string }[]>(sql, ids);
  return new Map(rows.map((r) => [r.id, BigInt(r.recorded)]));
}

/** The chain's view of `addresses`, read in batches of 100 at `confirmed`. */
async function readChain(network: SvmNetwork, addresses: string[]): Promise<Map<string, ChainReading>> {
  const readings = new Map<string, ChainReading>();
  for (const batch of batches(addresses, READ_BATCH)) {
    const { slot, accounts } = await network.getMultipleAccounts(batch);
    batch.forEach((address, i) => readings.set(address, { account: accounts[i] ?? null, slot }));
  }
  return readings;
}

/**
 * The service's writes that could explain a difference at `addresses`: in flight (a message built,
 * no outcome recorded yet), or recorded but not final (their slot within UNFINAL_SLOTS of the read).
 * Each with whether the network knows its signature now, and whether its message may still land.
 */
async function serviceWrites(em: EntityManager, network: SvmNetwork, cluster: string, addresses: Set<string>, readSlot: bigint): Promise<ServiceWrite[]> {
  const rows = await em.getConnection().execute<Record<string, unknown>[]>(
    `select signature, signatures, serialized_message, fee_payer, lifetime, success from ledger_transaction
      where cluster = ? and serialized_message is not null and (
        (status in ('BUILT', 'AWAITING_SIGNATURES', 'SIGNED', 'SUBMITTED') and success is null)
        or (status in ('SUBMITTED', 'CONFIRMED') and success and (slot is null or slot >= ?)))`,
    [cluster, (readSlot - UNFINAL_SLOTS).toString()],
  );
  if (!rows.length) return [];
  let tables: Map<string, string[]> | undefined;
  const loadTables = async () => {
    const found = await em
      .getConnection()
      .execute<{ address: string; component_addresses: string[] }[]>(`select address, component_addresses from address_lookup_table where cluster = ?`, [
        cluster,
      ]);
    return new Map(found.map((t) => [t.address, t.component_addresses]));
  };
  const touching: { row: Record<string, unknown>; addresses: string[] | null; signature: string | null }[] = [];
  for (const row of rows) {
    let loaded = messageAddresses(row.serialized_message as string, tables ?? new Map());
    if (loaded === null && !tables) loaded = messageAddresses(row.serialized_message as string, (tables = await loadTables()));
    if (loaded !== null && !loaded.some((a) => addresses.has(a))) continue;
    const signatures = (row.signatures as Record<string, string | null> | null) ?? {};
    const signature = (row.signature as string | null) ?? signatures[row.fee_payer as string] ?? null;
    touching.push({ row, addresses: loaded, signature });
  }
  const known = new Map<string, boolean>();
  const signed = touching.flatMap((t) => (t.signature ? [t.signature] : []));
  for (const batch of batches(signed, STATUS_BATCH)) {
    const statuses = await network.getSignatureStatuses(batch);
    batch.forEach((signature, i) => known.set(signature, statuses[i] !== null));
  }
  const blockHeight = touching.some((t) => !t.signature) ? await network.getBlockHeight('confirmed') : 0n;
  return touching.map(({ row, addresses: loaded, signature }) => {
    const lifetime = row.lifetime as MessageLifetime | null;
    return {
      recorded: row.success === true,
      landed: signature ? (known.get(signature) ?? false) : null,
      lifetimeLive: !lifetime || lifetime.kind === 'DURABLE_NONCE' || BigInt(lifetime.lastValidBlockHeight) >= blockHeight,
      addresses: loaded,
    };
  });
}

const findingFields = (cluster: string, drift: Drift) => ({
  reconciliation: true,
  cluster,
  kind: drift.kind,
  organizationId: drift.organizationId,
  recordId: drift.recordId,
  address: drift.address,
  subscribed: drift.subscribed,
  recorded: drift.recorded.toString(),
  chain: drift.chain.toString(),
  difference: drift.difference.toString(),
  slot: drift.slot.toString(),
});

/**
 * Runs one pass over `cluster`. Idempotent: a drift already OPEN is updated, not listed again; a
 * repair records each network transaction once (the recorder's unique key). Network and database
 * faults are thrown (the activity retries the pass, which starts over).
 */
export async function reconcileCluster(deps: ReconcileDeps, cluster: string, options: { repair?: boolean } = {}): Promise<ReconcileSummary> {
  const network = deps.networks.get(cluster);
  if (!network) throw new Error(`cluster ${cluster} is not configured`);
  const em = deps.orm.em.fork() as EntityManager;
  const summary: ReconcileSummary = {
    cluster,
    accountsChecked: 0,
    positionsChecked: 0,
    differences: 0,
    explained: 0,
    findings: 0,
    newFindings: 0,
    repaired: 0,
    resolved: 0,
    openFindings: 0,
  };
  for (const kind of ['account', 'position'] as const) {
    for (let after = FIRST_ID; ;) {
      const page = await readHoldings(em, cluster, kind, after);
      if (!page.length) break;
      after = page[page.length - 1].recordId;
      summary[kind === 'account' ? 'accountsChecked' : 'positionsChecked'] += page.length;
      await checkPage(deps, em, network, cluster, kind, page, summary, options.repair !== false);
      deps.onPage?.();
    }
  }
  summary.openFindings = await countOpenFindings(em, cluster);
  reconciliationOpenFindings.set({ cluster }, summary.openFindings);
  return summary;
}

async function checkPage(
  deps: ReconcileDeps,
  em: EntityManager,
  network: SvmNetwork,
  cluster: string,
  kind: HoldingKind,
  page: Row[],
  summary: ReconcileSummary,
  repair: boolean,
): Promise<void> {
  const readings = await readChain(network, [...new Set(page.map((h) => h.address))]);
  const differing = findDrifts(page, readings);
  summary.differences += differing.length;
  const differingIds = new Set(differing.map((d) => d.recordId));
  const equal = page.filter((h) => !differingIds.has(h.recordId)).map((h) => h.recordId);
  const now = deps.now();
  const resolvedEqual = await resolveOpenFindings(em, cluster, kind, equal, now);
  summary.resolved += resolvedEqual;
  if (!differing.length) return;

  const readSlot = differing.reduce((low, d) => (d.slot < low ? d.slot : low), differing[0].slot);
  const writes = await serviceWrites(em, network, cluster, new Set(differing.map((d) => d.address)), readSlot);
  const recordedNow = await rereadBalances(
    em,
    kind,
    differing.map((d) => d.recordId),
  );
  const caughtUp: string[] = [];
  for (const drift of differing) {
    const verdict = judge(drift, recordedNow.get(drift.recordId), explainedByWrites(drift.address, writes));
    if (verdict === 'caughtUp') caughtUp.push(drift.recordId);
    if (verdict === 'changed' || verdict === 'explained') summary.explained++;
    if (verdict !== 'drift') continue;
    // A subscribed record's difference the chain follower is about to record (all of it beyond its live cursor) is in flight too.
    const missing = drift.subscribed ? await missingTransactions(em, network, cluster, drift) : [];
    if (missing.length && (await followerWillRecord(em, cluster, missing, deps.now()))) {
      summary.explained++;
      continue;
    }
    summary.findings++;
    const finding = await upsertOpenFinding(em, cluster, drift, deps.now());
    if (finding.created) {
      summary.newFindings++;
      reconciliationDrifts.inc({ cluster, kind });
      deps.log('warn', { ...findingFields(cluster, drift), findingId: finding.id }, 'reconciliation: drift found (no recorded transaction explains it)');
    }
    // Nothing missing from the history (e.g. a balance the record never started from): nothing to record, the finding stays OPEN.
    if (repair && drift.subscribed && missing.length && deps.recordNetworkTransactions) {
      if (await repairDrift(deps, em, network, cluster, drift, finding.id, missing)) summary.repaired++;
    }
  }
  summary.resolved += await resolveOpenFindings(em, cluster, kind, caughtUp, deps.now());
}

/**
 * The transactions of the drift's address since the record began, that the organization has not
 * recorded (neither its own records nor a write of the service), oldest first. The record began at
 * the slot of the transaction that created it; a record onboarded from the chain at its creation
 * time (block times are whole seconds: a transaction in the record's own second counts as before it,
 * as its balance was read then).
 */
async function missingTransactions(em: EntityManager, network: SvmNetwork, cluster: string, drift: Drift & Row): Promise<AddressSignature[]> {
  const history: AddressSignature[] = [];
  const since = Math.floor(drift.createdAt.getTime() / 1000) * 1000 + 1000;
  const beforeRecord = (entry: AddressSignature) =>
    drift.creationSlot !== null ? entry.slot < drift.creationSlot : entry.blockTime !== null && entry.blockTime.getTime() < since;
  let before: string | undefined;
  history: for (let page = 0; page < REPAIR_HISTORY_PAGES; page++) {
    const found = await network.getSignaturesForAddress(drift.address, { before, limit: 1000 });
    for (const entry of found) {
      if (beforeRecord(entry)) break history;
      history.push(entry);
    }
    if (found.length < 1000) break;
    before = found[found.length - 1].signature;
  }
  const recorded = await recordedSignatures(
    em,
    cluster,
    drift.organizationId,
    history.map((h) => h.signature),
  );
  return history.filter((h) => !recorded.has(h.signature)).reverse();
}

/** Whether the chain follower of the cluster is alive (its cursor moved lately) and has yet to reach every one of `missing`. */
async function followerWillRecord(em: EntityManager, cluster: string, missing: AddressSignature[], now: Date): Promise<boolean> {
  const [cursor] = await em
    .getConnection()
    .execute<{ slot: string; updated_at: string }[]>(`select slot, updated_at from chain_cursor where cluster = ?`, [cluster]);
  if (!cursor || now.getTime() - new Date(cursor.updated_at).getTime() > FOLLOWER_ALIVE_MS) return false;
  return missing.every((m) => m.slot > BigInt(cursor.slot));
}

/**
 * Records the missing network transactions (the follower's recording), then compares again: equal →
 * REPAIRED with the signatures recorded; still off → OPEN, the signatures noted. Returns whether it was repaired.
 */
async function repairDrift(
  deps: ReconcileDeps,
  em: EntityManager,
  network: SvmNetwork,
  cluster: string,
  drift: Drift,
  findingId: string,
  missing: AddressSignature[],
): Promise<boolean> {
  const signatures = missing.length
    ? await deps.recordNetworkTransactions!({ cluster, transactions: missing.map((m) => ({ signature: m.signature, slot: m.slot })) })
    : [];
  const { accounts } = await network.getMultipleAccounts([drift.address]);
  const chain = chainValueOf(drift, accounts[0] ?? null);
  const recordedNow = (await rereadBalances(em, drift.kind, [drift.recordId])).get(drift.recordId);
  const fields = { ...findingFields(cluster, drift), findingId, repairSignatures: signatures };
  if (recordedNow === chain) {
    await markRepaired(em, findingId, signatures, deps.now());
    reconciliationRepairs.inc({ cluster });
    deps.log('info', fields, 'reconciliation: drift repaired from the chain history');
    return true;
  }
  await noteRepairSignatures(em, findingId, signatures);
  deps.log(
    'warn',
    { ...fields, recordedAfterRepair: recordedNow?.toString() ?? null, chainAfterRepair: chain.toString() },
    'reconciliation: the repair left the record off the chain',
  );
  return false;
}

/** Which of `signatures` are recorded for the organization already: its own records, or a write of the service (which moved every tenant's record). */
async function recordedSignatures(em: EntityManager, cluster: string, organizationId: string, signatures: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const batch of batches(signatures, 500)) {
    const rows = await em.getConnection().execute<{ signature: string }[]>(
      `select signature from ledger_transaction where cluster = ? and signature in (${batch.map(() => '?').join(', ')})
         and (organization_id = ? or origin = 'SERVICE')`,
      [cluster, ...batch, organizationId],
    );
    for (const row of rows) found.add(row.signature);
  }
  return found;
}
