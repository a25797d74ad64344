/** Small idempotent writes of the transaction record: every status change is timestamped. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, AddressLookupTable, LedgerTransaction, Position, OracleDataSource } from '../entities';
import { partTransactionId } from '../../domain/ids';
import { refusalCodes } from '../../domain/errors';
import type { TransactionResult, TransactionStatus, WriteRequest, WriteResult } from '../../domain/write';

/** Appends a status change unless the record already shows it last (a retried step writes once). */
export function applyStatus(record: LedgerTransaction, status: TransactionStatus, at: Date, signature?: string): void {
  const last = record.statusHistory[record.statusHistory.length - 1];
  if (last?.status === status) return;
  record.status = status;
  record.statusHistory = [...record.statusHistory, { status, at: at.toISOString(), ...(signature ? { signature } : {}) }];
}

const statusColumns = { signature: 'signature', success: 'success', errorCode: 'error_code', errorMessage: 'error_message' } as const;

const beforeSigning: TransactionStatus[] = ['PENDING', 'BUILT', 'AWAITING_APPROVAL', 'AWAITING_SIGNATURES'];
/**
 * The statuses a record may reach each status from. A replayed step (after a crash, docs/write-engine.md) writes
 * its status again: the guard keeps a record that went further (SUBMITTED, CONFIRMED) where it is.
 */
const reachableFrom: Partial<Record<TransactionStatus, TransactionStatus[]>> = {
  SIGNED: beforeSigning,
  SUBMITTED: [...beforeSigning, 'SIGNED'],
  FAILED: beforeSigning,
  // A pre-submit webhook vetoes a signed message (docs/webhooks.md: it sees the signed transaction).
  REJECTED: [...beforeSigning, 'SIGNED'],
  // A replayed sign never moves a write that got all its signatures back to waiting.
  AWAITING_SIGNATURES: ['PENDING', 'BUILT', 'AWAITING_APPROVAL', 'AWAITING_SIGNATURES'],
  // A write resting at SIGNED was never sent (submitTransaction: false): Cancel may end it.
  CANCELLED: [...beforeSigning, 'SIGNED'],
};

/**
 * Sets a status on an existing record in one statement, unless the record is missing or already
 * went further; the change is appended to the history unless the history already ends with it.
 */
export async function setStatus(
  em: EntityManager,
  id: string,
  status: TransactionStatus,
  at: Date,
  fields: { signature?: string; success?: boolean; errorCode?: string; errorMessage?: string } = {},
): Promise<void> {
  const extra = Object.entries(fields).filter(([, value]) => value !== undefined);
  const from = reachableFrom[status];
  await em.getConnection().execute(
    `update ledger_transaction set status = ?,
       status_history = case when status_history -> -1 ->> 'status' = ? then status_history else status_history || ?::jsonb end,
       updated_at = ?${extra.map(([field]) => `, ${statusColumns[field as keyof typeof statusColumns]} = ?`).join('')}
     where id = ?${from ? ` and status in (${from.map(() => '?').join(', ')})` : ''}`,
    [status, status, JSON.stringify([{ status, at: at.toISOString() }]), at, ...extra.map(([, value]) => value), id, ...(from ?? [])],
    'run',
  );
}

/** Inserts the PENDING record of a write that answers before it ends; a record already there (a repeat, a race) is kept as it is. */
export async function insertPendingRecord(em: EntityManager, request: WriteRequest, at: Date): Promise<void> {
  await em.getConnection().execute(
    `insert into ledger_transaction (id, organization_id, operation, cluster, status, status_history, idempotency_key, request_digest, workflow_id, created_at, updated_at)
     values (?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    [
      request.transactionId,
      request.organizationId,
      request.operation,
      request.cluster,
      JSON.stringify([{ status: 'PENDING', at: at.toISOString() }]),
      request.idempotencyKey,
      request.requestDigest ?? null,
      request.workflowId,
      at,
      at,
    ],
  );
}

/**
 * A record a fault ended FAILED before anything was sent (no signature) back to PENDING, for the
 * key's new run: the history keeps the failure. Records with a signature, or of refusals, stay.
 */
export async function reopenUnsentRecord(em: EntityManager, id: string, at: Date): Promise<void> {
  await em.getConnection().execute(
    `update ledger_transaction set status = 'PENDING', status_history = status_history || ?::jsonb, success = null, error_code = null, error_message = null, updated_at = ?
     where id = ? and status = 'FAILED' and signature is null and (error_code is null or error_code not in (${refusalCodes.map(() => '?').join(', ')}))`,
    [JSON.stringify([{ status: 'PENDING', at: at.toISOString() }]), at, id, ...refusalCodes],
    'run',
  );
}

/** Deletes a record that is still PENDING; one its write has moved on (built, signed, ...) stays. Idempotent. */
export async function deletePendingRecord(em: EntityManager, id: string): Promise<void> {
  await em.getConnection().execute(`delete from ledger_transaction where id = ? and status = 'PENDING'`, [id]);
}

/** A new record for one part of a write (its first, unless `part` says otherwise). */
export function newTransactionRecord(em: EntityManager, request: WriteRequest, at: Date, part = 0): LedgerTransaction {
  return em.create(LedgerTransaction, {
    id: partTransactionId(request.transactionId, part),
    organizationId: request.organizationId,
    operation: request.operation,
    cluster: request.cluster,
    status: 'BUILT',
    statusHistory: [],
    idempotencyKey: part === 0 ? request.idempotencyKey : null,
    requestDigest: part === 0 ? (request.requestDigest ?? null) : null,
    workflowId: request.workflowId,
    signers: [],
    accountIds: [],
    writeTransactionId: request.transactionId,
    part,
    createdAt: at,
    updatedAt: at,
  });
}

const successful = new Set<TransactionStatus>([
  'PENDING',
  'SIGNED',
  'SUBMITTED',
  'CONFIRMED',
  'FINALIZED',
  'BUILT',
  'AWAITING_APPROVAL',
  'AWAITING_SIGNATURES',
]);

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

/** Who sent the record's transaction (API.md section 9): the service's own writes, or the chain follower's network transactions. */
export const transactionOrigin = (record: LedgerTransaction): 'SERVICE' | 'NETWORK' => (record.origin ?? 'SERVICE') as 'SERVICE' | 'NETWORK';

/** The record a write created (an account or a position), for answering a repeat from the records. */
export async function createdReference(em: EntityManager, id: string | undefined): Promise<WriteResult['created']> {
  if (!id) return undefined;
  const record =
    (await em.findOne(Account, { id })) ??
    (await em.findOne(Position, { id })) ??
    (await em.findOne(AddressLookupTable, { id })) ??
    (await em.findOne(OracleDataSource, { id }));
  return record ? { onchainId: record.address, offchainId: record.id } : undefined;
}

/**
 * Links records (accounts, positions, tables, sources) to a transaction record, each once, in the
 * order first linked: `first` puts them ahead, for the object the write creates (the write's
 * answer names the first link).
 */
export function linkRecords(tx: LedgerTransaction | null, ids: readonly string[], first = false): void {
  if (tx) tx.accountIds = [...new Set(first ? [...ids, ...tx.accountIds] : [...tx.accountIds, ...ids])];
}
