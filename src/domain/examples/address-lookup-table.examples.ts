/** Examples of the address lookup table operations: a request and its answer each. */
import { at, confirmedTransaction, ids } from './example-values';
import type { OperationExample } from './operation-examples';

const table = { onchainId: '2qGyrQ8RKKSJxFFgbRwp2vtwb3z2xQ4w5hSgFGvT6eWx', offchainId: '3c7e1a9f-5b2d-4f8e-a1c6-9d4b2e7f3a58' };
const reference = (ref: { onchainId: string; offchainId: string }) => ({
  onchain: { id: ref.onchainId },
  offchain: { id: ref.offchainId },
  managed: true,
  tenantOrganizationId: ids.organization,
});

const record = {
  onchain: { id: table.onchainId, lastTransactionAt: at },
  offchain: {
    id: table.offchainId,
    code: 'ALT-BONDS',
    name: 'Bond desk accounts',
    comments: null,
    lastTransactionId: ids.transaction,
    creationTransactionId: ids.transaction,
  },
  authority: reference(ids.authority),
  componentAddresses: [
    reference(ids.treasury),
    { onchain: { id: ids.treasuryPosition.onchainId }, offchain: { id: null }, managed: false, tenantOrganizationId: null },
  ],
  managed: true,
  wasAlreadyOnchain: false,
  frozen: false,
  deactivated: false,
  closed: false,
};

export const addressLookupTableExamples: Record<string, OperationExample> = {
  createAddressLookupTable: {
    request: {
      itemData: {
        addressLookupTable: { offchainReferences: { code: 'ALT-BONDS', name: 'Bond desk accounts' } },
        authority: { offchainId: ids.authority.offchainId },
        componentAddresses: [{ offchainId: ids.treasury.offchainId }, { onchainId: ids.treasuryPosition.onchainId, offPlatform: true }],
      },
    },
    response: { newAddressLookupTable: table, svmTransaction: confirmedTransaction },
  },
  extendAddressLookupTable: {
    request: { itemData: { addressLookupTable: { offchainId: table.offchainId }, componentAddresses: [{ offchainId: ids.investor.offchainId }] } },
    response: { extendedAddressLookupTable: table, svmTransaction: confirmedTransaction },
  },
  updateAddressLookupTable: {
    request: { itemData: { addressLookupTable: { offchainId: table.offchainId }, close: true, refundDestination: { offchainId: ids.treasury.offchainId } } },
    response: { updatedAddressLookupTable: table, svmTransaction: confirmedTransaction },
  },
  fetchAddressLookupTables: {
    request: {
      itemQuery: {
        limit: 50,
        skip: 0,
        filter: [{ fieldName: 'frozen', operator: 'AND', filterValues: [{ dataType: 'BOOLEAN', filterType: 'EQUALS', valueBoolean: false }] }],
      },
    },
    response: { count: 1, items: [record] },
  },
  fetchAddressLookupTableDetails: {
    request: { itemData: { addressLookupTable: { onchainId: table.onchainId } } },
    response: record,
  },
};
