/** Position payloads (spec 2.1 position lookup, API.md 6). */
import * as t from 'io-ts';
import { accountLookup, svmTransactionConfig, tenancyConfig, valueInput } from './common.codecs';
import { nonEmptyString, strictObject, text, uuid } from './primitives';

export const positionLookup = strictObject(
  'PositionLookup',
  {},
  { position: accountLookup, owner: accountLookup, financialInstrument: accountLookup, mintAuthority: accountLookup, freezeAuthority: accountLookup },
  'A position: its own account (position), or its owner and financialInstrument (the associated token account).',
);
export type PositionLookupInput = t.TypeOf<typeof positionLookup>;

export const initializePositionBody = strictObject(
  'InitializePositionRequest',
  { itemData: strictObject('InitializePositionItemData', { positionToInitialize: positionLookup }, { unfreeze: t.boolean }) },
  { svmTransactionConfig, tenancyConfig },
);
export type InitializePositionItemData = t.TypeOf<typeof initializePositionBody>['itemData'];

export const singlePositionBody = strictObject('SinglePositionRequest', { itemData: strictObject('SinglePositionItemData', { position: positionLookup }, {}) }, { tenancyConfig });

/** Update Position (API.md 6): offchain fields only. */
export const updatePositionBody = strictObject(
  'UpdatePositionRequest',
  { itemData: strictObject('UpdatePositionItemData', { position: positionLookup }, { comments: text, code: nonEmptyString(200), name: nonEmptyString(500) }) },
  { svmTransactionConfig, tenancyConfig },
);
export type UpdatePositionItemData = t.TypeOf<typeof updatePositionBody>['itemData'];

/** Freeze / Unfreeze Position (API.md 6), one position. */
export const freezePositionBody = strictObject('FreezePositionRequest', { itemData: strictObject('FreezePositionItemData', { position: positionLookup }, {}) }, { svmTransactionConfig, tenancyConfig });

/** Mint (spec 4.3). */
export const mintBody = strictObject(
  'MintRequest',
  {
    itemData: strictObject('MintItemData', { mintTo: positionLookup, value: valueInput }, { idempotencyId: uuid, memo: nonEmptyString(500), unfreeze: t.boolean, freeze: t.boolean }),
  },
  { svmTransactionConfig, tenancyConfig },
);
export type MintItemData = t.TypeOf<typeof mintBody>['itemData'];

/** Burn (API.md 6): value, or burnEntireBalance. */
export const burnBody = strictObject(
  'BurnRequest',
  {
    itemData: strictObject('BurnItemData', { burnFrom: positionLookup }, {
      value: valueInput,
      idempotencyId: uuid,
      memo: nonEmptyString(500),
      unfreeze: t.boolean,
      freeze: t.boolean,
      offchainBalanceAvailabilityPrecheck: t.boolean,
      burnEntireBalance: t.boolean,
    }),
  },
  { svmTransactionConfig, tenancyConfig },
);
export type BurnItemData = t.TypeOf<typeof burnBody>['itemData'];

/** Transfer Financial Instrument (spec 4.3). */
export const transferBody = strictObject(
  'TransferRequest',
  {
    itemData: strictObject('TransferItemData', { source: positionLookup, destination: positionLookup }, {
      value: valueInput,
      idempotencyId: uuid,
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
    }),
  },
  { svmTransactionConfig, tenancyConfig },
);
export type TransferItemData = t.TypeOf<typeof transferBody>['itemData'];
