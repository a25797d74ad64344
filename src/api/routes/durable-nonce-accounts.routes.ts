/** Durable nonce accounts: Create Durable Nonce Accounts, Fetch Durable Nonce Accounts (bulk, detailed records) and Details. */
import { Account, DurableNonceAccount } from '../../db/entities';
import { readNonce } from '../../network/lifetime';
import { durableNonceAccountDetailsBody } from '../codecs/durable-nonce.codecs';
import type { ApiDeps } from '../context';
import { presentDurableNonceAccount } from '../presenters/durable-nonce.presenter';
import { durableNonceAccountPage, durableNonceAccountRecord } from '../../domain/responses/durable-nonce.responses';
import type { RouteSpec } from '../route';
import { pageRoute } from './bulk-route';
import { recordOfAccount, singleRoute } from './single-route';
import { durableNonceAccountQuery } from './query-fields';
import { writeRoutes } from './write-route';
import { durableNonceOperations } from '../../domain/operations/durable-nonces/durable-nonces.operations';
import type { EntityManager } from '@mikro-orm/postgresql';

/** The account records a page of nonce accounts shows (each nonce account's own and its authority's), by id. */
async function accountsOf(em: EntityManager, rows: DurableNonceAccount[]): Promise<Map<string, Account>> {
  const ids = [...new Set(rows.flatMap((r) => [r.id, ...(r.authorityAccountId ? [r.authorityAccountId] : [])]))];
  return new Map((await em.find(Account, { id: { $in: ids } })).map((a) => [a.id, a]));
}

export function durableNonceAccountRoutes(deps: ApiDeps): RouteSpec[] {
  return [
    ...writeRoutes(deps, durableNonceOperations, {
      CREATE_DURABLE_NONCE_ACCOUNTS: {
        answer: (ctx, answer) => {
          if (answer.async) {
            ctx.state.status = 202;
            return { transaction: answer.transaction };
          }
          return { transactions: answer.transactions ?? (answer.transaction ? [answer.transaction] : []) };
        },
      },
    }),
    pageRoute(deps, {
      operationId: 'fetchDurableNonceAccounts',
      path: '/api/v1/durable-nonce-accounts/bulk',
      tag: 'Durable nonce accounts',
      summary:
        'Fetch Durable Nonce Accounts with filter, sort and paging; items are detailed records (spec 2.8). Fields: nonceAuthorityOnchainId, nonceAccountOnchainId, nonceAuthorityOffchainId, nonceAccountOffchainId, inUseByTransactionId, nonceAccountCode, isInUse (default sort, free ones first), nonceHash (the value last read from the chain: at creation and at each reservation).',
      response: durableNonceAccountPage,
      entity: DurableNonceAccount,
      query: durableNonceAccountQuery,
      related: (em, rows) => accountsOf(em, rows),
      present: (row, accounts) => presentDurableNonceAccount(row, accounts, row.nonceHash ?? null),
    }),
    singleRoute(deps, {
      operationId: 'fetchDurableNonceAccountDetails',
      path: '/api/v1/durable-nonce-accounts/single',
      tag: 'Durable nonce accounts',
      summary:
        'Fetch Durable Nonce Account Details: the record of spec 2.8, with nonceHash read from the chain now (null when the account holds no initialized nonce) and inUse naming the transaction holding the nonce (null when free). 404 when the account is not a durable nonce account of the tenant.',
      body: durableNonceAccountDetailsBody,
      response: durableNonceAccountRecord,
      find: (read) =>
        recordOfAccount(read, read.body.itemData.nonceAccount, 'itemData.nonceAccount', 'a durable nonce account', (account) =>
          read.em.findOne(DurableNonceAccount, { id: account.id }),
        ),
      async present(row, { em, scope }) {
        const onchain = await readNonce(deps.networks.get(scope.cluster)!, row.address);
        return presentDurableNonceAccount(row, await accountsOf(em, [row]), onchain?.nonce ?? null);
      },
    }),
  ];
}
