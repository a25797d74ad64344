/**
 * Starting a write: one workflow per write, its id from the idempotency key so a repeat finds the
 * first run (and its result) instead of starting a second.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { searchAttributeNames, writeWorkflowId, type Operation, type WriteRequest, type WriteResult } from '../domain/write';
import type { EntityManager } from '@mikro-orm/postgresql';
import { validationError } from '../domain/errors';
import { LedgerTransaction } from '../db/entities';
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
  extraRecordIds?: Record<string, string>;
}

export type WriteAnswer = { async: true; transaction: { offchainId: string; status: string } } | ({ async: false } & WriteResult);

/**
 * Inserts the PENDING record of an async write. With an idempotency key already used, answers
 * the first write's transaction instead.
 */
async function acceptTransaction(deps: ApiDeps, request: WriteRequest): Promise<{ existing?: { offchainId: string; status: string } }> {
  const em = deps.orm.em.fork() as unknown as EntityManager;
  const now = deps.now();
  const inserted = await em.getConnection().execute(
    `insert into ledger_transaction (id, organization_id, operation, cluster, status, status_history, idempotency_key, workflow_id, created_at, updated_at)
     values (?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?) on conflict do nothing returning id`,
    [request.transactionId, request.organizationId, request.operation, request.cluster, JSON.stringify([{ status: 'PENDING', at: now.toISOString() }]), request.idempotencyKey, request.workflowId, now, now],
  );
  if (inserted.length) return {};
  const first = await em.findOneOrFail(LedgerTransaction, { organizationId: request.organizationId, operation: request.operation, idempotencyKey: request.idempotencyKey });
  return { existing: { offchainId: first.id, status: first.status } };
}

export async function runWrite(ctx: LedgerContext, deps: ApiDeps, input: WriteInput): Promise<WriteAnswer> {
  if (input.svmTransactionConfig?.messageLifetimeStrategy === 'DURABLE_NONCE') {
    throw validationError('svmTransactionConfig.messageLifetimeStrategy', 'DURABLE_NONCE is not available yet: durable nonce accounts come with Create Durable Nonce Accounts; use RECENT_BLOCKHASH');
  }
  const clientRequestId = ctx.get('x-request-id') || undefined;
  const idempotencyKey = input.idempotencyId ?? clientRequestId ?? null;
  const transactionId = randomUUID();
  const workflowId = writeWorkflowId(input.operation, input.caller.organizationId, idempotencyKey ?? transactionId);
  const request: WriteRequest = {
    operation: input.operation,
    transactionId,
    newRecordId: input.newRecordId,
    extraRecordIds: input.extraRecordIds,
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
  const respondAsync = /respond-async/i.test(ctx.get('prefer'));
  if (respondAsync) {
    // The record exists before the answer, so Fetch Transaction Status finds it at once.
    const accepted = await acceptTransaction(deps, request);
    if (accepted.existing) {
      ctx.set('Preference-Applied', 'respond-async');
      return { async: true, transaction: accepted.existing };
    }
  }
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
  if (respondAsync) {
    ctx.set('Preference-Applied', 'respond-async');
    return { async: true, transaction: { offchainId: transactionId, status: 'PENDING' } };
  }
  const result = await waitAtMost(handle.result(), deps.writeWaitMs);
  if (result !== TIMED_OUT) return { async: false, ...result };
  // Still running (e.g. a slow network): answer as an async write, with the run's own transaction.
  const description = await handle.describe();
  const offchainId = description.typedSearchAttributes.get(keys.transaction) ?? transactionId;
  const record = await (deps.orm.em.fork() as unknown as EntityManager).findOne(LedgerTransaction, { id: offchainId });
  ctx.set('Preference-Applied', 'respond-async');
  return { async: true, transaction: { offchainId, status: record?.status ?? 'PENDING' } };
}

const TIMED_OUT = Symbol('timed out');

function waitAtMost<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)))]).finally(() => clearTimeout(timer));
}

/** The body of a write that answers its transaction result (202 with the transaction when it runs on). */
export function transactionAnswer(ctx: LedgerContext, answer: WriteAnswer): unknown {
  if (!answer.async) return answer.transaction;
  ctx.state.status = 202;
  return { transaction: answer.transaction };
}

/** The body of a write that answers `{<name>{onchainId, offchainId}, svmTransaction}` (202 with the transaction when it runs on). */
export function referenceAnswer(ctx: LedgerContext, answer: WriteAnswer, name: string): unknown {
  if (answer.async) {
    ctx.state.status = 202;
    return { transaction: answer.transaction };
  }
  return { [name]: answer.created ?? null, svmTransaction: answer.transaction };
}
