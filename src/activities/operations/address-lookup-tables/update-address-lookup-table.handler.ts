/**
 * Update Address Lookup Table: freeze (the authority removed for good), deactivate, or close (its
 * lamports to refundDestination, default the fee payer) once the deactivation cooled down; each is
 * one-way and checked against the table as the network holds it before anything is signed.
 */
import { address, createNoopSigner } from '@solana/kit';
import { getCloseLookupTableInstruction, getDeactivateLookupTableInstruction, getFreezeLookupTableInstruction } from '@solana-program/address-lookup-table';
import { AddressLookupTable } from '../../../db/entities';
import { findAccountByLookup, offPlatformAddress, requireSigner } from '../../../db/repositories/accounts.repository';
import { findTableByLookup } from '../../../db/repositories/address-lookup-tables.repository';
import type { UpdateAddressLookupTableItemData } from '../../../domain/operations/address-lookup-tables/address-lookup-table.inputs';
import { checkUpdate, coolDownOver } from '../../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import { paidBy, resolveFeePayer } from '../fee-payer';
import { readLookupTable, readSlotHashes } from '../../../network/lookup-tables';
import { landed, scopeOf } from '../operation-handler';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import type { OperationHandler } from '../operation-handler';

interface UpdateTableData {
  tableId: string;
  address: string;
  authority: string;
  change: 'freeze' | 'deactivate' | 'close';
  /** Where close sends the table's lamports. */
  recipient: string | null;
}

export const updateAddressLookupTableHandler: OperationHandler<UpdateAddressLookupTableItemData, UpdateTableData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const field = 'itemData.addressLookupTable';
    const network = deps.networks.get(request.cluster)!;
    const table = await findTableByLookup(em, scope, item.addressLookupTable, field);
    const state = await readLookupTable(network, table.address);
    const cooledDown = state?.deactivationSlot != null && coolDownOver(state.deactivationSlot, await readSlotHashes(network));
    checkUpdate(item, state, cooledDown, field);
    const authority = await requireSigner(em, table.authorityAccountId, field, "table's authority");
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const change = item.freeze ? 'freeze' : item.deactivate ? 'deactivate' : 'close';
    let recipient: string | null = null;
    if (change === 'close') {
      const destination = item.refundDestination;
      const at = 'itemData.refundDestination';
      recipient = !destination
        ? feePayer.address
        : destination.offPlatform
          ? offPlatformAddress(destination, at)
          : (await findAccountByLookup(em, scope, destination, at)).address;
    }
    return paidBy(feePayer, { tableId: table.id, address: table.address, authority, change, recipient }, authority);
  },

  instructions(_request, resolved) {
    const data = resolved.data;
    const input = { address: address(data.address), authority: createNoopSigner(address(data.authority)) };
    if (data.change === 'freeze') return [getFreezeLookupTableInstruction(input)];
    if (data.change === 'deactivate') return [getDeactivateLookupTableInstruction(input)];
    return [getCloseLookupTableInstruction({ ...input, recipient: address(data.recipient!) })];
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const data = resolved.data;
    const table = await em.findOneOrFail(AddressLookupTable, { id: data.tableId });
    if (data.change === 'freeze') table.frozen = true;
    if (data.change === 'deactivate')
      Object.assign(table, { deactivated: true, deactivationSlot: outcome && 'slot' in outcome ? (outcome.slot ?? null) : null });
    if (data.change === 'close') table.closed = true;
    Object.assign(table, { lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
    linkRecords(tx, [table.id], true);
    return { onchainId: data.address, offchainId: data.tableId };
  },
};
