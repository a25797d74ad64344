/** Position payloads (spec 2.1 position lookup, API.md 6). */
import * as t from 'io-ts';
import { accountLookup, itemQuery, svmTransactionConfig, tenancyConfig, valueInput } from './common.codecs';
import { arrayOf, describe, nonEmptyString, objectShapes, strictObject, text, uuid } from './primitives';

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

const freezeItemData = strictObject(
  'FreezePositionItemData',
  {},
  { position: positionLookup, financialInstrument: accountLookup, allPositions: describe(t.literal(true), { type: 'boolean', enum: [true] }) },
  'Exactly one of: `position` (one position), or `financialInstrument` with `allPositions: true` (every active position of an SPL instrument).',
);
export type FreezePositionItemData = t.TypeOf<typeof freezeItemData>;

/** The one field at fault when an item is neither `{position}` nor `{financialInstrument, allPositions: true}`. */
function freezeShapeFault(item: FreezePositionItemData): { key: keyof FreezePositionItemData; message: string } | undefined {
  if (item.position) {
    const extra = item.financialInstrument ? 'financialInstrument' : item.allPositions ? 'allPositions' : undefined;
    return extra && { key: extra, message: 'is not allowed with position: name one position, or financialInstrument with allPositions' };
  }
  if (!item.financialInstrument) {
    return item.allPositions ? { key: 'financialInstrument', message: 'is required with allPositions (the instrument whose positions to change)' } : { key: 'position', message: 'is required (or financialInstrument with allPositions: true)' };
  }
  if (!item.allPositions) return { key: 'allPositions', message: 'must be true with financialInstrument (every position of the instrument)' };
  return undefined;
}

const freezeBodyFields = strictObject('FreezePositionRequest', { itemData: freezeItemData }, { svmTransactionConfig, tenancyConfig });
/** Freeze / Unfreeze Position (API.md 6): one position, or every position of an SPL instrument. The shape rule runs after every field is valid, so a field's own fault is named first. */
export const freezePositionBody = new t.Type<t.TypeOf<typeof freezeBodyFields>, unknown, unknown>(
  freezeBodyFields.name,
  freezeBodyFields.is,
  (u, c) => {
    const decoded = freezeBodyFields.validate(u, c);
    const fault = decoded._tag === 'Right' ? freezeShapeFault(decoded.right.itemData) : undefined;
    if (!fault) return decoded;
    const item = (u as { itemData: Record<string, unknown> }).itemData;
    const at = [...c, { key: 'itemData', type: freezeItemData, actual: item }, { key: fault.key, type: t.unknown, actual: item[fault.key] }];
    return t.failures([{ value: item[fault.key], context: at, message: fault.message }]);
  },
  (a) => a,
);
// The document shows the body's fields; the shape rule is in FreezePositionItemData's description.
objectShapes.set(freezePositionBody, objectShapes.get(freezeBodyFields)!);

/** Fetch Position History (API.md 6): the position, and the usual itemQuery over its transactions. */
export const positionHistoryBody = strictObject('PositionHistoryRequest', { itemData: strictObject('PositionHistoryItemData', { position: positionLookup }, {}) }, { itemQuery, tenancyConfig });

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
export const transferOperation = strictObject('TransferOperation', { source: positionLookup, destination: positionLookup }, transferFields, 'value, or transferEntireBalance.');
export type TransferOperation = t.TypeOf<typeof transferOperation>;

/** Mint (spec 4.3). */
export const mintBody = strictObject(
  'MintRequest',
  { itemData: strictObject('MintItemData', { mintTo: positionLookup, value: valueInput }, { idempotencyId: uuid, ...mintFields }) },
  { svmTransactionConfig, tenancyConfig },
);
export type MintItemData = t.TypeOf<typeof mintBody>['itemData'];

/** Burn (API.md 6): value, or burnEntireBalance. */
export const burnBody = strictObject('BurnRequest', { itemData: strictObject('BurnItemData', { burnFrom: positionLookup }, { idempotencyId: uuid, ...burnFields }) }, { svmTransactionConfig, tenancyConfig });
export type BurnItemData = t.TypeOf<typeof burnBody>['itemData'];

/** Transfer Financial Instrument (spec 4.3). */
export const transferBody = strictObject(
  'TransferRequest',
  { itemData: strictObject('TransferItemData', { source: positionLookup, destination: positionLookup }, { idempotencyId: uuid, ...transferFields }) },
  { svmTransactionConfig, tenancyConfig },
);
export type TransferItemData = t.TypeOf<typeof transferBody>['itemData'];

/** Trade (spec 4.3): operations each holding one of mint, burn, transfer; trade-level freeze/unfreeze (API.md 2). */
export const tradeBody = strictObject(
  'TradeRequest',
  {
    itemData: strictObject(
      'TradeItemData',
      { operations: arrayOf(strictObject('TradeOperation', {}, { mint: mintOperation, burn: burnOperation, transfer: transferOperation }, 'Exactly one of mint, burn, transfer.'), 64) },
      { idempotencyId: uuid, freeze: t.boolean, unfreeze: t.boolean },
    ),
  },
  { svmTransactionConfig, tenancyConfig },
);
export type TradeItemData = t.TypeOf<typeof tradeBody>['itemData'];

/** Inactivate Position (spec 4.3; the spellings are the spec's). */
export const inactivatePositionBody = strictObject(
  'InactivatePositionRequest',
  {
    itemData: strictObject('InactivatePositionItemData', { positionToInactivate: positionLookup }, {
      refundNetworkCurrrencyToFeePayer: t.boolean,
      refundNetworkCurrrencyDestination: accountLookup,
      burnRemainingTokenBalance: t.boolean,
      transferRemainingTokenBalanceTo: positionLookup,
      unfreezeIfNeeded: t.boolean,
      freezeAuthority: accountLookup,
    }, 'The remaining balance must be burned or transferred; the rent goes to the fee payer unless refundNetworkCurrrencyDestination is given.'),
  },
  { svmTransactionConfig, tenancyConfig },
);
export type InactivatePositionItemData = t.TypeOf<typeof inactivatePositionBody>['itemData'];
