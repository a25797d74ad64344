/** Address lookup table request shapes: Create (spec 4.2), Extend and Update. */
import * as t from 'io-ts';
import { accountLookup } from '../../inputs/common.inputs';
import { arrayOf, describe, strictObject } from '../../inputs/primitives';
import { createAccountItemData } from '../accounts/account.inputs';
import { MAX_TABLE_ADDRESSES } from './address-lookup-table.rules';

const oneWay = describe(t.literal(true), { type: 'boolean', enum: [true] });

const componentAddresses = arrayOf(accountLookup, MAX_TABLE_ADDRESSES);

/** Create Address Lookup Table itemData (spec 4.2): the table's account payload (spec 2.3; what acts: validateCreateAddressLookupTable). */
export const createAddressLookupTableItemData = strictObject(
  'CreateAddressLookupTableItemData',
  { addressLookupTable: createAccountItemData, authority: accountLookup },
  { componentAddresses },
);
export type CreateAddressLookupTableItemData = t.TypeOf<typeof createAddressLookupTableItemData>;

/** Extend Address Lookup Table itemData. */
export const extendAddressLookupTableItemData = strictObject('ExtendAddressLookupTableItemData', { addressLookupTable: accountLookup, componentAddresses }, {});
export type ExtendAddressLookupTableItemData = t.TypeOf<typeof extendAddressLookupTableItemData>;

/** Update Address Lookup Table itemData: one-way flags, at least one of them. */
export const updateAddressLookupTableItemData = strictObject(
  'UpdateAddressLookupTableItemData',
  { addressLookupTable: accountLookup },
  {
    freeze: oneWay,
    deactivate: oneWay,
    close: oneWay,
    refundDestination: accountLookup,
  },
  'freeze, deactivate and close are one-way (only `true` is accepted); send one of them. close needs a deactivated table whose deactivation has cooled down; its lamports go to refundDestination (default: the fee payer).',
);
export type UpdateAddressLookupTableItemData = t.TypeOf<typeof updateAddressLookupTableItemData>;

/** Fetch Address Lookup Table Details itemData. */
export const singleAddressLookupTableItemData = strictObject('SingleAddressLookupTableItemData', { addressLookupTable: accountLookup }, {});
