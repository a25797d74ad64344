/** Address lookup table request bodies of the reads (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { singleAddressLookupTableItemData } from '../../domain/operations/address-lookup-tables/address-lookup-table.inputs';
import { itemDataBody } from './common.codecs';

export const singleAddressLookupTableBody = itemDataBody('SingleAddressLookupTableRequest', singleAddressLookupTableItemData);
