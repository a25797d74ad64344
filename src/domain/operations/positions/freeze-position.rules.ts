/**
 * Freeze / Unfreeze Position (spec 2.4): which positions a request may change, and how an
 * `allPositions` request is cut into network transactions. Pure: the lookup step supplies the
 * records.
 */
import { LedgerError, validationError } from '../../errors';
import type { FreezePositionItemData } from './position.inputs';

/**
 * Positions frozen (thawed) by one transaction of `allPositions`: 39 bytes each (address + instruction)
 * beside the fee payer, authority, mint, token program and compute budget instructions stay under
 * 1232 bytes with room to spare (test/unit/freeze-all.test.ts measures the worst case).
 */
export const FREEZE_ALL_BATCH = 20;

/** Transactions one `allPositions` request runs at most (its resolution travels in workflow history); the answer's `remainingPositions` tells the caller to repeat. */
export const MAX_FREEZE_BATCHES = 50;

/** The one field at fault when an item is neither `{position}` nor `{financialInstrument, allPositions: true}`. */
function freezeShapeFault(item: FreezePositionItemData): { key: keyof FreezePositionItemData; message: string } | undefined {
  if (item.position) {
    const extra = item.financialInstrument ? 'financialInstrument' : item.allPositions ? 'allPositions' : undefined;
    return extra && { key: extra, message: 'is not allowed with position: name one position, or financialInstrument with allPositions' };
  }
  if (!item.financialInstrument) {
    return item.allPositions
      ? { key: 'financialInstrument', message: 'is required with allPositions (the instrument whose positions to change)' }
      : { key: 'position', message: 'is required (or financialInstrument with allPositions: true)' };
  }
  if (!item.allPositions) return { key: 'allPositions', message: 'must be true with financialInstrument (every position of the instrument)' };
  return undefined;
}

/**
 * The request's own rules (the registry's validate): one position, or every position of an
 * instrument. Runs after the body decoded, so a field's own fault is named first.
 */
export function validateFreezePosition(item: FreezePositionItemData): void {
  const fault = freezeShapeFault(item);
  if (fault) throw validationError(`itemData.${fault.key}`, `itemData.${fault.key} ${fault.message}`);
}

/** One named position: active, and not already in the state asked for (VALIDATION_ERROR naming `field`). */
export function checkFreezeTarget(position: { status: string; frozen: boolean }, freeze: boolean, field: string): void {
  if (position.status !== 'ACTIVE') throw validationError(field, `the position is ${position.status}`);
  if (position.frozen === freeze) throw validationError(field, `the position is already ${freeze ? 'frozen' : 'unfrozen'}`);
}

/** Every position of an instrument: SPL only (Token-2022 freezes per position; its instrument-wide stop is Pause), and an active instrument. */
export function checkFreezeAllInstrument(instrument: { version: string; status: string }, field: string): void {
  if (instrument.version !== 'SPL')
    throw validationError(
      'itemData.allPositions',
      'allPositions is for SPL instruments; a TOKEN_2022 instrument freezes per position (name one position), or stops all movements with Pause Financial Instrument',
    );
  if (instrument.status !== 'ACTIVE') throw validationError(field, `the instrument is ${instrument.status}`);
}

/** The instrument's freeze authority, which signs every freeze and thaw (FREEZE_AUTHORITY_NOT_FOUND naming `field` when it has none). */
export function requireFreezeAuthority<A>(authority: A | null | undefined, field: string): A {
  if (!authority) throw new LedgerError('FREEZE_AUTHORITY_NOT_FOUND', 'the instrument has no freeze authority', field);
  return authority;
}

/** An `allPositions` write with nothing left to change is refused (VALIDATION_ERROR naming allPositions). */
export function checkPositionsToChange(count: number, freeze: boolean): void {
  if (count === 0) throw validationError('itemData.allPositions', `every active position of the instrument is already ${freeze ? 'frozen' : 'unfrozen'}`);
}

/** The positions of transaction `part` of the write. */
export const freezeBatch = <P>(positions: readonly P[], part: number): P[] => positions.slice(part * FREEZE_ALL_BATCH, (part + 1) * FREEZE_ALL_BATCH);

/** How many transactions change `count` positions. */
export const freezeTransactionCount = (count: number) => Math.ceil(count / FREEZE_ALL_BATCH);
