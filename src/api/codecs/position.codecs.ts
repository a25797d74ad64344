/** Position request bodies (spec 4.3 movements). */
import * as t from 'io-ts';
import {
  burnItemData, freezePositionItemData, inactivatePositionItemData, initializePositionItemData, mintItemData, positionLookup, tradeItemData, transferItemData, updatePositionItemData,
  type FreezePositionItemData,
} from '../../domain/operations/positions/position.inputs';
import { svmTransactionConfig } from '../../domain/inputs/common.inputs';
import { objectShapes, strictObject } from '../../domain/inputs/primitives';
import { itemQuery, tenancyConfig } from './common.codecs';

export const initializePositionBody = strictObject('InitializePositionRequest', { itemData: initializePositionItemData }, { svmTransactionConfig, tenancyConfig });

export const singlePositionBody = strictObject('SinglePositionRequest', { itemData: strictObject('SinglePositionItemData', { position: positionLookup }, {}) }, { tenancyConfig });

/** Update Position: offchain fields only. */
export const updatePositionBody = strictObject('UpdatePositionRequest', { itemData: updatePositionItemData }, { svmTransactionConfig, tenancyConfig });

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

const freezeBodyFields = strictObject('FreezePositionRequest', { itemData: freezePositionItemData }, { svmTransactionConfig, tenancyConfig });
/** Freeze / Unfreeze Position: one position, or every position of an SPL instrument. The shape rule runs after every field is valid, so a field's own fault is named first. */
export const freezePositionBody = new t.Type<t.TypeOf<typeof freezeBodyFields>, unknown, unknown>(
  freezeBodyFields.name,
  freezeBodyFields.is,
  (u, c) => {
    const decoded = freezeBodyFields.validate(u, c);
    const fault = decoded._tag === 'Right' ? freezeShapeFault(decoded.right.itemData) : undefined;
    if (!fault) return decoded;
    const item = (u as { itemData: Record<string, unknown> }).itemData;
    const at = [...c, { key: 'itemData', type: freezePositionItemData, actual: item }, { key: fault.key, type: t.unknown, actual: item[fault.key] }];
    return t.failures([{ value: item[fault.key], context: at, message: fault.message }]);
  },
  (a) => a,
);
// The document shows the body's fields; the shape rule is in FreezePositionItemData's description.
objectShapes.set(freezePositionBody, objectShapes.get(freezeBodyFields)!);

/** Fetch Position History: the position, and the usual itemQuery over its transactions. */
export const positionHistoryBody = strictObject('PositionHistoryRequest', { itemData: strictObject('PositionHistoryItemData', { position: positionLookup }, {}) }, { itemQuery, tenancyConfig });

/** Mint (spec 4.3). */
export const mintBody = strictObject('MintRequest', { itemData: mintItemData }, { svmTransactionConfig, tenancyConfig });

/** Burn: value, or burnEntireBalance. */
export const burnBody = strictObject('BurnRequest', { itemData: burnItemData }, { svmTransactionConfig, tenancyConfig });

/** Transfer Financial Instrument (spec 4.3). */
export const transferBody = strictObject('TransferRequest', { itemData: transferItemData }, { svmTransactionConfig, tenancyConfig });

/** Trade (spec 4.3): operations each holding one of mint, burn, transfer; trade-level freeze/unfreeze (docs/behaviour/conventions.md). */
export const tradeBody = strictObject('TradeRequest', { itemData: tradeItemData }, { svmTransactionConfig, tenancyConfig });

/** Inactivate Position (spec 4.3; the spellings are the spec's). */
export const inactivatePositionBody = strictObject('InactivatePositionRequest', { itemData: inactivatePositionItemData }, { svmTransactionConfig, tenancyConfig });
