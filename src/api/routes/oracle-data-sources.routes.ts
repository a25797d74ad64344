/**
 * Oracle data sources (docs/oracle-data-sources.md): Create Onchain Data Source, Update Oracle Data
 * Source Definition, Refresh Oracle Data Source, Fetch Oracle Data Sources and Fetch Onchain Data
 * Source Details. A job definition is checked (tasks, hosts) here, before the write starts, and
 * again by the write itself.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, OracleDataSource } from '../../db/entities';
import { findDataSourceByLookup } from '../../db/repositories/oracle-data-sources.repository';
import { parseJobDefinition } from '../../domain/oracle-job';
import { singleOnchainDataSourceBody } from '../codecs/oracle-data-source.codecs';
import type { ApiDeps } from '../context';
import { presentLatestValue, presentOnchainDataSource } from '../presenters/oracle-data-source.presenter';
import { onchainDataSourcePage, onchainDataSourceRecord } from '../../domain/responses/oracle-data-source.responses';
import type { RouteSpec } from '../route';
import { pageRoute } from './bulk-route';
import { singleRoute } from './single-route';
import { onchainDataSourceQuery } from './query-fields';
import { writeRoutes } from './write-route';
import { oracleDataSourceOperations } from '../../domain/operations/oracle-data-sources/oracle-data-sources.operations';

const tag = 'Oracle data sources';
const JOB_FIELD = 'itemData.providerDetails.jobDefinition';

/** The onboarded authorities of these data sources, by address. */
async function authoritiesOf(em: EntityManager, organizationId: string, cluster: string, sources: OracleDataSource[]): Promise<Map<string, Account>> {
  const addresses = [...new Set(sources.map((s) => s.authorityAddress))];
  if (!addresses.length) return new Map();
  return new Map((await em.find(Account, { organizationId, cluster, address: { $in: addresses } })).map((a) => [a.address, a]));
}

export function oracleDataSourceRoutes(deps: ApiDeps): RouteSpec[] {
  const checkDefinition = <I extends { providerDetails?: { jobDefinition?: string } }>(item: I): I => {
    if (item.providerDetails?.jobDefinition !== undefined) parseJobDefinition(item.providerDetails.jobDefinition, deps.oracleAllowedHosts ?? [], JOB_FIELD);
    return item;
  };
  return [
    ...writeRoutes(deps, oracleDataSourceOperations, {
      CREATE_ONCHAIN_DATA_SOURCE: { prepare: (item) => checkDefinition(item) },
      UPDATE_ORACLE_DATA_SOURCE: { prepare: (item) => checkDefinition(item) },
      REFRESH_ORACLE_DATA_SOURCE: {
        async answer(ctx, answer) {
          if (answer.async) {
            ctx.state.status = 202;
            return { transaction: answer.transaction };
          }
          const id = answer.created?.offchainId;
          const source = id ? await deps.orm.em.fork().findOne(OracleDataSource, { id }) : null;
          return { svmTransaction: answer.transaction, latestValue: source ? presentLatestValue(source) : null };
        },
      },
    }),
    pageRoute(deps, {
      operationId: 'fetchOracleDataSources',
      path: '/api/v1/market-data/onchain-data-source/bulk',
      tag,
      summary: 'Fetch Oracle Data Sources with filter, sort and paging (spec 4.1 fields; default sort dataType ASC); detailed records with their latest value.',
      response: onchainDataSourcePage,
      entity: OracleDataSource,
      query: onchainDataSourceQuery,
      related: (em, sources, scope) => authoritiesOf(em, scope.organizationId, scope.cluster, sources),
      present: (source, authorities) => presentOnchainDataSource(source, authorities.get(source.authorityAddress)),
    }),
    singleRoute(deps, {
      operationId: 'fetchOnchainDataSourceDetails',
      path: '/api/v1/market-data/onchain-data-source/single',
      tag,
      summary:
        'Fetch Onchain Data Source Details: the record (spec 2.7) with latestValue {value, updatedAt, slot} and the last refresh failure. 404 when the data source is not on record.',
      body: singleOnchainDataSourceBody,
      response: onchainDataSourceRecord,
      find: ({ em, scope, body }) => findDataSourceByLookup(em, scope, body.itemData.onchainDataSource, 'itemData.onchainDataSource'),
      present: async (source, { em, scope }) =>
        presentOnchainDataSource(source, (await authoritiesOf(em, scope.organizationId, scope.cluster, [source])).get(source.authorityAddress)),
    }),
  ];
}
