/** Transactions: Fetch Transaction Status, Fetch Transaction Details, Fetch Transactions. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerTransaction } from '../../db/entities';
import { notFound, validationError } from '../../domain/errors';
import { singleTransactionBody } from '../codecs/transaction.codecs';
import type { ApiDeps, Caller, LedgerContext } from '../context';
import { presentTransaction, transactionFields } from '../presenters/transaction.presenter';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
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

export function transactionRoutes(deps: ApiDeps): RouteSpec[] {
  const fork = () => deps.orm.em.fork();
  const lookedUp = async (
    ctx: LedgerContext,
    body: { itemData: { transaction: { offchainId?: string; onchainId?: string } }; tenancyConfig?: { overrideOrganizationExternalId?: string } },
  ) => {
    const em = fork();
    return findTransaction(em, await actingCaller(ctx, deps, em, body.tenancyConfig), body.itemData.transaction);
  };
  return [
    route({
      operationId: 'fetchTransactionStatus',
      method: 'post',
      path: '/api/v1/transactions/status',
      tag: 'Transactions',
      summary: 'Fetch Transaction Status, with every status change and its time.',
      role: 'READ',
      body: singleTransactionBody,
      successStatus: 200,
      response: transactionStatusResponse,
      async handler(ctx, body) {
        const tx = await lookedUp(ctx, body);
        return {
          offchainId: tx.id,
          onchainId: tx.signature ?? null,
          status: tx.status,
          success: tx.success ?? null,
          errorMessage: tx.errorMessage ?? null,
          statusHistory: tx.statusHistory,
        };
      },
    }),
    route({
      operationId: 'fetchTransactionDetails',
      method: 'post',
      path: '/api/v1/transactions/single',
      tag: 'Transactions',
      summary: 'Fetch Transaction Details.',
      role: 'READ',
      body: singleTransactionBody,
      successStatus: 200,
      response: transactionLevels.detailed,
      async handler(ctx, body) {
        return presentTransaction(await lookedUp(ctx, body), 'detailed');
      },
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
