/** Transactions: Fetch Transaction Status, Fetch Transaction Details, Fetch Transactions. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerTransaction } from '../../db/entities';
import { notFound, validationError } from '../../domain/errors';
import { singleTransactionBody } from '../codecs/transaction.codecs';
import type { ApiDeps, Caller } from '../context';
import { presentTransaction, transactionFields } from '../presenters/transaction.presenter';
import type { RouteSpec } from '../route';
import { singleReadsOf } from './single-route';
import { transactionQuery } from './query-fields';
import { bulkRoute } from './bulk-route';
import { transactionLevels, transactionStatusResponse } from '../../domain/responses/transaction.responses';

/** The caller's transaction by offchainId or onchainId: VALIDATION_ERROR with neither, NOT_FOUND naming itemData.transaction. */
export async function findTransaction(em: EntityManager, caller: Caller, lookup: { offchainId?: string; onchainId?: string }): Promise<LedgerTransaction> {
  if (!lookup.offchainId && !lookup.onchainId) throw validationError('itemData.transaction', 'itemData.transaction needs offchainId or onchainId');
  const where: Record<string, unknown> = { organizationId: caller.organizationId };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.signature = lookup.onchainId;
  const tx = await em.findOne(LedgerTransaction, where);
  if (!tx) throw notFound('itemData.transaction', 'no such transaction');
  return tx;
}

/** The reads of the one transaction a body names (itemData.transaction), within the acting tenant. */
export const transactionReads = (deps: ApiDeps) =>
  singleReadsOf(deps, singleTransactionBody, ({ em, caller, body }) => findTransaction(em, caller, body.itemData.transaction));

export function transactionRoutes(deps: ApiDeps): RouteSpec[] {
  const transactionRead = transactionReads(deps);
  return [
    transactionRead({
      operationId: 'fetchTransactionStatus',
      path: '/api/v1/transactions/status',
      tag: 'Transactions',
      summary: 'Fetch Transaction Status, with every status change and its time.',
      response: transactionStatusResponse,
      present: (tx) => ({
        offchainId: tx.id,
        onchainId: tx.signature ?? null,
        status: tx.status,
        success: tx.success ?? null,
        errorMessage: tx.errorMessage ?? null,
        statusHistory: tx.statusHistory,
      }),
    }),
    transactionRead({
      operationId: 'fetchTransactionDetails',
      path: '/api/v1/transactions/single',
      tag: 'Transactions',
      summary: 'Fetch Transaction Details.',
      response: transactionLevels.detailed,
      present: (tx) => presentTransaction(tx, 'detailed'),
    }),
    bulkRoute(deps, {
      operationId: 'fetchTransactions',
      levels: transactionLevels,
      path: '/api/v1/transactions/bulk',
      tag: 'Transactions',
      summary: 'Fetch Transactions with filter, sort and paging.',
      entity: LedgerTransaction,
      query: transactionQuery,
      fields: transactionFields,
      present: presentTransaction,
    }),
  ];
}
