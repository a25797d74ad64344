/** Address lookup tables: Create, Extend, Update (freeze, deactivate, close), Fetch (bulk) and Fetch Details. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, AddressLookupTable } from '../../db/entities';
import { findTableByLookup } from '../../db/repositories/address-lookup-tables.repository';
import { tableFlags } from '../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import { readLookupTable } from '../../network/lookup-tables';
import { singleAddressLookupTableBody } from '../codecs/address-lookup-table.codecs';
import type { ApiDeps } from '../context';
import { presentAddressLookupTable } from '../presenters/address-lookup-table.presenter';
import { addressLookupTablePage, addressLookupTableRecord } from '../../domain/responses/address-lookup-table.responses';
import type { RouteSpec } from '../route';
import { pageRoute } from './bulk-route';
import { singleRoute } from './single-route';
import { addressLookupTableQuery } from './query-fields';
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
    pageRoute(deps, {
      operationId: 'fetchAddressLookupTables',
      path: '/api/v1/address-lookup-tables/bulk',
      tag,
      summary:
        "Fetch Address Lookup Tables with filter, sort and paging (spec 4.1 fields; default sort managed DESC); detailed records as the service's writes left them.",
      response: addressLookupTablePage,
      entity: AddressLookupTable,
      query: addressLookupTableQuery,
      related: (em, tables, scope) => accountsOf(em, scope.organizationId, scope.cluster, tables),
      present: (table, accounts) => presentAddressLookupTable(table, accounts),
    }),
    singleRoute(deps, {
      operationId: 'fetchAddressLookupTableDetails',
      path: '/api/v1/address-lookup-tables/single',
      tag,
      summary:
        'Fetch Address Lookup Table Details: the record with its addresses and flags read from the network (frozen: no authority onchain; deactivated: a deactivation slot is set; closed: the account is gone). 404 when the table is not on record.',
      body: singleAddressLookupTableBody,
      response: addressLookupTableRecord,
      find: ({ em, scope, body }) => findTableByLookup(em, scope, body.itemData.addressLookupTable, 'itemData.addressLookupTable'),
      async present(table, { em, scope }) {
        const state = await readLookupTable(deps.networks.get(scope.cluster)!, table.address);
        const view = { addresses: state?.addresses ?? table.componentAddresses, ...tableFlags(state) };
        return presentAddressLookupTable(table, await accountsOf(em, scope.organizationId, scope.cluster, [table], view.addresses), view);
      },
    }),
  ];
}
