/** Address lookup table request shapes: Create (spec 4.2), Extend and Update. */
import * as t from 'io-ts';
import { accountLookup, offchainReferences } from '../../inputs/common.inputs';
import { address, arrayOf, describe, strictObject, text } from '../../inputs/primitives';
import { MAX_TABLE_ADDRESSES } from './address-lookup-table.rules';

const oneWay = describe(t.literal(true), { type: 'boolean', enum: [true] });

/**
 * The table's account payload (spec 2.3, the fields that apply to a lookup table): a new table's
 * address is derived from its authority and a recent slot, so `onchainId` only names an existing
 * table onboarded with `alreadyOnchain`.
 */
export const addressLookupTablePayload = strictObject(
  'AddressLookupTablePayload',
  {},
  {
    alreadyOnchain: t.boolean,
    onchainId: address,
    offchainReferences,
    comments: text,
  },
  "The table's account payload: offchainReferences (code, name) and comments; `alreadyOnchain` with `onchainId` onboards an existing table without a network transaction.",
);

const componentAddresses = arrayOf(accountLookup, MAX_TABLE_ADDRESSES);

/** Create Address Lookup Table itemData (spec 4.2). */
export const createAddressLookupTableItemData = strictObject(
  'CreateAddressLookupTableItemData',
  { addressLookupTable: addressLookupTablePayload, authority: accountLookup },
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
