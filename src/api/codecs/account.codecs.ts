/** Account request bodies of the reads (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { accountLookup } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { itemDataBody } from './common.codecs';

export const singleAccountBody = itemDataBody('SingleAccountRequest', strictObject('SingleAccountItemData', { account: accountLookup }, {}));
