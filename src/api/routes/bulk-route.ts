/** The bulk reads every resource has: `{itemQuery, tenancyConfig}` → `{count, items}`, at a detail level (bulkRoute) or at the one level a resource has (pageRoute). */
import type * as t from 'io-ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findPage, pageFields, type Page } from '../../db/repositories/bulk-pages.repository';
import type { EntityName } from '@mikro-orm/core';
import { translateItemQuery, type QueryResource } from '../../domain/item-query';
import { bulkBody } from '../codecs/common.codecs';
import type { ApiDeps, LedgerContext } from '../context';
import { detailLevels, type DetailLevel } from '../presenters/account.presenter';
import { readRoute, type RouteSpec } from '../route';
import { bulkResponse, type BulkLevels, type LevelRecord } from '../../domain/responses/bulk.responses';
import { actingScope } from '../tenancy';

/** One page of the acting tenant's records an itemQuery selects; `fields`: only those properties are loaded (findPage). */
async function readPage<E extends object>(
  ctx: LedgerContext,
  deps: ApiDeps,
  body: t.TypeOf<typeof bulkBody>,
  entity: EntityName<E>,
  resource: QueryResource,
  fields?: readonly string[],
): Promise<{ em: EntityManager; organizationId: string; page: Page<E> }> {
  const { em, scope } = await actingScope(ctx, deps, body.tenancyConfig);
  const page = await findPage(em, entity, translateItemQuery(resource, body.itemQuery, scope), fields);
  return { em, organizationId: scope.organizationId, page };
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
    /** The properties `present` reads at a level, where that is not all of them: only those are loaded (findPage). */
    fields?: Partial<Record<DetailLevel, readonly (keyof E & string)[]>>;
    /** Loads what the detailed level shows beside each record, in one go for the page. */
    related?: (em: EntityManager, records: E[]) => Promise<C>;
  },
): RouteSpec {
  return readRoute(
    { ...spec, path: `${spec.path}/{detailLevel}` },
    {
      pathParams: { detailLevel: detailLevels },
      body: bulkBody,
      response: bulkResponse(spec.levels),
      async handler(ctx, body) {
        const level = ctx.params.detailLevel as DetailLevel;
        const { em, organizationId, page } = await readPage(ctx, deps, body, spec.entity, spec.query, spec.fields?.[level]);
        const related = level === 'detailed' && spec.related ? await spec.related(em, page.items) : undefined;
        return { ...pageFields(page), items: page.items.map((item) => spec.present(item, level, related, organizationId)) };
      },
    },
  );
}

/** A bulk read with one level (the path has no `{detailLevel}`): `related` loads what every item shows beside its record, in one go for the page. */
export function pageRoute<E extends object, C, I>(
  deps: ApiDeps,
  spec: {
    operationId: string;
    path: string;
    tag: string;
    summary: string;
    /** The page's codec: `{count, …, items}`. */
    response: t.Mixed & t.Decoder<unknown, ReturnType<typeof pageFields> & { items: I[] }>;
    entity: EntityName<E>;
    query: QueryResource;
    related: (em: EntityManager, records: E[], scope: { organizationId: string; cluster: string }) => Promise<C>;
    present: (record: E, related: C) => I;
  },
): RouteSpec {
  return readRoute(spec, {
    body: bulkBody,
    response: spec.response,
    async handler(ctx, body) {
      const { em, organizationId, page } = await readPage(ctx, deps, body, spec.entity, spec.query);
      const related = await spec.related(em, page.items, { organizationId, cluster: ctx.state.cluster });
      return { ...pageFields(page), items: page.items.map((item) => spec.present(item, related)) };
    },
  });
}
