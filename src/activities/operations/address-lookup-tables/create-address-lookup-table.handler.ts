/**
 * Create Address Lookup Table: a new table at the address derived from its authority and a recent
 * slot, holding the component addresses (create and the first CREATE_BATCH in one transaction, the
 * rest in extending transactions of the same write); or, with `alreadyOnchain`, an existing table
 * onboarded as the network holds it.
 */
import { address, createNoopSigner, type ProgramDerivedAddress, type ProgramDerivedAddressBump } from '@solana/kit';
import { findAddressLookupTablePda, getCreateLookupTableInstruction, getExtendLookupTableInstruction } from '@solana-program/address-lookup-table';
import { AddressLookupTable, LedgerTransaction } from '../../../db/entities';
import { findAccountByLookup, assertMaySign } from '../../../db/repositories/accounts.repository';
import { partTransactionId } from '../../../domain/ids';
import type { CreateAddressLookupTableItemData } from '../../../domain/operations/address-lookup-tables/address-lookup-table.inputs';
import {
  checkCapacity,
  checkNotOnRecord,
  checkOnboardedTable,
  checkTableManaged,
  createBatch,
  createTransactionCount,
  newTableRecord,
  requireFreeSlot,
  type NewTable,
} from '../../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { paidBy, resolveFeePayer, offchainOnly } from '../fee-payer';
import { readLookupTableToOnboard, readSlotHashes } from '../../../network/lookup-tables';
import { appendComponents, resolveComponents, type Component } from './lookup-table-components';
import { landed, scopeOf } from '../operation-handler';
import type { OperationHandler } from '../operation-handler';

interface CreateTableData extends NewTable {
  /** The recent slot's bump the address is derived from (0: onboarding). */
  bump: number;
  components: Component[];
}

/** Recent slots tried, newest first, for an address no other table took (two creates by one authority in one slot would share it). */
const SLOT_CANDIDATES = 8;

export const createAddressLookupTableHandler: OperationHandler<CreateAddressLookupTableItemData, CreateTableData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const network = deps.networks.get(request.cluster)!;
    const tableId = request.newRecordId!;
    const payload = item.addressLookupTable;
    const components = await resolveComponents(em, scope, item.componentAddresses ?? [], 'itemData.componentAddresses');
    const authorityAccount = await findAccountByLookup(em, scope, item.authority, 'itemData.authority');

    if (payload.alreadyOnchain) {
      const field = 'itemData.addressLookupTable.onchainId';
      checkNotOnRecord(!!(await em.findOne(AddressLookupTable, { ...scope, address: payload.onchainId! })), payload.onchainId!, field);
      // Only "another program's account" is the client's to fix; an unreachable node stays an outage (retried, 503).
      const read = await readLookupTableToOnboard(network, payload.onchainId!);
      const state = checkOnboardedTable(read, payload.onchainId!, request.cluster, authorityAccount.address, components, field);
      checkTableManaged(payload.managed, authorityAccount.managed);
      const byAddress = new Map(components.map((c) => [c.address, c.accountId]));
      const data: CreateTableData = {
        tableId,
        address: payload.onchainId!,
        recentSlot: null,
        bump: 0,
        authority: authorityAccount.address,
        authorityAccountId: authorityAccount.id,
        managed: authorityAccount.managed,
        components: state.addresses.map((a) => ({ address: a, accountId: byAddress.get(a) ?? null })),
      };
      return offchainOnly(deps.feePayerAddress, data);
    }

    // The authority signs the creation and every later change: a managed key this organization may use.
    assertMaySign(authorityAccount, request.organizationId, request.organizationExternalId, 'itemData.authority');
    checkCapacity(0, components.length, 'itemData.componentAddresses');
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const authority = address(authorityAccount.address);
    let found: { address: string; bump: number; slot: bigint } | undefined;
    // Completed slots the network still lists in SlotHashes, as the program requires of recentSlot.
    for (const slot of (await readSlotHashes(network)).slice(0, SLOT_CANDIDATES)) {
      const [pda, bump] = await findAddressLookupTablePda({ authority, recentSlot: slot });
      const taken =
        (await em.findOne(AddressLookupTable, { ...scope, address: pda })) ||
        (await em.findOne(LedgerTransaction, { ...scope, reservedAddress: pda, success: null, id: { $ne: partTransactionId(request.transactionId, 0) } })) ||
        (await network.accountExists(pda));
      if (!taken) {
        found = { address: pda, bump, slot };
        break;
      }
    }
    const free = requireFreeSlot(found);
    const data: CreateTableData = {
      tableId,
      address: free.address,
      recentSlot: free.slot.toString(),
      bump: free.bump,
      authority: authorityAccount.address,
      authorityAccountId: authorityAccount.id,
      managed: true,
      components,
    };
    // The table's rent comes from the fee payer, like the network fee (no debit limit applies).
    return { ...paidBy(feePayer, data, authorityAccount.address), reservesAddress: free.address, transactionCount: createTransactionCount(components.length) };
  },

  tooLargeHint: 'Send fewer componentAddresses and add the rest with Extend Address Lookup Table.',

  instructions(_request, resolved, part) {
    const data = resolved.data;
    const table = address(data.address);
    const authority = createNoopSigner(address(data.authority));
    const payer = createNoopSigner(address(resolved.feePayer));
    const addresses = createBatch(data.components, part).map((c) => address(c.address));
    const extend = addresses.length ? [getExtendLookupTableInstruction({ address: table, authority, payer, addresses })] : [];
    if (part > 0) return extend;
    return [
      getCreateLookupTableInstruction({
        address: [table, data.bump as ProgramDerivedAddressBump] as ProgramDerivedAddress,
        authority: authority.address,
        payer,
        recentSlot: BigInt(data.recentSlot!),
        bump: data.bump,
      }),
      ...extend,
    ];
  },

  async record(em, request, resolved, outcome, tx, at, part) {
    const data = resolved.data;
    if (outcome && !landed(outcome)) return undefined;
    let table = await em.findOne(AddressLookupTable, { id: data.tableId });
    if (!table) {
      table = em.create(
        AddressLookupTable,
        newTableRecord(data, scopeOf(request), request.itemData.addressLookupTable, outcome ? { transactionId: tx?.id ?? null, at } : null),
      );
    }
    appendComponents(table, data.recentSlot === null ? data.components : createBatch(data.components, part), outcome ? tx : null, at);
    if (!outcome) linkRecords(tx, [table.id], true);
    return { onchainId: data.address, offchainId: data.tableId };
  },
};
