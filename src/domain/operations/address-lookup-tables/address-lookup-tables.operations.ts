/** The address lookup table operations (the spec's 4.2): Create, Extend and Update Address Lookup Table. */
import { addressLookupTableExamples } from '../../examples/address-lookup-table.examples';
import {
  createAddressLookupTableResponse,
  extendAddressLookupTableResponse,
  updateAddressLookupTableResponse,
} from '../../responses/address-lookup-table.responses';
import { defineOperation } from '../define-operation';
import { createAddressLookupTableItemData, extendAddressLookupTableItemData, updateAddressLookupTableItemData } from './address-lookup-table.inputs';
import * as addressLookupTableRules from './address-lookup-table.rules';

const tag = 'Address lookup tables';

export const addressLookupTableOperations = {
  CREATE_ADDRESS_LOOKUP_TABLE: defineOperation({
    input: createAddressLookupTableItemData,
    validate: addressLookupTableRules.validateCreateAddressLookupTable,
    rules: addressLookupTableRules,
    route: {
      operationId: 'createAddressLookupTable',
      method: 'post',
      path: '/api/v1/address-lookup-tables',
      tag,
      summary:
        "Create Address Lookup Table: a new table at the address derived from the authority and a recent slot, holding componentAddresses (onboarded accounts, or offPlatform onchainIds; at most 256, each once). The authority must be a managed account this organization may sign with. The first 20 addresses go in with the creating transaction, the rest in further transactions of 22 of the same write (the answer's svmTransaction is the last). The fee payer pays the table's rent. addressLookupTable is an account payload (spec 2.3): offchainReferences code and name, and comments, label the table; managed says whether the service holds the authority's key (true for a new table); key, size, seed, fee, debit and webhook fields are refused with 400. With addressLookupTable.alreadyOnchain and onchainId, an existing table is onboarded as the network holds it (no transaction). 409: the table is already on record. Once created, the organization's writes compress their messages through its active tables.",
      successStatus: 201,
      body: 'CreateAddressLookupTableRequest',
      response: createAddressLookupTableResponse,
      example: addressLookupTableExamples.createAddressLookupTable,
      creates: true,
      answer: 'newAddressLookupTable',
    },
  }),
  EXTEND_ADDRESS_LOOKUP_TABLE: defineOperation({
    input: extendAddressLookupTableItemData,
    rules: addressLookupTableRules,
    route: {
      operationId: 'extendAddressLookupTable',
      method: 'patch',
      path: '/api/v1/address-lookup-tables/extend',
      tag,
      summary:
        'Extend Address Lookup Table: appends the componentAddresses the table does not hold yet (22 a transaction, one write), signed by its managed authority. 400 before anything is signed: every address already there, more than 256 in all, a frozen, deactivated or closed table. New addresses are usable by transactions from the slot after they land.',
      successStatus: 200,
      body: 'ExtendAddressLookupTableRequest',
      response: extendAddressLookupTableResponse,
      example: addressLookupTableExamples.extendAddressLookupTable,
      answer: 'extendedAddressLookupTable',
    },
  }),
  UPDATE_ADDRESS_LOOKUP_TABLE: defineOperation({
    input: updateAddressLookupTableItemData,
    validate: (item) => addressLookupTableRules.validateUpdateAddressLookupTable(item),
    rules: addressLookupTableRules,
    route: {
      operationId: 'updateAddressLookupTable',
      method: 'patch',
      path: '/api/v1/address-lookup-tables',
      tag,
      summary:
        "Update Address Lookup Table: one of freeze (the authority is removed for good: the addresses never change again; not an empty or deactivated table), deactivate (new transactions stop using it), or close (only once the deactivation cooled down, i.e. its slot left the network's SlotHashes, about 513 slots; the table's lamports go to refundDestination, default the write's fee payer). Each is one-way; what the network would refuse is 400 before anything is signed.",
      successStatus: 200,
      body: 'UpdateAddressLookupTableRequest',
      response: updateAddressLookupTableResponse,
      example: addressLookupTableExamples.updateAddressLookupTable,
      answer: 'updatedAddressLookupTable',
    },
  }),
};
