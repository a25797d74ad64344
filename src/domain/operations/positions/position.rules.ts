/**
 * What every position operation asks of the records it names: an active position, an active
 * instrument, an active owner account. Pure: the lookup step supplies the records.
 */
import { validationError } from '../../errors';

/** A position a write changes: ACTIVE (VALIDATION_ERROR naming `field`). */
export function checkPositionActive(position: { status: string }, field: string): void {
  if (position.status !== 'ACTIVE') throw validationError(field, `the position is ${position.status}`);
}

/** The instrument of a write: ACTIVE (VALIDATION_ERROR naming `field`, the lookup's financialInstrument). */
export function checkInstrumentActive(instrument: { status: string }, field: string): void {
  if (instrument.status !== 'ACTIVE') throw validationError(field, `the instrument is ${instrument.status}`);
}

/** The onboarded owner of a position being opened: ACTIVE (VALIDATION_ERROR naming `field`). */
export function checkOwnerActive(account: { status: string }, field: string): void {
  if (account.status !== 'ACTIVE') throw validationError(field, `the owner account is ${account.status}`);
}
