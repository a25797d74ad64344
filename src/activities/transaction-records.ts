/** Small idempotent writes of the transaction record: every status change is timestamped. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, LedgerTransaction, Position } from '../db/entities';
import type { TransactionResult, TransactionStatus, WriteRequest, WriteResult } from '../domain/write';

/** Appends a status change unless the record already shows it last (a retried step writes once). */
export function applyStatus(record: LedgerTransaction, status: TransactionStatus, at: Date): void {
  const last = record.statusHistory[record.statusHistory.length - 1];
  if (last?.status === status) return;
  record.status = status;
  record.statusHistory = [...record.statusHistory, { status, at: at.toISOString() }];
}

const statusColumns = { signature: 'signature', success: 'success', errorCode: 'error_code', errorMessage: 'error_message' } as const;

/**
 * Sets a status on an existing record (a no-op when it does not exist) in one statement; the change
 * is appended to the history unless the history already ends with it (a retried step writes once).
 */
export async function setStatus(
  em: EntityManager,
  id: string,
  status: TransactionStatus,
  at: Date,
  fields: { signature?: string; success?: boolean; errorCode?: string; errorMessage?: string } = {},
): Promise<void> {
  const extra = Object.entries(fields).filter(([, value]) => value !== undefined);
  await em.getConnection().execute(
    `update ledger_transaction set status = ?,
       status_history = case when status_history -> -1 ->> 'status' = ? then status_history else status_history || ?::jsonb end,
       updated_at = ?${extra.map(([field]) => `, ${statusColumns[field as keyof typeof statusColumns]} = ?`).join('')}
     where id = ?`,
    [status, status, JSON.stringify([{ status, at: at.toISOString() }]), at, ...extra.map(([, value]) => value), id],
    'run',
  );
}

export function newTransactionRecord(em: EntityManager, request: WriteRequest, at: Date): LedgerTransaction {
  return em.create(LedgerTransaction, {
    id: request.transactionId,
    organizationId: request.organizationId,
    operation: request.operation,
    cluster: request.cluster,
    status: 'BUILT',
    statusHistory: [],
    idempotencyKey: request.idempotencyKey,
    requestDigest: request.requestDigest ?? null,
    workflowId: request.workflowId,
    signers: [],
    accountIds: [],
    createdAt: at,
    updatedAt: at,
  });
}

const successful = new Set<TransactionStatus>(['PENDING', 'SIGNED', 'SUBMITTED', 'CONFIRMED', 'FINALIZED', 'BUILT', 'AWAITING_APPROVAL', 'AWAITING_SIGNATURES']);

/** The spec's transaction result (2.2) from a record. */
export function transactionResult(record: LedgerTransaction): TransactionResult {
  return {
    success: record.success ?? successful.has(record.status as TransactionStatus),
    offchainId: record.id,
    status: record.status as TransactionStatus,
    onchainId: record.signature ?? null,
    confirmationsCount: record.confirmationsCount ?? null,
    serializedMessage: record.serializedMessage ?? null,
    errorMessage: record.errorMessage ?? null,
    txnTimestamp: record.txnTimestamp ? record.txnTimestamp.toISOString() : null,
  };
}

/** The record a write created (an account or a position), for answering a repeat from the records. */
export async function createdReference(em: EntityManager, id: string | undefined): Promise<WriteResult['created']> {
  if (!id) return undefined;
  const record = (await em.findOne(Account, { id })) ?? (await em.findOne(Position, { id }));
  return record ? { onchainId: record.address, offchainId: record.id } : undefined;
}
