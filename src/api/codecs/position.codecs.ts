/** Position request bodies of the reads (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { positionLookup } from '../../domain/operations/positions/position.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { itemDataBody, itemQuery, tenancyConfig } from './common.codecs';

export const singlePositionBody = itemDataBody('SinglePositionRequest', strictObject('SinglePositionItemData', { position: positionLookup }, {}));

/** Fetch Position History: the position, and the usual itemQuery over its transactions. */
export const positionHistoryBody = strictObject(
  'PositionHistoryRequest',
  { itemData: strictObject('PositionHistoryItemData', { position: positionLookup }, {}) },
  { itemQuery, tenancyConfig },
);
