/**
 * Reconciliation's repair (docs/reconciliation.md): the missing network transactions of a
 * subscribed record, read from the chain (each from its block, picked by signature) and recorded
 * with the chain follower's own recording (src/follower), so a repair racing the follower records
 * each transaction once (NETWORK records are unique per organization, cluster and signature). Their
 * NETWORK_TRANSACTION events are started as the follower starts them (fixed workflow ids).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import type { Networks } from '../../network/svm-network';
import { recordNetworkTransactions, type FollowedTransaction } from '../../follower/record-network-transactions';
import { networkEventsWorkflowId } from '../../follower/ids';
import type { ActivityDeps } from '../deps';
import type { NetworkTransactionRecorder } from './reconcile';

export interface RepairDeps {
  orm: Orm;
  networks: Networks;
  now: () => Date;
  /** Starts the records' NETWORK_TRANSACTION deliveries (absent: none are started, e.g. a CLI without Temporal). */
  deliveries?: Pick<ActivityDeps['deliveries'], 'startNetworkEvents'>;
}

/** Idempotent: a transaction recorded already (by the follower or an earlier repair) moves nothing again. Network and database faults are thrown. */
export function chainHistoryRecorder(deps: RepairDeps): NetworkTransactionRecorder {
  return async ({ cluster, transactions }) => {
    const network = deps.networks.get(cluster);
    if (!network) throw new Error(`cluster ${cluster} is not configured`);
    const read: FollowedTransaction[] = [];
    const blocks = new Map<bigint, Awaited<ReturnType<typeof network.getBlock>>>();
    for (const { signature, slot } of transactions) {
      if (!blocks.has(slot)) blocks.set(slot, await network.getBlock(slot));
      const block = blocks.get(slot);
      const tx = block?.transactions.find((t) => t.signature === signature);
      if (block && tx) read.push({ ...tx, slot: block.slot, blockTime: block.blockTime });
    }
    const now = deps.now();
    // The history predates the flag (it was off, or the follower started later): recorded all the same.
    const recorded = await deps.orm.em.fork().transactional((em: EntityManager) => recordNetworkTransactions(em, cluster, read, { now, ignoreFromSlot: true }));
    const recordedNow = recorded.filter((r) => r.recordedNow);
    const start = deps.deliveries?.startNetworkEvents;
    if (start) for (const { transactionId } of recordedNow) await start(networkEventsWorkflowId(transactionId), transactionId);
    return [...new Set(recordedNow.map((r) => r.signature))];
  };
}
