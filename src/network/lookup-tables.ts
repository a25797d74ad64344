/** Address lookup tables as the network holds them: the table account, decoded, and the SlotHashes sysvar its rules depend on. */
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ADDRESS, getAddressLookupTableDecoder } from '@solana-program/address-lookup-table';
import { isSome } from '@solana/kit';
import { slotHashSlots, type TableState } from '../domain/operations/address-lookup-tables/address-lookup-table.rules';
import type { SvmNetwork } from './svm-network';

const SLOT_HASHES_SYSVAR = 'SysvarS1otHashes111111111111111111111111111';
/** The program's "never deactivated" slot. */
const NOT_DEACTIVATED = 0xffff_ffff_ffff_ffffn;

/** The account at the address belongs to another program: it is no table (a refusal, not an outage). */
export class NotALookupTableError extends Error {
  override readonly name = 'NotALookupTableError';
}

/** The table at `address` (null when no account is there); an account of another program is not a table. */
export async function readLookupTable(network: SvmNetwork, address: string): Promise<TableState | null> {
  const account = await network.getAccount(address);
  if (!account || account.data.length === 0) return null;
  if (account.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM_ADDRESS)
    throw new NotALookupTableError(`${address} is not an address lookup table (owner ${account.owner})`);
  const table = getAddressLookupTableDecoder().decode(account.data);
  return {
    authority: isSome(table.authority) ? table.authority.value : null,
    deactivationSlot: table.deactivationSlot === NOT_DEACTIVATED ? null : table.deactivationSlot,
    lastExtendedSlot: table.lastExtendedSlot,
    lastExtendedSlotStartIndex: table.lastExtendedSlotStartIndex,
    addresses: table.addresses.map(String),
  };
}

/**
 * The table at `address` for an onboarding: another program's account is answered as `notATable`
 * (the client's to fix); an unreachable node still throws (an outage, retried).
 */
export function readLookupTableToOnboard(network: SvmNetwork, address: string): Promise<TableState | null | { notATable: string }> {
  return readLookupTable(network, address).catch((error: unknown) => {
    if (error instanceof NotALookupTableError) return { notATable: error.message };
    throw error;
  });
}

/** The account's lamports (what closing it refunds), 0 when gone. */
export async function tableLamports(network: SvmNetwork, address: string): Promise<bigint> {
  return (await network.getAccount(address))?.lamports ?? 0n;
}

/** The slots SlotHashes lists now (newest first): the cool-down rule and the newest completed slot. */
export async function readSlotHashes(network: SvmNetwork): Promise<bigint[]> {
  const account = await network.getAccount(SLOT_HASHES_SYSVAR);
  return account ? slotHashSlots(account.data) : [];
}
