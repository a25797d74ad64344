/**
 * Freeze / Unfreeze Position (spec 2.4): which positions a request may change, and how an
 * `allPositions` request is cut into network transactions. Pure: the lookup step supplies the
 * records.
 */
import { validationError } from '../../errors';

/**
 * Positions frozen (thawed) by one transaction of `allPositions`: 39 bytes each (address + instruction)
 * beside the fee payer, authority, mint, token program and compute budget instructions stay under
 * 1232 bytes with room to spare (test/unit/freeze-all.test.ts measures the worst case).
 */
export const FREEZE_ALL_BATCH = 20;

/** Transactions one `allPositions` request runs at most (its resolution travels in workflow history); the answer's `remainingPositions` tells the caller to repeat. */
export const MAX_FREEZE_BATCHES = 50;

/** One named position: active, and not already in the state asked for (VALIDATION_ERROR naming `field`). */
export function checkFreezeTarget(position: { status: string; frozen: boolean }, freeze: boolean, field: string): void {
  if (position.status !== 'ACTIVE') throw validationError(field, `the position is ${position.status}`);
  if (position.frozen === freeze) throw validationError(field, `the position is already ${freeze ? 'frozen' : 'unfrozen'}`);
}

/** Every position of an instrument: SPL only (Token-2022 freezes per position; its instrument-wide stop is Pause), and an active instrument. */
export function checkFreezeAllInstrument(instrument: { version: string; status: string }, field: string): void {
  if (instrument.version !== 'SPL') throw validationError('itemData.allPositions', 'allPositions is for SPL instruments; a TOKEN_2022 instrument freezes per position (name one position), or stops all movements with Pause Financial Instrument');
  if (instrument.status !== 'ACTIVE') throw validationError(field, `the instrument is ${instrument.status}`);
}

/** The positions of transaction `part` of the write. */
export const freezeBatch = <P>(positions: readonly P[], part: number): P[] => positions.slice(part * FREEZE_ALL_BATCH, (part + 1) * FREEZE_ALL_BATCH);

/** How many transactions change `count` positions. */
export const freezeTransactionCount = (count: number) => Math.ceil(count / FREEZE_ALL_BATCH);
