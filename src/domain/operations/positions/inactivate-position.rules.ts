/**
 * Inactivate Position (spec 3 and 4.3): its rules on the request, what happens to the remaining
 * balance and to a frozen position, and how the movement legs' field names read in its payload.
 * Pure: the lookup step supplies the position and its onchain balance.
 */
import { LedgerError, validationError } from '../../errors';
import type { InactivatePositionItemData, PositionLookupInput } from './position.inputs';
import { fromBaseUnits } from '../../money';

/** The request's own rules (the registry's validate): one way for the balance, one for the rent. */
export function validateInactivatePosition(item: InactivatePositionItemData): void {
  if (item.burnRemainingTokenBalance && item.transferRemainingTokenBalanceTo)
    throw validationError('itemData.transferRemainingTokenBalanceTo', 'burn the remaining balance or transfer it, not both');
  if (item.refundNetworkCurrrencyToFeePayer && item.refundNetworkCurrrencyDestination)
    throw validationError('itemData.refundNetworkCurrrencyDestination', 'refund to the fee payer or to a destination, not both');
}

/** The closed account's rent goes elsewhere than into the account being closed (VALIDATION_ERROR naming the destination). */
export function checkRefundDestination(refundTo: string, positionAddress: string): void {
  if (refundTo === positionAddress) throw validationError('itemData.refundNetworkCurrrencyDestination', 'the refund cannot go to the position being closed');
}

/** Whether the close thaws the position first: a frozen one only with unfreezeIfNeeded (POSITION_FROZEN naming it otherwise). */
export function thawBeforeClose(position: { frozen: boolean; address: string }, item: InactivatePositionItemData): boolean {
  const unfreeze = position.frozen && !!item.unfreezeIfNeeded;
  if (position.frozen && !unfreeze)
    throw new LedgerError(
      'POSITION_FROZEN',
      `the position ${position.address} is frozen; set unfreezeIfNeeded (TOKEN_2022) to thaw it first`,
      'itemData.unfreezeIfNeeded',
    );
  return unfreeze;
}

/** What happens to the balance the position still holds onchain: nothing to do, burned, or transferred; VALIDATION_ERROR when the request says neither. */
export function remainderDisposal(
  item: InactivatePositionItemData,
  remaining: bigint,
  decimals: number,
): { kind: 'none' } | { kind: 'burn' } | { kind: 'transfer'; to: PositionLookupInput } {
  if (remaining <= 0n) return { kind: 'none' };
  if (item.burnRemainingTokenBalance) return { kind: 'burn' };
  if (item.transferRemainingTokenBalanceTo) return { kind: 'transfer', to: item.transferRemainingTokenBalanceTo };
  throw validationError(
    'itemData.burnRemainingTokenBalance',
    `the position still holds ${fromBaseUnits(remaining, decimals)}; set burnRemainingTokenBalance or transferRemainingTokenBalanceTo`,
  );
}

/** The movement legs name their own payload's fields; here they are this payload's. */
const renamed: [RegExp, string][] = [
  [/^itemData\.(burnFrom|source)/, 'itemData.positionToInactivate'],
  [/^itemData\.destination/, 'itemData.transferRemainingTokenBalanceTo'],
  [/^itemData\.(unfreeze|unfreezeSource)$/, 'itemData.unfreezeIfNeeded'],
];

/** A movement leg's refusal as this payload names it (the same error when its field is not one of the leg's). */
export function asInactivationError(error: LedgerError): LedgerError {
  const { field } = error;
  const rule = field === undefined ? undefined : renamed.find(([pattern]) => pattern.test(field));
  return field !== undefined && rule ? new LedgerError(error.code, error.message, field.replace(rule[0], rule[1]), error.context) : error;
}
