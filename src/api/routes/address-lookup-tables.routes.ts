/** Address lookup tables: Create, Extend, Update (freeze, deactivate, close), Fetch (bulk) and Fetch Details. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, AddressLookupTable } from '../../db/entities';
import { findTableByLookup } from '../../db/repositories/address-lookup-tables.repository';
import { translateItemQuery } from '../../domain/item-query';
import { tableFlags } from '../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import { readLookupTable } from '../../network/lookup-tables';
import { createAddressLookupTableBody, extendAddressLookupTableBody, singleAddressLookupTableBody, updateAddressLookupTableBody } from '../codecs/address-lookup-table.codecs';
import { bulkBody } from '../codecs/common.codecs';
import type { ApiDeps } from '../context';
import { presentAddressLookupTable } from '../presenters/address-lookup-table.presenter';
import { addressLookupTablePage, addressLookupTableRecord, createAddressLookupTableResponse, extendAddressLookupTableResponse, updateAddressLookupTableResponse } from '../../domain/responses/address-lookup-table.responses';
import { route, type RouteSpec } from '../route';
import { actingCaller, actingScope } from '../tenancy';
import { addressLookupTableQuery } from './query-fields';
import { findPage, pageFields } from '../../db/repositories/bulk-pages.repository';
import { writeRoute } from './write-route';

const tag = 'Address lookup tables';

/** The onboarded accounts among the tables' authorities and components, by address. */
async function accountsOf(em: EntityManager, organizationId: string, cluster: string, tables: AddressLookupTable[], extra: string[] = []): Promise<Map<string, Account>> {
  const addresses = [...new Set([...tables.flatMap((t) => [t.authorityAddress, ...t.componentAddresses]), ...extra])];
  if (addresses.length === 0) return new Map();
  const accounts = await em.find(Account, { organizationId, cluster, address: { $in: addresses } });
  return new Map(accounts.map((a) => [a.address, a]));
}

export function addressLookupTableRoutes(deps: ApiDeps): RouteSpec[] {
  return [
    writeRoute(deps, {
      operationId: 'createAddressLookupTable',
      method: 'post',
      path: '/api/v1/address-lookup-tables',
      tag,
      summary:
        "Create Address Lookup Table: a new table at the address derived from the authority and a recent slot, holding componentAddresses (onboarded accounts, or offPlatform onchainIds; at most 256, each once). The authority must be a managed account this organization may sign with. The first 20 addresses go in with the creating transaction, the rest in further transactions of 22 of the same write (the answer's svmTransaction is the last). The fee payer pays the table's rent. With addressLookupTable.alreadyOnchain and onchainId, an existing table is onboarded as the network holds it (no transaction). 409: the table is already on record. Once created, the organization's writes compress their messages through its active tables.",
      body: createAddressLookupTableBody,
      successStatus: 201,
      response: createAddressLookupTableResponse,
      operation: 'CREATE_ADDRESS_LOOKUP_TABLE',
      creates: true,
      answer: 'newAddressLookupTable',
    }),
    writeRoute(deps, {
      operationId: 'extendAddressLookupTable',
      method: 'patch',
      path: '/api/v1/address-lookup-tables/extend',
      tag,
      summary:
        'Extend Address Lookup Table: appends the componentAddresses the table does not hold yet (22 a transaction, one write), signed by its managed authority. 400 before anything is signed: every address already there, more than 256 in all, a frozen, deactivated or closed table. New addresses are usable by transactions from the slot after they land.',
      body: extendAddressLookupTableBody,
      successStatus: 200,
      response: extendAddressLookupTableResponse,
      operation: 'EXTEND_ADDRESS_LOOKUP_TABLE',
      answer: 'extendedAddressLookupTable',
    }),
    writeRoute(deps, {
      operationId: 'updateAddressLookupTable',
      method: 'patch',
      path: '/api/v1/address-lookup-tables',
      tag,
      summary:
        "Update Address Lookup Table: one of freeze (the authority is removed for good: the addresses never change again; not an empty or deactivated table), deactivate (new transactions stop using it), or close (only once the deactivation cooled down, i.e. its slot left the network's SlotHashes, about 513 slots; the table's lamports go to refundDestination, default the write's fee payer). Each is one-way; what the network would refuse is 400 before anything is signed.",
      body: updateAddressLookupTableBody,
      successStatus: 200,
      response: updateAddressLookupTableResponse,
      operation: 'UPDATE_ADDRESS_LOOKUP_TABLE',
      answer: 'updatedAddressLookupTable',
    }),
    route({
      operationId: 'fetchAddressLookupTables',
      method: 'post',
      path: '/api/v1/address-lookup-tables/bulk',
      tag,
      summary: 'Fetch Address Lookup Tables with filter, sort and paging (spec 4.1 fields; default sort managed DESC); detailed records as the service\'s writes left them.',
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
      summary: 'Fetch Address Lookup Table Details: the record with its addresses and flags read from the network (frozen: no authority onchain; deactivated: a deactivation slot is set; closed: the account is gone). 404 when the table is not on record.',
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
