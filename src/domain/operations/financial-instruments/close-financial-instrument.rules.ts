/**
 * Close Financial Instrument: which instruments can be closed, and the instruction that closes the
 * mint. Pure: the lookup step supplies the instrument record and the supply the chain holds.
 */
import { getCloseAccountInstruction } from '@solana-program/token-2022';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import { validationError } from '../../errors';

const field = 'itemData.financialInstrument';

/**
 * Checks that the instrument can be closed at all: ACTIVE, TOKEN_2022 with a closing authority (Close
 * Mint). Throws VALIDATION_ERROR naming itemData.financialInstrument.
 */
export function checkClosable(instrument: { status: string; version: string; hasClosingAuthority: boolean }): void {
  if (instrument.status !== 'ACTIVE') throw validationError(field, `the instrument is already ${instrument.status}`);
  if (instrument.version !== 'TOKEN_2022' || !instrument.hasClosingAuthority)
    throw validationError(field, 'only a TOKEN_2022 instrument with a closingAuthority (Close Mint) can be closed');
}

/** Only a mint without supply closes. Throws VALIDATION_ERROR naming itemData.financialInstrument. */
export function checkNoSupply(supply: bigint): void {
  if (supply !== 0n) throw validationError(field, `the instrument still has a supply of ${supply} base units; burn it first`);
}

/** The mint as the chain holds it (its supply, null when it is not there) closes. Throws VALIDATION_ERROR naming itemData.financialInstrument. */
export function checkClosableMint(mint: string, cluster: string, supply: bigint | null): void {
  if (supply === null) throw validationError(field, `the mint ${mint} is not on ${cluster}`);
  checkNoSupply(supply);
}

/** The instruction that closes `mint`, its rent going to `destination`, signed by the closing authority. */
export function planCloseFinancialInstrument(plan: { mint: string; destination: string; authority: string }): Instruction[] {
  return [
    getCloseAccountInstruction({ account: address(plan.mint), destination: address(plan.destination), owner: createNoopSigner(address(plan.authority)) }),
  ];
}
