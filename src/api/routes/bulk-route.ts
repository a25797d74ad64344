/** The bulk read every resource has: `{itemQuery, tenancyConfig}` → `{count, items}` at a detail level. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { translateItemQuery, type QueryResource, type TranslatedQuery } from '../../domain/item-query';
import { bulkBody } from '../codecs/common.codecs';
import type { ApiDeps } from '../context';
import { detailLevels, type DetailLevel } from '../presenters/account.presenter';
import { route, type RouteSpec } from '../route';
import { bulkResponse, type BulkLevels, type LevelRecord } from '../responses/bulk.responses';
import { actingCaller } from '../tenancy';

export interface Page<E> {
  items: E[];
  /** How many records match the filter (all pages). */
  count: number;
  /** Continues after the page's last record; absent on an empty page. */
  cursor?: string;
}

/**
 * One page of records, the count of all that match a translated itemQuery, and the cursor after the
 * page (every bulk read pages this way). The page and the count are read at the same time, on two
 * pooled connections. Read-only.
 */
export async function findPage<E extends object>(em: EntityManager, entity: EntityName<E>, query: TranslatedQuery): Promise<Page<E>> {
  const where = query.after ? { $and: [query.where, query.after] } : query.where;
  const [items, count] = await Promise.all([
    em.find(entity, where as never, { orderBy: query.orderBy as never, limit: query.limit, offset: query.offset }) as Promise<E[]>,
    em.count(entity, query.where as never),
  ]);
  const last = items[items.length - 1];
  return { items, count, ...(last ? { cursor: query.cursorAfter(last) } : {}) };
}

export function bulkRoute<E extends object, C = undefined, L extends BulkLevels = BulkLevels>(
  deps: ApiDeps,
  spec: {
    /** The spec's operation name in camelCase (fetchAccounts): one operation for every detail level. */
    operationId: string;
    /** The record's codec at each detail level: the items' schema, and the type `present` returns. */
    levels: L;
    path: string;
    tag: string;
    summary: string;
    entity: EntityName<E>;
    query: QueryResource;
    /** `viewerOrganizationId`: the acting organization (records nested in a record may be another tenant's). */
    present: (record: E, level: DetailLevel, related: C | undefined, viewerOrganizationId: string) => LevelRecord<L>;
    /** Loads what the detailed level shows beside each record, in one go for the page. */
    related?: (em: EntityManager, records: E[]) => Promise<C>;
  },
): RouteSpec {
  return route({
    operationId: spec.operationId,
    method: 'post',
    path: `${spec.path}/{detailLevel}`,
    tag: spec.tag,
    summary: spec.summary,
    role: 'READ',
    pathParams: { detailLevel: detailLevels },
    body: bulkBody,
    successStatus: 200,
    response: bulkResponse(spec.levels),
    async handler(ctx, body) {
      const em = deps.orm.em.fork();
      const caller = await actingCaller(ctx, deps, em, body.tenancyConfig);
      const query = translateItemQuery(spec.query, body.itemQuery, { organizationId: caller.organizationId, cluster: ctx.state.cluster });
      const { items, count, cursor } = await findPage(em, spec.entity, query);
      const level = ctx.params.detailLevel as DetailLevel;
      const related = level === 'detailed' && spec.related ? await spec.related(em, items) : undefined;
      return { count, items: items.map((item) => spec.present(item, level, related, caller.organizationId)), ...(cursor ? { cursor } : {}) };
    },
  });
}
