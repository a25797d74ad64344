/** Transaction records as the API shows them. */
import type { LedgerTransaction } from '../../db/entities';
import { transactionResult } from '../../activities/transaction-records';
import type { DetailLevel } from './account.presenter';

export function presentTransaction(tx: LedgerTransaction, level: DetailLevel) {
  if (level === 'identifiers') return { onchain: { id: tx.signature ?? null }, offchain: { id: tx.id } };
  const result = transactionResult(tx);
  if (level === 'compact') return { ...result, operation: tx.operation, createdAt: tx.createdAt };
  return {
    ...result,
    operation: tx.operation,
    cluster: tx.cluster,
    statusHistory: tx.statusHistory,
    idempotencyId: tx.idempotencyKey ?? null,
    workflowId: tx.workflowId,
    feePayer: tx.feePayer ?? null,
    // svmTransactionConfig.computeUnitConfig as built: the limit, the price used (given or estimated) and the estimate's provider.
    computeUnitConfig: tx.computeBudget ?? null,
    signers: tx.signers,
    slot: tx.slot ?? null,
    lastValidBlockHeight: tx.lastValidBlockHeight ?? null,
    accountOffchainIds: tx.accountIds,
    tenantOrganizationId: tx.organizationId,
    createdAt: tx.createdAt,
    updatedAt: tx.updatedAt,
  };
}
