/**
 * What the reconciliation schedule starts (docs/reconciliation.md): one pass per configured cluster,
 * each an activity that heartbeats per page of records. A cluster whose pass keeps failing does not
 * stop the others; the run fails at the end so the failure shows in the Web UI.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createReconciliationActivities, ReconcileSummary } from '../activities/reconciliation/reconciliation.activities';

const { reconciliationClusters, reconcileCluster } = proxyActivities<ReturnType<typeof createReconciliationActivities>>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 3, initialInterval: '10 seconds' },
});

export async function scheduledReconciliation(): Promise<ReconcileSummary[]> {
  const summaries: ReconcileSummary[] = [];
  const failed: string[] = [];
  for (const cluster of await reconciliationClusters()) {
    try {
      summaries.push(await reconcileCluster({ cluster }));
    } catch {
      failed.push(cluster);
    }
  }
  if (failed.length) throw ApplicationFailure.nonRetryable(`reconciliation failed on ${failed.join(', ')}`, 'RECONCILIATION_FAILED');
  return summaries;
}
