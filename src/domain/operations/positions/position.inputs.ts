/** Position request shapes (spec 2.1 position lookup, 4.3): the itemData of the position writes and of the movements. */
import * as t from 'io-ts';
import { accountLookup, valueInput } from '../../inputs/common.inputs';
import { arrayOf, describe, nonEmptyString, strictObject, text, uuid } from '../../inputs/primitives';

export const positionLookup = strictObject(
  'PositionLookup',
  {},
  { position: accountLookup, owner: accountLookup, financialInstrument: accountLookup, mintAuthority: accountLookup, freezeAuthority: accountLookup },
  'A position: its own account (position), or its owner and financialInstrument (the associated token account).',
);
export type PositionLookupInput = t.TypeOf<typeof positionLookup>;

/** Initialize Position itemData. */
export const initializePositionItemData = strictObject('InitializePositionItemData', { positionToInitialize: positionLookup }, { unfreeze: t.boolean });
export type InitializePositionItemData = t.TypeOf<typeof initializePositionItemData>;

/** Update Position itemData: offchain fields only. */
export const updatePositionItemData = strictObject(
  'UpdatePositionItemData',
  { position: positionLookup },
  { comments: text, code: nonEmptyString(200), name: nonEmptyString(500) },
);
export type UpdatePositionItemData = t.TypeOf<typeof updatePositionItemData>;

/** Freeze / Unfreeze Position itemData; its shape (one of the two forms) is validateFreezePosition's, checked after its fields. */
export const freezePositionItemData = strictObject(
  'FreezePositionItemData',
  {},
  { position: positionLookup, financialInstrument: accountLookup, allPositions: describe(t.literal(true), { type: 'boolean', enum: [true] }) },
  'Exactly one of: `position` (one position), or `financialInstrument` with `allPositions: true` (every active position of an SPL instrument).',
);
export type FreezePositionItemData = t.TypeOf<typeof freezePositionItemData>;

/** The fields of each movement (spec 4.3), shared by its own request and by a Trade operation. */
const mintFields = { memo: nonEmptyString(500), unfreeze: t.boolean, freeze: t.boolean };
const burnFields = {
  value: valueInput,
  memo: nonEmptyString(500),
  unfreeze: t.boolean,
  freeze: t.boolean,
  offchainBalanceAvailabilityPrecheck: t.boolean,
  burnEntireBalance: t.boolean,
  signWithPermanentDelegate: t.boolean,
  permanentDelegateAuthority: accountLookup,
};
const transferFields = {
  value: valueInput,
  memo: nonEmptyString(500),
  unfreezeSource: t.boolean,
  freezeSource: t.boolean,
  unfreezeDestination: t.boolean,
  freezeDestination: t.boolean,
  offchainBalanceAvailabilityPrecheck: t.boolean,
  transferEntireBalance: t.boolean,
  initializeDestinationPositionIfNeeded: t.boolean,
  signWithPermanentDelegate: t.boolean,
  permanentDelegateAuthority: accountLookup,
};

export const mintOperation = strictObject('MintOperation', { mintTo: positionLookup, value: valueInput }, mintFields);
export type MintOperation = t.TypeOf<typeof mintOperation>;
export const burnOperation = strictObject('BurnOperation', { burnFrom: positionLookup }, burnFields, 'value, or burnEntireBalance.');
export type BurnOperation = t.TypeOf<typeof burnOperation>;
export const transferOperation = strictObject(
  'TransferOperation',
  { source: positionLookup, destination: positionLookup },
  transferFields,
  'value, or transferEntireBalance.',
);
export type TransferOperation = t.TypeOf<typeof transferOperation>;

/** Mint itemData (spec 4.3). */
export const mintItemData = strictObject('MintItemData', { mintTo: positionLookup, value: valueInput }, { idempotencyId: uuid, ...mintFields });
export type MintItemData = t.TypeOf<typeof mintItemData>;

/** Burn itemData: value, or burnEntireBalance. */
export const burnItemData = strictObject('BurnItemData', { burnFrom: positionLookup }, { idempotencyId: uuid, ...burnFields });
export type BurnItemData = t.TypeOf<typeof burnItemData>;

/** Transfer Financial Instrument itemData (spec 4.3). */
export const transferItemData = strictObject(
  'TransferItemData',
  { source: positionLookup, destination: positionLookup },
  { idempotencyId: uuid, ...transferFields },
);
export type TransferItemData = t.TypeOf<typeof transferItemData>;

/** Trade itemData (spec 4.3): operations each holding one of mint, burn, transfer; trade-level freeze/unfreeze (docs/behaviour/conventions.md). */
export const tradeItemData = strictObject(
  'TradeItemData',
  {
    operations: arrayOf(
      strictObject('TradeOperation', {}, { mint: mintOperation, burn: burnOperation, transfer: transferOperation }, 'Exactly one of mint, burn, transfer.'),
      64,
    ),
  },
  { idempotencyId: uuid, freeze: t.boolean, unfreeze: t.boolean },
);
export type TradeItemData = t.TypeOf<typeof tradeItemData>;

/** Inactivate Position itemData (spec 4.3; the spellings are the spec's). */
export const inactivatePositionItemData = strictObject(
  'InactivatePositionItemData',
  { positionToInactivate: positionLookup },
  {
    refundNetworkCurrrencyToFeePayer: t.boolean,
    refundNetworkCurrrencyDestination: accountLookup,
    burnRemainingTokenBalance: t.boolean,
    transferRemainingTokenBalanceTo: positionLookup,
    unfreezeIfNeeded: t.boolean,
    freezeAuthority: accountLookup,
  },
  'The remaining balance must be burned or transferred; the rent goes to the fee payer unless refundNetworkCurrrencyDestination is given.',
);
export type InactivatePositionItemData = t.TypeOf<typeof inactivatePositionItemData>;
