/**
 * Reconciliation's activities (docs/reconciliation.md): the clusters to reconcile, and one pass over
 * a cluster. The pass heartbeats at each page of records, so a worker lost mid-pass is noticed in
 * minutes; a retried pass starts over (it is idempotent: open findings are updated, not repeated).
 */
import { Context } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { reconcileCluster, type ReconcileLog, type ReconcileSummary } from './reconcile';
import { chainHistoryRecorder } from './repair-recorder';

export type { ReconcileSummary } from './reconcile';

/** The activity's lines go through its context's logger (the worker's logger, `sdk: true`). */
const activityLog: ReconcileLog = (level, fields, message) => Context.current().log[level](message, fields);

export function createReconciliationActivities(deps: ActivityDeps) {
  // Repairs record with the chain follower's recording and start their NETWORK_TRANSACTION deliveries like it.
  const recordNetworkTransactions = chainHistoryRecorder({ orm: deps.orm, networks: deps.networks, now: deps.now, deliveries: deps.deliveries });
  return {
    /** The configured clusters, in order. Pure read of the configuration. */
    async reconciliationClusters(): Promise<string[]> {
      return deps.networks.names;
    },
    /** One pass over a cluster (reconcile.ts); its summary is JSON-safe (counts only). */
    async reconcileCluster(input: { cluster: string }): Promise<ReconcileSummary> {
      return reconcileCluster(
        { orm: deps.orm, networks: deps.networks, now: deps.now, log: activityLog, recordNetworkTransactions, onPage: () => Context.current().heartbeat() },
        input.cluster,
      );
    },
  };
}
