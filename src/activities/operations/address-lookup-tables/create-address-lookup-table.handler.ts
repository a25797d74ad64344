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
import { conflict, validationError } from '../../../domain/errors';
import { partTransactionId } from '../../../domain/ids';
import type { CreateAddressLookupTableItemData } from '../../../domain/operations/address-lookup-tables/address-lookup-table.inputs';
import { checkCapacity, createBatch, createTransactionCount } from '../../../domain/operations/address-lookup-tables/address-lookup-table.rules';
import { resolveFeePayer } from '../fee-payer';
import { readLookupTable, readSlotHashes } from '../../../network/lookup-tables';
import { appendComponents, resolveComponents, type Component } from './lookup-table-components';
import { landed } from '../operation-handler';
import type { OperationHandler } from '../operation-handler';

interface CreateTableData {
  tableId: string;
  address: string;
  /** The recent slot and bump the address is derived from (null: onboarding). */
  recentSlot: string | null;
  bump: number;
  authority: string;
  authorityAccountId: string;
  managed: boolean;
  components: Component[];
}

/** Recent slots tried, newest first, for an address no other table took (two creates by one authority in one slot would share it). */
const SLOT_CANDIDATES = 8;

export const createAddressLookupTableHandler: OperationHandler<CreateAddressLookupTableItemData, CreateTableData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = { organizationId: request.organizationId, cluster: request.cluster };
    const network = deps.networks.get(request.cluster)!;
    const tableId = request.newRecordId!;
    const payload = item.addressLookupTable;
    if (payload.onchainId && !payload.alreadyOnchain) throw validationError('itemData.addressLookupTable.onchainId', "a new table's address is derived from its authority and a recent slot; onchainId goes with alreadyOnchain");
    if (payload.alreadyOnchain && !payload.onchainId) throw validationError('itemData.addressLookupTable.onchainId', 'onchainId names the existing table to onboard');
    const components = await resolveComponents(em, scope, item.componentAddresses ?? [], 'itemData.componentAddresses');
    const authorityAccount = await findAccountByLookup(em, scope, item.authority, 'itemData.authority');

    if (payload.alreadyOnchain) {
      const field = 'itemData.addressLookupTable.onchainId';
      if (await em.findOne(AddressLookupTable, { ...scope, address: payload.onchainId! })) throw conflict(field, `address lookup table ${payload.onchainId} is already on record`);
      const state = await readLookupTable(network, payload.onchainId!).catch((error: Error) => {
        throw validationError(field, error.message);
      });
      if (!state) throw validationError(field, `no address lookup table at ${payload.onchainId} on ${request.cluster}`);
      if (state.authority !== null && state.authority !== authorityAccount.address) throw validationError('itemData.authority', `the table's authority is ${state.authority}`);
      const missing = components.findIndex((c) => !state.addresses.includes(c.address));
      if (missing >= 0) throw validationError(`itemData.componentAddresses.${missing}`, `${components[missing].address} is not in the table; onboard the table, then extend it`);
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
      return { needsTransaction: false, feePayer: deps.feePayerAddress, signers: [], debits: [], webhooks: { preSubmit: false, postSubmit: false }, data };
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
      const taken = (await em.findOne(AddressLookupTable, { ...scope, address: pda })) || (await em.findOne(LedgerTransaction, { ...scope, reservedAddress: pda, success: null, id: { $ne: partTransactionId(request.transactionId, 0) } })) || (await network.accountExists(pda));
      if (!taken) {
        found = { address: pda, bump, slot };
        break;
      }
    }
    if (!found) throw conflict('itemData.authority', 'every recent slot already gave this authority a table; try again in a moment');
    const data: CreateTableData = {
      tableId,
      address: found.address,
      recentSlot: found.slot.toString(),
      bump: found.bump,
      authority: authorityAccount.address,
      authorityAccountId: authorityAccount.id,
      managed: true,
      components,
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, authorityAccount.address])],
      // The table's rent comes from the fee payer, like the network fee (no debit limit applies).
      debits: [],
      webhooks: feePayer.webhooks,
      reservesAddress: found.address,
      transactionCount: createTransactionCount(components.length),
      data,
    };
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
    return [getCreateLookupTableInstruction({ address: [table, data.bump as ProgramDerivedAddressBump] as ProgramDerivedAddress, authority: authority.address, payer, recentSlot: BigInt(data.recentSlot!), bump: data.bump }), ...extend];
  },

  async record(em, request, resolved, outcome, tx, at, part) {
    const data = resolved.data;
    if (outcome && !landed(outcome)) return undefined;
    let table = await em.findOne(AddressLookupTable, { id: data.tableId });
    if (!table) {
      table = em.create(AddressLookupTable, {
        id: data.tableId,
        organizationId: request.organizationId,
        cluster: request.cluster,
        address: data.address,
        authorityAddress: data.authority,
        authorityAccountId: data.authorityAccountId,
        managed: data.managed,
        componentAddresses: [],
        componentAccountIds: [],
        wasOnchainAlready: data.recentSlot === null,
        frozen: false,
        deactivated: false,
        closed: false,
        code: request.itemData.addressLookupTable.offchainReferences?.code ?? null,
        name: request.itemData.addressLookupTable.offchainReferences?.name ?? null,
        comments: request.itemData.addressLookupTable.comments ?? null,
        creationTransactionId: outcome ? (tx?.id ?? null) : null,
        creationTransactionAt: outcome ? at : null,
      });
    }
    appendComponents(table, data.recentSlot === null ? data.components : createBatch(data.components, part), outcome ? tx : null, at);
    if (tx && !outcome) tx.accountIds = [...new Set([table.id, ...tx.accountIds])];
    return { onchainId: data.address, offchainId: data.tableId };
  },
};
