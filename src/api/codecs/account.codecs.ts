/** Account request bodies of the reads (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { accountLookup } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const singleAccountBody = strictObject(
  'SingleAccountRequest',
  { itemData: strictObject('SingleAccountItemData', { account: accountLookup }, {}) },
  { tenancyConfig },
);
