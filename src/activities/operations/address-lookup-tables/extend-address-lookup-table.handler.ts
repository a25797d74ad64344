/**
 * Extend Address Lookup Table: the component addresses not already in the table appended, EXTEND_BATCH
 * a transaction, signed by the table's authority. A frozen, deactivated or closed table, or one that
 * would pass 256 addresses, is refused before anything is signed.
 */
import { address, createNoopSigner } from '@solana/kit';
import { getExtendLookupTableInstruction } from '@solana-program/address-lookup-table';
import { AddressLookupTable } from '../../../db/entities';
import { requireSigner } from '../../../db/repositories/accounts.repository';
import { findTableByLookup } from '../../../db/repositories/address-lookup-tables.repository';
import type { ExtendAddressLookupTableItemData } from '../../../domain/operations/address-lookup-tables/address-lookup-table.inputs';
import {
  checkCapacity,
  checkExtendable,
  componentsToAppend,
  extendBatch,
  extendTransactionCount,
  tableFlags,
} from '../../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import { paidBy, resolveFeePayer } from '../fee-payer';
import { readLookupTable } from '../../../network/lookup-tables';
import { appendComponents, resolveComponents, type Component } from './lookup-table-components';
import { landed, scopeOf } from '../operation-handler';
import type { OperationHandler } from '../operation-handler';

interface ExtendTableData {
  tableId: string;
  address: string;
  authority: string;
  /** The addresses this write appends (those not in the table yet), in order. */
  components: Component[];
}

export const extendAddressLookupTableHandler: OperationHandler<ExtendAddressLookupTableItemData, ExtendTableData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const field = 'itemData.addressLookupTable';
    const table = await findTableByLookup(em, scope, item.addressLookupTable, field);
    const state = await readLookupTable(deps.networks.get(request.cluster)!, table.address);
    checkExtendable(tableFlags(state), field);
    const authority = await requireSigner(em, table.authorityAccountId, field, "table's authority");
    const components = componentsToAppend(await resolveComponents(em, scope, item.componentAddresses, 'itemData.componentAddresses'), state!.addresses);
    checkCapacity(state!.addresses.length, components.length, 'itemData.componentAddresses');
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    return {
      ...paidBy(feePayer, { tableId: table.id, address: table.address, authority, components }, authority),
      transactionCount: extendTransactionCount(components.length),
    };
  },

  instructions(_request, resolved, part) {
    const data = resolved.data;
    const addresses = extendBatch(data.components, part).map((c) => address(c.address));
    return [
      getExtendLookupTableInstruction({
        address: address(data.address),
        authority: createNoopSigner(address(data.authority)),
        payer: createNoopSigner(address(resolved.feePayer)),
        addresses,
      }),
    ];
  },

  async record(em, _request, resolved, outcome, tx, at, part) {
    if (!landed(outcome)) return undefined;
    const data = resolved.data;
    const table = await em.findOneOrFail(AddressLookupTable, { id: data.tableId });
    appendComponents(table, extendBatch(data.components, part), tx, at);
    return { onchainId: data.address, offchainId: data.tableId };
  },
};
