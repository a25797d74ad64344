/**
 * Pause / Unpause Financial Instrument (Token-2022 Pausable): which instruments can change state, and
 * the one instruction that does it. Pure: the lookup step supplies the instrument record.
 */
import { getPauseInstruction, getResumeInstruction } from '@solana-program/token-2022';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import { validationError } from '../../errors';

export interface PausableInstrument {
  version: string;
  extensions: readonly string[];
  status: string;
  paused?: boolean | null;
}

/**
 * Checks that the instrument can be paused (`pause`) or unpaused: an ACTIVE TOKEN_2022 instrument with
 * the Pausable extension, not already in that state. Throws VALIDATION_ERROR naming itemData.financialInstrument.
 */
export function checkPauseChange(instrument: PausableInstrument, pause: boolean): void {
  const field = 'itemData.financialInstrument';
  if (instrument.version !== 'TOKEN_2022' || !instrument.extensions.includes('PAUSABLE'))
    throw validationError(field, 'only a TOKEN_2022 instrument with the Pausable extension can be paused and unpaused');
  if (instrument.status !== 'ACTIVE') throw validationError(field, `the instrument is ${instrument.status}`);
  if (instrument.paused === pause) throw validationError(field, `the instrument is already ${pause ? 'paused' : 'unpaused'}`);
}

/** The instruction that pauses or resumes `mint`, signed by its pausable authority. */
export function planPause(pause: boolean, plan: { mint: string; authority: string }): Instruction[] {
  const input = { mint: address(plan.mint), authority: createNoopSigner(address(plan.authority)) };
  return [pause ? getPauseInstruction(input) : getResumeInstruction(input)];
}
