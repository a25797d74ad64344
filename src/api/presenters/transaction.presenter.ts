/** Transaction records as the API shows them. */
import type { LedgerTransaction } from '../../db/entities';
import { transactionOrigin, transactionResult } from '../../db/repositories/transaction-records.repository';
import type { DetailLevel } from './account.presenter';
import type * as t from 'io-ts';
import type { transactionCompact, transactionIdentifiers, TransactionDetailedBody } from '../../domain/responses/transaction.responses';

type TransactionIdentifiersBody = t.TypeOf<typeof transactionIdentifiers>;
type TransactionCompactBody = t.TypeOf<typeof transactionCompact>;

/** What presentTransaction reads at the levels below detailed (bulk reads load only these). */
export const transactionFields = {
  identifiers: ['id', 'signature'],
  compact: [
    'id',
    'signature',
    'status',
    'success',
    'confirmationsCount',
    'serializedMessage',
    'errorMessage',
    'txnTimestamp',
    'operation',
    'origin',
    'createdAt',
  ],
} as const satisfies Partial<Record<DetailLevel, readonly (keyof LedgerTransaction)[]>>;

export function presentTransaction(tx: LedgerTransaction, level: 'detailed'): TransactionDetailedBody;
export function presentTransaction(tx: LedgerTransaction, level: DetailLevel): TransactionIdentifiersBody | TransactionCompactBody | TransactionDetailedBody;
export function presentTransaction(tx: LedgerTransaction, level: DetailLevel): TransactionIdentifiersBody | TransactionCompactBody | TransactionDetailedBody {
  if (level === 'identifiers') return { onchain: { id: tx.signature ?? null }, offchain: { id: tx.id } };
  const result = transactionResult(tx);
  const origin = transactionOrigin(tx);
  if (level === 'compact') return { ...result, operation: tx.operation, origin, createdAt: tx.createdAt };
  return {
    ...result,
    operation: tx.operation,
    origin,
    cluster: tx.cluster,
    statusHistory: tx.statusHistory,
    idempotencyId: tx.idempotencyKey ?? null,
    workflowId: tx.workflowId,
    feePayer: tx.feePayer ?? null,
    // svmTransactionConfig.computeUnitConfig as built: the limit, the price used (given or estimated) and the estimate's provider.
    computeUnitConfig: tx.computeBudget ? { limitSource: null, simulatedUnits: null, ...tx.computeBudget } : null,
    // What the landed transaction used and paid, from its meta.
    computeUnitsConsumed: tx.computeUnitsConsumed === null || tx.computeUnitsConsumed === undefined ? null : Number(tx.computeUnitsConsumed),
    fee: tx.fee ?? null,
    signers: tx.signers,
    slot: tx.slot ?? null,
    lastValidBlockHeight: tx.lastValidBlockHeight ?? null,
    accountOffchainIds: tx.accountIds,
    webhookFailures: tx.webhookFailures ?? [],
    tenantOrganizationId: tx.organizationId,
    createdAt: tx.createdAt,
    updatedAt: tx.updatedAt,
  };
}
