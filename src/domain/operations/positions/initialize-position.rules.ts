/**
 * Initialize Position: its rules on the request, and what an explicit position's account
 * needs onchain to become a token account. Pure: the lookup step supplies the account as the chain
 * holds it.
 */
import { validationError } from '../../errors';
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
export function explicitAccountPreparation(accountAddress: string, onchain: OnchainSystemAccount | null, mint: { address: string; size: number | null }, field: string): { topUp: bigint; allocate: boolean; size: number } {
  if (!onchain) throw validationError(field, `${accountAddress} does not exist onchain; create it with Create Account first`);
  if (onchain.owner !== SYSTEM_PROGRAM) throw validationError(field, `${accountAddress} is owned by ${onchain.owner}; an explicit position must be a System Program account holding no data`);
  const { size } = mint;
  if (size === null) throw validationError('itemData.positionToInitialize.financialInstrument', `the mint ${mint.address} does not exist onchain`);
  if (onchain.dataLength !== 0 && onchain.dataLength !== size) {
    throw validationError(field, `${accountAddress} holds ${onchain.dataLength} bytes; an explicit position of this instrument needs none (they are allocated here) or exactly ${size}`);
  }
  const rent = rentExemptMinimum(size);
  return { topUp: rent > onchain.lamports ? rent - onchain.lamports : 0n, allocate: onchain.dataLength === 0, size };
}
