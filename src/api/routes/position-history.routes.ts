/** Fetch Position History: the transaction records of every write that touched a position. */
import { LedgerTransaction } from '../../db/entities';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { translateItemQuery } from '../../domain/item-query';
import { positionHistoryBody } from '../codecs/position.codecs';
import type { ApiDeps } from '../context';
import { presentTransaction } from '../presenters/transaction.presenter';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
import { transactionQuery } from './query-fields';
import { findPage, pageFields } from '../../db/repositories/bulk-pages.repository';
import { positionHistoryResponse } from '../../domain/responses/transaction.responses';

export function positionHistoryRoutes(deps: ApiDeps): RouteSpec[] {
  return [
    route({
      operationId: 'fetchPositionHistory',
      method: 'post',
      path: '/api/v1/positions/history',
      tag: 'Positions',
      summary:
        'Fetch Position History: the transactions that touched the position (its initialization, mints, burns, transfers in and out, trades, freezes and thaws, inactivation), as detailed transaction records, newest first. itemQuery filters, sorts and pages them with the fields of Fetch Transactions.',
      role: 'READ',
      body: positionHistoryBody,
      successStatus: 200,
      response: positionHistoryResponse,
      async handler(ctx, body) {
        const em = deps.orm.em.fork();
        const caller = await actingCaller(ctx, deps, em, body.tenancyConfig);
        const scope = { organizationId: caller.organizationId, cluster: ctx.state.cluster };
        // The query is checked before the lookup, so its faults are named whatever the position.
        const query = translateItemQuery(transactionQuery, body.itemQuery, scope);
        const position = await findPositionByLookup(em, scope, body.itemData.position, 'itemData.position');
        // Every write that touches a position lists its offchain id among the transaction's records.
        const page = await findPage(em, LedgerTransaction, { ...query, where: { $and: [query.where, { accountIds: { $contains: [position.id] } }] } });
        const items = page.items;
        return { ...pageFields(page), items: items.map((tx) => presentTransaction(tx, 'detailed')) };
      },
    }),
  ];
}
