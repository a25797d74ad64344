/** Address lookup tables: Create, Extend, Update (freeze, deactivate, close), Fetch (bulk) and Fetch Details. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, AddressLookupTable } from '../../db/entities';
import { findTableByLookup } from '../../db/repositories/address-lookup-tables.repository';
import { translateItemQuery } from '../../domain/item-query';
import { tableFlags } from '../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import { readLookupTable } from '../../network/lookup-tables';
import { singleAddressLookupTableBody } from '../codecs/address-lookup-table.codecs';
import { bulkBody } from '../codecs/common.codecs';
import type { ApiDeps } from '../context';
import { presentAddressLookupTable } from '../presenters/address-lookup-table.presenter';
import { addressLookupTablePage, addressLookupTableRecord } from '../../domain/responses/address-lookup-table.responses';
import { route, type RouteSpec } from '../route';
import { actingCaller, actingScope } from '../tenancy';
import { addressLookupTableQuery } from './query-fields';
import { findPage, pageFields } from '../../db/repositories/bulk-pages.repository';
import { writeRoutes } from './write-route';
import { addressLookupTableOperations } from '../../domain/operations/address-lookup-tables/address-lookup-tables.operations';

const tag = 'Address lookup tables';

/** The onboarded accounts among the tables' authorities and components, by address. */
async function accountsOf(
  em: EntityManager,
  organizationId: string,
  cluster: string,
  tables: AddressLookupTable[],
  extra: string[] = [],
): Promise<Map<string, Account>> {
  const addresses = [...new Set([...tables.flatMap((t) => [t.authorityAddress, ...t.componentAddresses]), ...extra])];
  if (addresses.length === 0) return new Map();
  const accounts = await em.find(Account, { organizationId, cluster, address: { $in: addresses } });
  return new Map(accounts.map((a) => [a.address, a]));
}

export function addressLookupTableRoutes(deps: ApiDeps): RouteSpec[] {
  return [
    ...writeRoutes(deps, addressLookupTableOperations),
    route({
      operationId: 'fetchAddressLookupTables',
      method: 'post',
      path: '/api/v1/address-lookup-tables/bulk',
      tag,
      summary:
        "Fetch Address Lookup Tables with filter, sort and paging (spec 4.1 fields; default sort managed DESC); detailed records as the service's writes left them.",
      role: 'READ',
      body: bulkBody,
      successStatus: 200,
      response: addressLookupTablePage,
      async handler(ctx, body) {
        const em = deps.orm.em.fork();
        const caller = await actingCaller(ctx, deps, em, body.tenancyConfig);
        const query = translateItemQuery(addressLookupTableQuery, body.itemQuery, { organizationId: caller.organizationId, cluster: ctx.state.cluster });
        const page = await findPage(em, AddressLookupTable, query);
        const items = page.items;
        const accounts = await accountsOf(em, caller.organizationId, ctx.state.cluster, items);
        return { ...pageFields(page), items: items.map((table) => presentAddressLookupTable(table, accounts)) };
      },
    }),
    route({
      operationId: 'fetchAddressLookupTableDetails',
      method: 'post',
      path: '/api/v1/address-lookup-tables/single',
      tag,
      summary:
        'Fetch Address Lookup Table Details: the record with its addresses and flags read from the network (frozen: no authority onchain; deactivated: a deactivation slot is set; closed: the account is gone). 404 when the table is not on record.',
      role: 'READ',
      body: singleAddressLookupTableBody,
      successStatus: 200,
      response: addressLookupTableRecord,
      async handler(ctx, body) {
        const { em, scope } = await actingScope(ctx, deps, body.tenancyConfig);
        const table = await findTableByLookup(em, scope, body.itemData.addressLookupTable, 'itemData.addressLookupTable');
        const state = await readLookupTable(deps.networks.get(scope.cluster)!, table.address);
        const view = { addresses: state?.addresses ?? table.componentAddresses, ...tableFlags(state) };
        return presentAddressLookupTable(table, await accountsOf(em, scope.organizationId, scope.cluster, [table], view.addresses), view);
      },
    }),
  ];
}
