/**
 * The chain follower's one step (docs/chain-follower.md): one batch of confirmed blocks, from the
 * durable cursor + 1 to the confirmed tip (at most `maxSlots`), matched against the followed set
 * and recorded in ONE database transaction with the cursor's advance, so a replayed or concurrent
 * step records nothing twice and a crash leaves no gap. The records' webhook deliveries are started
 * after the commit, up to a second durable mark (a crash between the two starts them next time),
 * and each step also moves the landed records towards finality (advanceFinality).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from '../deps';
import type { Block } from '../../network/svm-network';
import {
  cachedFollowedSet,
  recordNetworkTransactions,
  type FollowedTransaction,
  type RecordedNetworkTransaction,
} from '../../follower/record-network-transactions';
import { networkEventsWorkflowId } from '../../follower/ids';
import { advanceFinality } from '../../follower/finality';
import { chainFollowerLagSeconds, chainFollowerLagSlots, networkTransactionsRecorded } from '../../observability/metrics';

/** Where the follower stands: the `position` query of its workflow (numbers: slots fit in 2^53). */
export interface FollowerPosition {
  cluster: string;
  /** The last slot recorded. */
  slot: number;
  /** The network's confirmed tip when the step ended. */
  tipSlot: number;
  /** The step reached the tip it began at: the workflow rests a block time before the next. */
  caughtUp: boolean;
  lagSlots: number;
  /** Age of the newest block read (block time to now); lagSlots × 0.4 s when the step read none. */
  lagSeconds: number;
  /** Network transaction records this step made. */
  recorded: number;
  updatedAt: string;
}

interface Cursor {
  slot: bigint;
  tipSlot: bigint;
  deliveredSlot: bigint;
}

const SLOT_SECONDS = 0.4;
/** Blocks read at once: enough to keep an RPC node busy, few enough for a small one. */
const BLOCK_READS_IN_FLIGHT = 4;

async function readCursor(em: EntityManager, cluster: string, lock = false): Promise<Cursor | null> {
  const [row] = await em
    .getConnection()
    .execute<{ slot: string; tip_slot: string; delivered_slot: string }[]>(
      `select slot, tip_slot, delivered_slot from chain_cursor where cluster = ?${lock ? ' for update' : ''}`,
      [cluster],
      'all',
      em.getTransactionContext(),
    );
  return row ? { slot: BigInt(row.slot), tipSlot: BigInt(row.tip_slot), deliveredSlot: BigInt(row.delivered_slot) } : null;
}

/**
 * Tells Temporal the step is alive, so a worker killed mid-step is noticed within the workflow's
 * heartbeat timeout (its step retried on another worker), not after the step's 2-minute timeout.
 * A no-op outside an activity (a bench calling the step directly).
 */
function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // not in an activity
  }
}

/** Reads blocks with at most BLOCK_READS_IN_FLIGHT calls in flight, in slot order. */
async function readBlocks(read: (slot: bigint) => Promise<Block | null>, slots: bigint[]): Promise<Block[]> {
  const blocks: (Block | null)[] = new Array(slots.length).fill(null);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(BLOCK_READS_IN_FLIGHT, slots.length) }, async () => {
      while (next < slots.length) {
        const i = next++;
        blocks[i] = await read(slots[i]);
        heartbeat();
      }
    }),
  );
  return blocks.filter((b): b is Block => b !== null);
}

/** Starts the NETWORK_TRANSACTION deliveries of these records (idempotent: fixed workflow ids). Reconciliation's repair calls it too. */
export async function startNetworkEventDeliveries(
  deps: Pick<ActivityDeps, 'deliveries'>,
  recorded: Pick<RecordedNetworkTransaction, 'transactionId'>[],
): Promise<void> {
  const start = deps.deliveries.startNetworkEvents;
  if (!start) return;
  for (const { transactionId } of recorded) await start(networkEventsWorkflowId(transactionId), transactionId);
}

export function createFollowerActivities(deps: ActivityDeps) {
  const followed = cachedFollowedSet();
  /** Starts the deliveries of the records in (delivered_slot, slot] and moves the mark. */
  async function deliverUpTo(em: EntityManager, cluster: string, cursor: Cursor): Promise<void> {
    if (cursor.deliveredSlot >= cursor.slot) return;
    const rows = await em
      .getConnection()
      // Only records with a webhook to hear them: a delivery workflow costs Temporal about what a write does.
      .execute<{ id: string }[]>(
        `select t.id from ledger_transaction t where t.cluster = ? and t.origin = 'NETWORK' and t.slot > ? and t.slot <= ?
           and exists (select 1 from account a where a.id::text = any(t.account_ids) and a.post_transaction_submit_webhooks <> '[]'::jsonb)
         order by t.slot, t.id`,
        [cluster, cursor.deliveredSlot.toString(), cursor.slot.toString()],
      );
    await startNetworkEventDeliveries(
      deps,
      rows.map((r) => ({ transactionId: r.id })),
    );
    await em
      .getConnection()
      .execute(
        'update chain_cursor set delivered_slot = ? where cluster = ? and delivered_slot < ?',
        [cursor.slot.toString(), cluster, cursor.slot.toString()],
        'run',
      );
  }

  return {
    /**
     * One step of the chain follower of `cluster`: records the next batch (at most `maxSlots` slots),
     * starts its deliveries, advances finality, and answers where the follower stands. A first step
     * starts at the confirmed tip (following begins now; history is reconciliation's).
     */
    async followChain(cluster: string, maxSlots = 50): Promise<FollowerPosition> {
      const network = deps.networks.get(cluster);
      if (!network) throw ApplicationFailure.create({ type: 'UNKNOWN_CLUSTER', message: `no network configured for cluster ${cluster}`, nonRetryable: true });
      const tip = await network.getSlot('confirmed');
      const em = deps.orm.em.fork();
      let cursor = await readCursor(em, cluster);
      if (!cursor) {
        await em
          .getConnection()
          .execute('insert into chain_cursor (cluster, slot, tip_slot, delivered_slot, updated_at) values (?, ?, ?, ?, ?) on conflict do nothing', [
            cluster,
            tip.toString(),
            tip.toString(),
            tip.toString(),
            deps.now(),
          ]);
        cursor = (await readCursor(em, cluster))!;
      }
      const from = cursor.slot + 1n;
      const to = tip < cursor.slot + BigInt(maxSlots) ? tip : cursor.slot + BigInt(maxSlots);
      let recorded = 0;
      let newestBlockTime: Date | null = null;
      if (from <= to) {
        const set = await followed(em, cluster);
        const transactions: FollowedTransaction[] = [];
        // Nobody follows anything on this cluster: the blocks need not be read, only passed.
        if (set.accounts.size > 0) {
          const blocks = await readBlocks((slot) => network.getBlock(slot), await network.getBlocks(from, to));
          for (const block of blocks) {
            transactions.push(...block.transactions.map((tx) => ({ ...tx, slot: block.slot, blockTime: block.blockTime })));
            newestBlockTime = block.blockTime ?? newestBlockTime;
          }
        }
        const now = deps.now();
        await em.transactional(async (tem) => {
          // Locked: a concurrent or replayed step waits, then finds the cursor moved and leaves the batch to the one that moved it.
          const locked = await readCursor(tem, cluster, true);
          if (!locked || locked.slot !== cursor!.slot) return;
          const results = await recordNetworkTransactions(tem, cluster, transactions, { set, now });
          recorded = results.filter((r) => r.recordedNow).length;
          await tem
            .getConnection()
            .execute(
              'update chain_cursor set slot = ?, tip_slot = ?, updated_at = ? where cluster = ?',
              [to.toString(), tip.toString(), now, cluster],
              'run',
              tem.getTransactionContext(),
            );
        });
      } else {
        await em
          .getConnection()
          .execute('update chain_cursor set tip_slot = greatest(tip_slot, ?), updated_at = ? where cluster = ?', [tip.toString(), deps.now(), cluster], 'run');
      }
      heartbeat();
      const after = (await readCursor(em, cluster))!;
      await deliverUpTo(em, cluster, after);
      heartbeat();
      // The same tick follows landed records (the service's and these) towards FINALIZED.
      await advanceFinality(deps, cluster);

      // Against the tip now, not the one the step began at: a step that reached its tip may have taken blocks' time to do so.
      const tipNow = await network.getSlot('confirmed');
      const lagSlots = Number(tipNow > after.slot ? tipNow - after.slot : 0n);
      // Measured from the newest block's time when blocks were read; otherwise estimated at a slot's nominal 400 ms.
      const lagSeconds = newestBlockTime ? Math.max(0, (deps.now().getTime() - newestBlockTime.getTime()) / 1000) : lagSlots * SLOT_SECONDS;
      chainFollowerLagSlots.set({ cluster }, lagSlots);
      chainFollowerLagSeconds.set({ cluster }, lagSeconds);
      if (recorded) networkTransactionsRecorded.inc({ cluster }, recorded);
      return {
        cluster,
        slot: Number(after.slot),
        tipSlot: Number(tipNow),
        caughtUp: after.slot >= tip,
        lagSlots,
        lagSeconds,
        recorded,
        updatedAt: deps.now().toISOString(),
      };
    },
  };
}
