/**
 * `cli reconcile`: one reconciliation pass now over the configured clusters (docs/reconciliation.md),
 * in this process. Repairs record the missing network transactions like the scheduled pass; their
 * NETWORK_TRANSACTION deliveries start on the deployment's task queue when TEMPORAL_ADDRESS is set
 * (without it, the pass finds drift but does not repair: an event would never be delivered).
 */
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Config } from '../config/config';
import type { Runtime } from '../main/runtime';
import { reconcileCluster, type ReconcileSummary } from '../activities/reconciliation/reconcile';
import { chainHistoryRecorder } from '../activities/reconciliation/repair-recorder';

export async function reconcileNow(
  config: Config,
  runtime: Runtime,
  options: { cluster?: string; repair: boolean },
): Promise<{ summaries: ReconcileSummary[] }> {
  if (config.clusters.length === 0) throw new Error('reconcile needs SVM_CLUSTERS (the clusters to compare with)');
  const clusters = options.cluster ? [options.cluster.toUpperCase()] : runtime.networks.names;
  for (const cluster of clusters)
    if (!runtime.networks.get(cluster)) throw new Error(`cluster ${cluster} is not in SVM_CLUSTERS (${runtime.networks.names.join(', ')})`);
  const connection =
    options.repair && config.temporal.address ? await Connection.connect({ address: config.temporal.address, ...config.temporal.connection }) : null;
  try {
    const client = connection ? new Client({ connection, namespace: config.temporal.namespace }) : null;
    const recordNetworkTransactions = client
      ? chainHistoryRecorder({
          orm: runtime.orm,
          networks: runtime.networks,
          now: () => new Date(),
          deliveries: {
            async startNetworkEvents(workflowId, transactionId) {
              try {
                await client.workflow.start('deliverNetworkTransactionWebhooks', {
                  taskQueue: config.temporal.taskQueue,
                  workflowId,
                  args: [transactionId],
                  workflowIdConflictPolicy: 'USE_EXISTING',
                });
              } catch (error) {
                if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
              }
            },
          },
        })
      : undefined;
    const summaries: ReconcileSummary[] = [];
    for (const cluster of clusters) {
      const deps = {
        orm: runtime.orm,
        networks: runtime.networks,
        now: () => new Date(),
        // Drift lines on stderr as JSON: stdout keeps the one result object.
        log: (level: string, fields: Record<string, unknown>, message: string) =>
          process.stderr.write(JSON.stringify({ level, ...fields, msg: message }) + '\n'),
        recordNetworkTransactions,
      };
      summaries.push(await reconcileCluster(deps, cluster, { repair: options.repair }));
    }
    return { summaries };
  } finally {
    await connection?.close();
  }
}
