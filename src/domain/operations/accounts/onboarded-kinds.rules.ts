/**
 * Create Account onboarding (`alreadyOnchain`) of a `NONCE` or `ADDRESS_LOOKUP_TABLE` account
 * (API.md section 10, docs/behaviour/accounts.md): the chain is read, the account checked against
 * it (owner program, initialized nonce or table, its authority), and it becomes a nonce account or
 * a lookup table like a created one. Pure: the lookup step reads the chain and the records.
 */
import { getNonceDecoder, getNonceSize, NonceState, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import type { CreateAccountItemData } from './account.inputs';
import { conflict, validationError } from '../../errors';
import { requireTable, tableFlags, type TableState } from '../address-lookup-tables/address-lookup-table.rules';

/** The kinds whose onboarding reads the chain and records a nonce account or a table beside the account. */
export const chainVerifiedKinds = ['NONCE', 'ADDRESS_LOOKUP_TABLE'] as const;
export type ChainVerifiedKind = (typeof chainVerifiedKinds)[number];

/** The kind to verify against the chain, or null (another kind, or not an onboarding). */
export function chainVerifiedKind(item: CreateAccountItemData): ChainVerifiedKind | null {
  const type = item.offchainReferences?.type ?? 'WALLET';
  return item.alreadyOnchain && (chainVerifiedKinds as readonly string[]).includes(type) ? (type as ChainVerifiedKind) : null;
}

/** Request-only: a nonce account or table is always read from the chain (its authority is recorded). VALIDATION_ERROR naming the field. */
export function validateChainVerifiedKind(item: CreateAccountItemData): void {
  const kind = chainVerifiedKind(item);
  if (kind && item.skipBlockchainExistenceVerification)
    throw validationError(
      'itemData.skipBlockchainExistenceVerification',
      `a ${kind} account is read from the chain when it is onboarded (its owner program and authority are recorded); omit skipBlockchainExistenceVerification`,
    );
}

/** An account as the network holds it. */
export interface ChainAccount {
  owner: string;
  data: Uint8Array;
}

/**
 * A nonce account onboarded: owned by the System Program, holding an initialized nonce. Its
 * authority and nonce value; VALIDATION_ERROR naming itemData.onchainId otherwise.
 */
export function checkOnboardedNonce(account: ChainAccount | null, address: string, cluster: string): { authority: string; nonce: string } {
  const field = 'itemData.onchainId';
  if (!account) throw validationError(field, `no account at ${address} on ${cluster}`);
  if (account.owner !== SYSTEM_PROGRAM_ADDRESS)
    throw validationError(
      field,
      `${address} is not a nonce account: its owner program is ${account.owner}, not the System Program (${SYSTEM_PROGRAM_ADDRESS})`,
    );
  const decoded = account.data.length === getNonceSize() ? getNonceDecoder().decode(account.data) : null;
  if (!decoded || decoded.state !== NonceState.Initialized)
    throw validationError(field, `${address} is not a nonce account: it holds no initialized nonce (${account.data.length} bytes of data)`);
  return { authority: decoded.authority, nonce: decoded.blockhash };
}

/**
 * A table onboarded with Create Account: the Address Lookup Table program's account, not frozen
 * (a frozen table has no authority to record: Create Address Lookup Table onboards it naming one).
 * VALIDATION_ERROR naming itemData.onchainId.
 */
export function checkOnboardedLookupTable(
  state: TableState | null | { notATable: string },
  address: string,
  cluster: string,
): TableState & { authority: string } {
  const field = 'itemData.onchainId';
  requireTable(state, address, cluster, field);
  if (state.authority === null)
    throw validationError(
      field,
      `the table ${address} is frozen (it has no authority onchain); onboard it with Create Address Lookup Table (addressLookupTable.alreadyOnchain) naming its authority`,
    );
  return state as TableState & { authority: string };
}

/** A table is onboarded once, whichever operation onboarded it: one on record is CONFLICT naming itemData.onchainId. */
export function checkTableNotOnRecord(onRecord: boolean, address: string): void {
  if (onRecord) throw conflict('itemData.onchainId', `address lookup table ${address} is already on record`);
}

/** The flags an onboarded table's record starts with, as the network has them. */
export const onboardedTableFlags = (state: TableState) => {
  const { frozen, deactivated } = tableFlags(state);
  return { frozen, deactivated, deactivationSlot: state.deactivationSlot?.toString() ?? null };
};
