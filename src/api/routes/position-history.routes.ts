/** Fetch Position History: the transaction records of every write that touched a position. */
import { LedgerTransaction } from '../../db/entities';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { translateItemQuery } from '../../domain/item-query';
import { positionHistoryBody } from '../codecs/position.codecs';
import type { ApiDeps } from '../context';
import { presentTransaction } from '../presenters/transaction.presenter';
import type { RouteSpec } from '../route';
import { singleRoute } from './single-route';
import { transactionQuery } from './query-fields';
import { findPage, pageFields } from '../../db/repositories/bulk-pages.repository';
import { positionHistoryResponse } from '../../domain/responses/transaction.responses';

export function positionHistoryRoutes(deps: ApiDeps): RouteSpec[] {
  return [
    singleRoute(deps, {
      operationId: 'fetchPositionHistory',
      path: '/api/v1/positions/history',
      tag: 'Positions',
      summary:
        'Fetch Position History: the transactions that touched the position (its initialization, mints, burns, transfers in and out, trades, freezes and thaws, inactivation), as detailed transaction records, newest first. itemQuery filters, sorts and pages them with the fields of Fetch Transactions.',
      body: positionHistoryBody,
      response: positionHistoryResponse,
      async find({ em, scope, body }) {
        // The query is checked before the lookup, so its faults are named whatever the position.
        const query = translateItemQuery(transactionQuery, body.itemQuery, { ...scope });
        const position = await findPositionByLookup(em, scope, body.itemData.position, 'itemData.position');
        // Every write that touches a position lists its offchain id among the transaction's records.
        return findPage(em, LedgerTransaction, { ...query, where: { $and: [query.where, { accountIds: { $contains: [position.id] } }] } });
      },
      present: (page) => ({ ...pageFields(page), items: page.items.map((tx) => presentTransaction(tx, 'detailed')) }),
    }),
  ];
}
