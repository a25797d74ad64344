/** Examples of the position operations: amounts as exact decimals, sent as numbers or as text. */
import {
  confirmedTransaction,
  identifiers,
  ids,
  investorPositionCompact,
  investorPositionDetailed,
  investorPositionLookup,
  transactionDetailed,
  treasuryPositionLookup,
} from './example-values';
import type { OperationExample } from './operation-examples';

const config = { svmTransactionConfig: { feePayer: { offchainId: ids.treasury.offchainId } } };
const idempotencyId = '2c7e9a14-5b3d-4f8e-a1c6-9d4b2e7f3a58';

export const positionExamples: Record<string, OperationExample> = {
  initializePosition: {
    request: { itemData: { positionToInitialize: investorPositionLookup }, ...config },
    response: { newPosition: ids.investorPosition, svmTransaction: confirmedTransaction },
  },
  fetchPositions: {
    request: {
      itemQuery: {
        limit: 100,
        filter: [
          {
            fieldName: 'financialInstrumentOnchainId',
            filterValues: [{ dataType: 'ONCHAIN_ADDRESS_ID', filterType: 'EQUALS', valueString: ids.instrument.onchainId }],
          },
        ],
        sort: [{ fieldName: 'balance', sortDirection: 'DESC' }],
      },
    },
    response: { count: 1, items: [investorPositionCompact] },
  },
  updatePosition: {
    request: { itemData: { position: { position: { offchainId: ids.investorPosition.offchainId } }, code: 'INV-7', name: 'Investor 7, Acme 2029' } },
    response: { updatedPosition: ids.investorPosition, svmTransaction: null },
  },
  freezePosition: {
    request: { itemData: { position: investorPositionLookup }, ...config },
    response: confirmedTransaction,
  },
  unfreezePosition: {
    request: { itemData: { position: investorPositionLookup }, ...config },
    response: confirmedTransaction,
  },
  mint: {
    request: { itemData: { mintTo: investorPositionLookup, value: { amount: 1250.000001 }, idempotencyId, memo: 'Subscription 2026-03' }, ...config },
    response: confirmedTransaction,
  },
  burn: {
    request: {
      itemData: { burnFrom: investorPositionLookup, value: { amount: '250.5' }, idempotencyId: '3d8f2b15-6c4e-4a9f-b2d7-0e5c3f8a4b69', memo: 'Redemption' },
      ...config,
    },
    response: confirmedTransaction,
  },
  transferFinancialInstrument: {
    request: {
      itemData: {
        source: treasuryPositionLookup,
        destination: investorPositionLookup,
        value: { amount: '123456789012.000001' },
        idempotencyId: '4e9a3c26-7d5f-4b1a-8c3e-1f6d4a9b5c72',
        initializeDestinationPositionIfNeeded: true,
      },
      ...config,
    },
    response: confirmedTransaction,
  },
  trade: {
    request: {
      itemData: {
        operations: [
          { transfer: { source: treasuryPositionLookup, destination: investorPositionLookup, value: { amount: 10 } } },
          { burn: { burnFrom: treasuryPositionLookup, value: { lamports: '500000' } } },
        ],
        idempotencyId: '5fab4d37-8e6a-4c2b-9d4f-2a7e5b1c6d83',
      },
      ...config,
    },
    response: confirmedTransaction,
  },
  inactivatePosition: {
    request: { itemData: { positionToInactivate: investorPositionLookup, burnRemainingTokenBalance: true, refundNetworkCurrrencyToFeePayer: true }, ...config },
    response: confirmedTransaction,
  },
  fetchPositionDetails: {
    request: { itemData: { position: investorPositionLookup } },
    response: investorPositionDetailed,
  },
  fetchPositionBalance: {
    request: { itemData: { position: { position: { onchainId: ids.investorPosition.onchainId } } } },
    response: {
      position: identifiers(ids.investorPosition),
      decimals: 6,
      onchain: { exists: true, frozen: false, balance: { amount: 1250.000001, lamports: 1250000001 }, uiAmount: null },
      offchain: { balance: { amount: 1250.000001, lamports: 1250000001 }, uiAmount: null },
    },
  },
  fetchPositionHistory: {
    request: { itemData: { position: investorPositionLookup }, itemQuery: { limit: 10, sort: [{ fieldName: 'createdAt', sortDirection: 'DESC' }] } },
    response: { count: 1, items: [transactionDetailed] },
  },
};
