/** The bulk read every resource has: `{itemQuery, tenancyConfig}` → `{count, items}` at a detail level. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, pageFields } from '../../db/repositories/bulk-pages.repository';
import type { EntityName } from '@mikro-orm/core';
import { translateItemQuery, type QueryResource } from '../../domain/item-query';
import { bulkBody } from '../codecs/common.codecs';
import type { ApiDeps } from '../context';
import { detailLevels, type DetailLevel } from '../presenters/account.presenter';
import { route, type RouteSpec } from '../route';
import { bulkResponse, type BulkLevels, type LevelRecord } from '../../domain/responses/bulk.responses';
import { actingCaller } from '../tenancy';

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
    /** The properties `present` reads at a level, where that is not all of them: only those are loaded (findPage). */
    fields?: Partial<Record<DetailLevel, readonly (keyof E & string)[]>>;
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
      const level = ctx.params.detailLevel as DetailLevel;
      const page = await findPage(em, spec.entity, query, spec.fields?.[level]);
      const related = level === 'detailed' && spec.related ? await spec.related(em, page.items) : undefined;
      return { ...pageFields(page), items: page.items.map((item) => spec.present(item, level, related, caller.organizationId)) };
    },
  });
}
