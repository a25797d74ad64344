/**
 * What a data source's Temporal Schedule starts (docs/oracle-data-sources.md): one Refresh Oracle
 * Data Source write, as a child `ledgerWrite` with its own transaction record, exactly like a
 * refresh asked through the API. A refresh that gives no value is refused by the write (its record
 * FAILED with the reason, the reason kept on the data source); the schedule goes on.
 */
import { ApplicationFailure, ChildWorkflowFailure, executeChild, patched, uuid4, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { searchAttributeNames, writeWorkflowId, type WriteRequest, type WriteResult } from '../domain/write';
import type { RefreshTarget } from '../domain/oracle-schedule';
import { ledgerWrite } from './write/write.workflow';

const keys = {
  organization: defineSearchAttributeKey(searchAttributeNames.organization, SearchAttributeType.KEYWORD),
  operation: defineSearchAttributeKey(searchAttributeNames.operation, SearchAttributeType.KEYWORD),
  transaction: defineSearchAttributeKey(searchAttributeNames.transaction, SearchAttributeType.KEYWORD),
};

export async function scheduledOracleRefresh(target: RefreshTarget): Promise<WriteResult | { refused: string }> {
  const transactionId = uuid4();
  const operation = 'REFRESH_ORACLE_DATA_SOURCE';
  // Runs started before the organization's external id named workflows keep their child's id.
  const workflowId = patched('workflow-ids-external-organization')
    ? writeWorkflowId(operation, { id: target.organizationId, externalId: target.organizationExternalId }, `scheduled-${transactionId}`)
    : `refresh-oracle-data-source-${target.organizationId}-scheduled-${transactionId}`;
  const request: WriteRequest = {
    operation,
    transactionId,
    workflowId,
    organizationId: target.organizationId,
    organizationExternalId: target.organizationExternalId,
    apiKeyId: target.apiKeyId,
    cluster: target.cluster,
    idempotencyKey: null,
    commitment: 'confirmed',
    submit: true,
    itemData: { onchainDataSource: { offchainId: target.dataSourceId } },
    svmTransactionConfig: {},
  };
  try {
    const result = await executeChild(ledgerWrite, {
      workflowId: request.workflowId,
      args: [request],
      taskQueue: workflowInfo().taskQueue,
      typedSearchAttributes: new TypedSearchAttributes([
        { key: keys.organization, value: target.organizationExternalId },
        { key: keys.operation, value: operation },
        { key: keys.transaction, value: transactionId },
      ]),
    });
    // Refused (the job gave no value, the source was removed): recorded by the write; this run ends quietly.
    return result.refusal ? { refused: result.refusal.message } : result;
  } catch (error) {
    // The same refusal from a write of the release before `write-refusal-completes` (it failed the child).
    if (error instanceof ChildWorkflowFailure && error.cause instanceof ApplicationFailure) return { refused: error.cause.message };
    throw error;
  }
}
