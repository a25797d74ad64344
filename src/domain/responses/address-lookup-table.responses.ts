/** Address lookup table records (spec 2.9) and the answers of its writes. */
import * as t from 'io-ts';
import { offchainDetailsProps } from './account.responses';
import { authorityReference } from './financial-instrument.responses';
import { address, boolean, listOf, nullable, strictObject, timestamp, uuid } from './building-blocks';
import { recordPage } from './bulk.responses';
import { referenceAnswer } from './write.responses';

export const addressLookupTableRecord = strictObject(
  'AddressLookupTableRecord',
  {
    onchain: strictObject('AddressLookupTableOnchain', { id: address, lastTransactionAt: nullable(timestamp) }, {}),
    offchain: strictObject('AddressLookupTableOffchain', { id: uuid, ...offchainDetailsProps }, {}),
    authority: authorityReference,
    componentAddresses: listOf(authorityReference, 'The addresses the table holds, in table order (an address, once added, is never removed).'),
    managed: boolean,
    wasAlreadyOnchain: boolean,
    frozen: boolean,
    deactivated: boolean,
    closed: boolean,
  },
  {},
  "An address lookup table (spec 2.9). `managed`: the service holds the authority's key. `frozen`: the authority was removed, the addresses can no longer change. `deactivated`: no longer usable by new transactions; closable once the deactivation cooled down. `closed`: the account is gone (a boolean, as the filter treats it). Fetch Address Lookup Table Details reads the flags and addresses from the network; Fetch Address Lookup Tables shows the record as the service's writes left it.",
);
export type AddressLookupTableRecordBody = t.TypeOf<typeof addressLookupTableRecord>;

export const addressLookupTablePage = recordPage(
  'AddressLookupTablePage',
  addressLookupTableRecord,
  'Fetch Address Lookup Tables: the detailed records of the page, and how many match.',
);

export const createAddressLookupTableResponse = referenceAnswer(
  'newAddressLookupTable',
  'CreateAddressLookupTableResponse',
  "The new (or onboarded) table and the write's last network transaction (null when onboarded with alreadyOnchain).",
);
export const extendAddressLookupTableResponse = referenceAnswer(
  'extendedAddressLookupTable',
  'ExtendAddressLookupTableResponse',
  "The extended table and the write's last network transaction.",
);
export const updateAddressLookupTableResponse = referenceAnswer(
  'updatedAddressLookupTable',
  'UpdateAddressLookupTableResponse',
  'The updated table and its network transaction.',
);
