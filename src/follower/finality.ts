/**
 * Finality following (docs/finality.md): every landed transaction record of a cluster not yet final
 * (SUBMITTED or CONFIRMED, the service's writes and the network records the chain follower made alike)
 * is checked with one batched getSignatureStatuses per 256 signatures. Its live confirmations count
 * only grows, it becomes FINALIZED when the network says so, and one that left the chain before
 * finalization ends FAILED with every balance its record step moved restored, once.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { ActivityDeps } from '../activities/deps';
import { LedgerTransaction } from '../db/entities';
import { releaseDebits } from '../db/repositories/debit-reservations.repository';
import { applyStatus } from '../db/repositories/transaction-records.repository';
import { finalityStep, leftChainMessage, reversedMoves, type ChainTips } from '../domain/finality';
import type { SvmNetwork } from '../network/svm-network';
import { leftChainEventsWorkflowId } from './ids';

/**
 * What the follower's tick needs: the database, the networks, the clock, and where the second webhook
 * event of a record that left the chain is started (the worker's; absent only where a test calls the tick alone).
 */
export type FinalityDeps = Pick<ActivityDeps, 'orm' | 'networks' | 'now'> & Partial<Pick<ActivityDeps, 'deliveries'>>;

export interface FinalityReport {
  /** Records looked at this tick. */
  followed: number;
  /** Records whose confirmations or status moved below finality. */
  progressed: number;
  finalized: number;
  /** Records ended FAILED because their transaction left the chain. */
  leftChain: number;
}

/** getSignatureStatuses takes at most this many signatures. */
const STATUS_BATCH = 256;
/** Records looked at per tick, oldest first; the rest wait a tick (a record leaves the set within ~13 s of landing). */
const RECORDS_PER_TICK = 4096;
const followedStatuses = ['SUBMITTED', 'CONFIRMED'];

interface FollowedRow {
  id: string;
  signature: string;
  status: string;
  slot: string | null;
  confirmations_count: number | null;
  txn_timestamp: Date | null;
}

/**
 * One tick of finality following for `cluster`. Only recorded outcomes are followed (`success` set):
 * a write still confirming has a SUBMITTED record too, and its own record step writes its outcome.
 * Idempotent: every write is guarded by the record still being followed (a replay finds it FINALIZED
 * or FAILED and leaves it), and the status history gains an entry only when the status changes.
 * Transport faults are thrown (the caller's activity retries).
 */
export async function advanceFinality(deps: FinalityDeps, cluster: string): Promise<FinalityReport> {
  const network = deps.networks.get(cluster);
  if (!network) throw new Error(`advanceFinality: unknown cluster ${cluster}`);
  const em = deps.orm.em.fork();
  const rows: FollowedRow[] = await em.getConnection().execute(
    `select id, signature, status, slot, confirmations_count, txn_timestamp from ledger_transaction
      where cluster = ? and status in ('SUBMITTED', 'CONFIRMED') and signature is not null and success is true order by created_at limit ?`,
    [cluster, RECORDS_PER_TICK],
  );
  const report: FinalityReport = { followed: rows.length, progressed: 0, finalized: 0, leftChain: 0 };
  if (rows.length === 0) return report;
  // Read before the statuses: a finalized slot never moves back, so a status missing after it is compared with a tip it already had.
  const tips: ChainTips = { finalizedSlot: await network.getSlot('finalized'), confirmedSlot: await network.getSlot('confirmed') };
  const changes: RecordChange[] = [];
  for (let start = 0; start < rows.length; start += STATUS_BATCH) {
    const batch = rows.slice(start, start + STATUS_BATCH);
    const statuses = await network.getSignatureStatuses(batch.map((row) => row.signature));
    for (const [i, row] of batch.entries()) {
      const record = { status: row.status, slot: row.slot === null ? null : BigInt(row.slot), confirmationsCount: row.confirmations_count };
      const step = finalityStep(record, statuses[i], tips);
      if (step.kind === 'UNCHANGED') continue;
      if (step.kind === 'MAYBE_LEFT_CHAIN') {
        // Not a transient miss: the network's finalized history must not hold it either.
        if (await network.getTransaction(row.signature, 'finalized')) continue;
        if (await endLeftChain(deps, em, row.id, record.slot!, deps.now())) report.leftChain++;
        continue;
      }
      // The block time: the record step took it from the landed transaction; a record without it, or moved to another block, asks again.
      const blockTime = row.txn_timestamp === null || step.slot !== record.slot ? await blockTimeOf(network, row.signature) : null;
      changes.push({
        id: row.id,
        status: step.kind === 'FINALIZED' ? 'FINALIZED' : step.status,
        confirmations: step.confirmations,
        slot: step.slot,
        blockTime,
      });
      if (step.kind === 'FINALIZED') report.finalized++;
      else report.progressed++;
    }
  }
  await applyChanges(em, changes, deps.now());
  return report;
}

interface RecordChange {
  id: string;
  status: string;
  confirmations: number;
  slot: bigint;
  blockTime: Date | null;
}

/**
 * Writes a tick's changes in ONE statement (a tick moves every record landed in the last ~32 slots:
 * a statement per record was most of the follower's database cost under write load). Each row is
 * guarded by its record still being followed, and gains a history entry only when its status changes,
 * so a replayed tick writes the same.
 */
async function applyChanges(em: EntityManager, changes: RecordChange[], at: Date): Promise<void> {
  if (changes.length === 0) return;
  await em.getConnection().execute(
    `update ledger_transaction t set status = c.status,
       status_history = case when t.status_history -> -1 ->> 'status' = c.status then t.status_history
                             else t.status_history || jsonb_build_array(jsonb_build_object('status', c.status, 'at', ?::text)) end,
       confirmations_count = greatest(coalesce(t.confirmations_count, 0), c.confirmations), slot = c.slot,
       txn_timestamp = coalesce(c.block_time, t.txn_timestamp), updated_at = ?
     from jsonb_to_recordset(?::jsonb) as c(id uuid, status text, confirmations int, slot bigint, block_time timestamptz)
     where t.id = c.id and t.status in (${followedStatuses.map(() => '?').join(', ')})`,
    [
      at.toISOString(),
      at,
      JSON.stringify(
        changes.map((c) => ({
          id: c.id,
          status: c.status,
          confirmations: c.confirmations,
          slot: c.slot.toString(),
          block_time: c.blockTime?.toISOString() ?? null,
        })),
      ),
      ...followedStatuses,
    ],
    'run',
  );
}

async function blockTimeOf(network: SvmNetwork, signature: string): Promise<Date | null> {
  return (await network.getTransaction(signature, 'confirmed'))?.blockTime ?? null;
}

/**
 * Ends a record whose transaction left the chain: FAILED with a history entry, the opposite of every
 * balance move its record step made, records it created closed (their addresses hold nothing on chain)
 * and its debit-limit usage released, all in one database transaction under the record's row lock.
 * Exactly once: a record no longer followed (a replay, a concurrent tick) is left as it is (false).
 */
async function endLeftChain(deps: FinalityDeps, em: EntityManager, id: string, slot: bigint, at: Date): Promise<boolean> {
  return em.fork().transactional(async (tem) => {
    const tx = await tem.findOne(LedgerTransaction, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!tx || !followedStatuses.includes(tx.status) || tx.success !== true) return false;
    const run = (sql: string, params: unknown[]) => tem.getConnection().execute(sql, params, 'run', tem.getTransactionContext());
    for (const move of reversedMoves(tx.balanceMoves)) {
      if (move.kind === 'ACCOUNT')
        await run('update account set lamports_balance = lamports_balance + ?, updated_at = ? where id = ?', [move.delta, at, move.id]);
      else await run('update position set balance = balance + ?, updated_at = ? where id = ?', [move.delta, at, move.id]);
    }
    // What it created does not exist on chain: the records stay (ids were answered) but hold nothing and are no longer active.
    await run(`update account set status = 'CLOSED', lamports_balance = 0, updated_at = ? where creation_transaction_id = ?`, [at, id]);
    await run(`update position set status = 'INACTIVE', balance = 0, updated_at = ? where creation_transaction_id = ?`, [at, id]);
    await releaseDebits(tem, id, at);
    applyStatus(tx, 'FAILED', at);
    tx.success = false;
    tx.errorMessage = leftChainMessage(slot);
    // Its webhooks hear of the new outcome (API.md section 5: called at the final state). Started before
    // the commit, under a fixed id: its activity waits until the record reads FAILED, and a crash before
    // the commit leaves the record followed, so the next tick starts the same workflow again.
    await deps.deliveries?.startLeftChainEvents?.(leftChainEventsWorkflowId(id), id);
    return true;
  });
}
