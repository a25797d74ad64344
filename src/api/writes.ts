/**
 * Starting a write: one workflow per write, its id from the idempotency key so a repeat finds the
 * first run (and its result) instead of starting a second.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { searchAttributeNames, writeWorkflowId, type Operation, type WriteRequest, type WriteResult } from '../domain/write';
import type { ledgerWrite } from '../workflows/write.workflow';
import type { SvmTransactionConfigInput } from './codecs/common.codecs';
import type { ApiDeps, Caller, LedgerContext } from './context';

const keys = {
  organization: defineSearchAttributeKey(searchAttributeNames.organization, SearchAttributeType.KEYWORD),
  operation: defineSearchAttributeKey(searchAttributeNames.operation, SearchAttributeType.KEYWORD),
  transaction: defineSearchAttributeKey(searchAttributeNames.transaction, SearchAttributeType.KEYWORD),
};

export interface WriteInput {
  operation: Operation;
  caller: Caller;
  itemData: unknown;
  svmTransactionConfig?: SvmTransactionConfigInput;
  idempotencyId?: string;
  newRecordId?: string;
}

export type WriteAnswer = { async: true; transaction: { offchainId: string; status: string } } | ({ async: false } & WriteResult);

export async function runWrite(ctx: LedgerContext, deps: ApiDeps, input: WriteInput): Promise<WriteAnswer> {
  const clientRequestId = ctx.get('x-request-id') || undefined;
  const idempotencyKey = input.idempotencyId ?? clientRequestId ?? null;
  const transactionId = randomUUID();
  const workflowId = writeWorkflowId(input.operation, input.caller.organizationId, idempotencyKey ?? transactionId);
  const request: WriteRequest = {
    operation: input.operation,
    transactionId,
    newRecordId: input.newRecordId,
    workflowId,
    organizationId: input.caller.organizationId,
    organizationExternalId: input.caller.organizationExternalId,
    apiKeyId: input.caller.apiKeyId,
    cluster: ctx.state.cluster,
    idempotencyKey,
    commitment: input.svmTransactionConfig?.commitmentConfig?.commitmentLevel ?? deps.defaultCommitment,
    submit: input.svmTransactionConfig?.submitTransaction ?? true,
    itemData: input.itemData,
    svmTransactionConfig: input.svmTransactionConfig ?? {},
  };
  let handle: WorkflowHandle<typeof ledgerWrite>;
  try {
    handle = await deps.temporal.client.workflow.start<typeof ledgerWrite>('ledgerWrite', {
      taskQueue: deps.temporal.taskQueue,
      workflowId,
      args: [request],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: new TypedSearchAttributes([
        { key: keys.organization, value: input.caller.organizationExternalId },
        { key: keys.operation, value: input.operation },
        { key: keys.transaction, value: transactionId },
      ]),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    handle = deps.temporal.client.workflow.getHandle(workflowId);
  }
  if (/respond-async/i.test(ctx.get('prefer'))) {
    ctx.set('Preference-Applied', 'respond-async');
    return { async: true, transaction: { offchainId: transactionId, status: 'ACCEPTED' } };
  }
  return { async: false, ...(await handle.result()) };
}
