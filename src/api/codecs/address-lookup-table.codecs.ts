/** Address lookup table request bodies: Create (spec 4.2), Extend, Update and Details. */
import { createAddressLookupTableItemData, extendAddressLookupTableItemData, singleAddressLookupTableItemData, updateAddressLookupTableItemData } from '../../domain/operations/address-lookup-tables/address-lookup-table.inputs';
import { svmTransactionConfig } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const createAddressLookupTableBody = strictObject('CreateAddressLookupTableRequest', { itemData: createAddressLookupTableItemData }, { svmTransactionConfig, tenancyConfig });
export const extendAddressLookupTableBody = strictObject('ExtendAddressLookupTableRequest', { itemData: extendAddressLookupTableItemData }, { svmTransactionConfig, tenancyConfig });
export const updateAddressLookupTableBody = strictObject('UpdateAddressLookupTableRequest', { itemData: updateAddressLookupTableItemData }, { svmTransactionConfig, tenancyConfig });
export const singleAddressLookupTableBody = strictObject('SingleAddressLookupTableRequest', { itemData: singleAddressLookupTableItemData }, { tenancyConfig });
