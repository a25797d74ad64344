/**
 * Initialize Position: its rules on the request, and what an explicit position's account
 * needs onchain to become a token account. Pure: the lookup step supplies the account as the chain
 * holds it.
 */
import { conflict, validationError } from '../../errors';
import type { AccountLookupInput } from '../../inputs/common.inputs';
import type { InitializePositionItemData } from './position.inputs';
import { rentExemptMinimum } from '../../token-extensions';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** The owner and instrument a position is initialized for; throws VALIDATION_ERROR naming the missing one. */
export function positionToInitialize(item: InitializePositionItemData): { owner: AccountLookupInput; financialInstrument: AccountLookupInput } {
  const f = 'itemData.positionToInitialize';
  const { owner, financialInstrument } = item.positionToInitialize;
  if (!owner) throw validationError(`${f}.owner`, 'owner is required');
  if (!financialInstrument) throw validationError(`${f}.financialInstrument`, 'financialInstrument is required');
  return { owner, financialInstrument };
}

/** The request's own rules (the registry's validate). */
export function validateInitializePosition(item: InitializePositionItemData): void {
  positionToInitialize(item);
}

/**
 * The account an explicit position names, as onboarded: not already an active position (CONFLICT),
 * not the owner itself, not a fee payer (VALIDATION_ERROR); each naming `field`.
 */
export function checkExplicitAccount(
  account: { address: string; canPayFees: boolean; globalFeePayerForOrgs: readonly string[] },
  alreadyActive: boolean,
  owner: string,
  field: string,
): void {
  if (alreadyActive) throw conflict(field, `the position ${account.address} is already active`);
  if (account.address === owner) throw validationError(field, 'a position cannot be its own owner: name another account as owner');
  if (account.canPayFees || account.globalFeePayerForOrgs.length)
    throw validationError(field, `${account.address} pays fees; a fee payer cannot become a token account`);
}

/** The position's record, if any: an ACTIVE one is CONFLICT naming `field` (an inactive one is reopened). */
export function checkNotActive(existing: { status: string } | null, positionAddress: string, field: string): void {
  if (existing?.status === 'ACTIVE') throw conflict(field, `the position ${positionAddress} is already active`);
}

/** `unfreeze` of a position frozen by default needs the freeze authority onboarded (VALIDATION_ERROR naming unfreeze). */
export function requireThawAuthority<A>(authority: A | null): A {
  if (!authority) throw validationError('itemData.unfreeze', 'the freeze authority is not onboarded, so the service cannot thaw the position');
  return authority;
}

export interface OnchainSystemAccount {
  owner: string;
  lamports: bigint;
  dataLength: number;
}

/**
 * How an explicit position's account becomes a token account of the instrument (`mint`: its address
 * and the token account size it needs, null when the mint is not onchain): the lamports the fee payer
 * adds so it is rent-exempt, and whether it must be allocated (false: it holds exactly `size` bytes
 * already, so it is only assigned). Throws VALIDATION_ERROR naming `field` when the account is
 * missing, owned by a program, or holds another size of data, or naming the instrument when the mint
 * is missing.
 */
export function explicitAccountPreparation(
  accountAddress: string,
  onchain: OnchainSystemAccount | null,
  mint: { address: string; size: number | null },
  field: string,
): { topUp: bigint; allocate: boolean; size: number } {
  if (!onchain) throw validationError(field, `${accountAddress} does not exist onchain; create it with Create Account first`);
  if (onchain.owner !== SYSTEM_PROGRAM)
    throw validationError(field, `${accountAddress} is owned by ${onchain.owner}; an explicit position must be a System Program account holding no data`);
  const { size } = mint;
  if (size === null) throw validationError('itemData.positionToInitialize.financialInstrument', `the mint ${mint.address} does not exist onchain`);
  if (onchain.dataLength !== 0 && onchain.dataLength !== size) {
    throw validationError(
      field,
      `${accountAddress} holds ${onchain.dataLength} bytes; an explicit position of this instrument needs none (they are allocated here) or exactly ${size}`,
    );
  }
  const rent = rentExemptMinimum(size);
  return { topUp: rent > onchain.lamports ? rent - onchain.lamports : 0n, allocate: onchain.dataLength === 0, size };
}
