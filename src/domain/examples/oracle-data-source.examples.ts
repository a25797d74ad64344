/** Examples of the oracle data source operations: a request and its answer each. */
import { at, authorityReference, confirmedTransaction, ids } from './example-values';
import type { OperationExample } from './operation-examples';

const feed = { onchainId: 'Feed7hQk2VwZ9rYtLmN4cPx3JbS8dGuE5aW6nKoT1eRf', offchainId: '6f2d8b1e-4c7a-4e9f-b3d5-2a8c1e7f9b40' };
const mintAccountId = '9a4c2e7b-1d8f-4b3a-a6e2-5c9d1f3b7e28';
const jobDefinition =
  '{"tasks":[{"httpTask":{"url":"https://prices.example.com/bond/42"}},{"jsonParseTask":{"path":"$.price"}},{"roundTask":{"method":"METHOD_ROUND_DOWN","decimals":4}}]}';
const latestValue = { value: 101.2575, updatedAt: at, slot: 4821337 };

const record = {
  defiProtocol: 'LEDGER_FEED',
  onchainDataSource: {
    onchain: { id: feed.onchainId, lastTransactionAt: at },
    offchain: {
      id: feed.offchainId,
      accountId: mintAccountId,
      code: 'BOND-42-PRICE',
      name: 'Bond 42 price',
      comments: null,
      lastTransactionId: ids.transaction,
      creationTransactionId: ids.transaction,
    },
  },
  financialInstrument: { onchain: { id: ids.instrument.onchainId }, offchain: { id: ids.instrument.offchainId } },
  onchainDataSourceAuthority: authorityReference(ids.authority),
  dataDetails: { kind: 'PRICE', ratingProvider: null },
  providerDetails: { kind: 'QUOTES', jobDefinition },
  feedHash: '3b1f6f9c0a7e2d54c8e1b9a6f4d3c2b1a0e9f8d7c6b5a4e3d2c1b0a9f8e7d6c5',
  refreshEverySeconds: 60,
  latestValue,
  lastRefreshFailure: null,
};

export const oracleDataSourceExamples: Record<string, OperationExample> = {
  createOnchainDataSource: {
    request: {
      itemData: {
        defiProtocol: 'LEDGER_FEED',
        onchainDataSource: { offchainReferences: { code: 'BOND-42-PRICE', name: 'Bond 42 price' } },
        financialInstrument: { offchainId: ids.instrument.offchainId },
        onchainDataSourceAuthority: { offchainId: ids.authority.offchainId },
        dataDetails: { kind: 'PRICE' },
        providerDetails: { kind: 'QUOTES', jobDefinition },
        refreshEverySeconds: 60,
      },
    },
    response: { newOnchainDataSource: feed, svmTransaction: confirmedTransaction },
  },
  updateOracleDataSourceDefinition: {
    request: {
      itemData: {
        onchainDataSource: { offchainId: feed.offchainId },
        providerDetails: { jobDefinition: '{"tasks":[{"httpTask":{"url":"https://prices.example.com/bond/42"}},{"jsonParseTask":{"path":"$.mid"}}]}' },
      },
    },
    response: { updatedOnchainDataSource: feed, svmTransaction: confirmedTransaction },
  },
  refreshOracleDataSource: {
    request: { itemData: { onchainDataSource: { onchainId: feed.onchainId } } },
    response: { svmTransaction: confirmedTransaction, latestValue },
  },
  fetchOracleDataSources: {
    request: {
      itemQuery: {
        limit: 50,
        skip: 0,
        filter: [
          {
            fieldName: 'financialInstrumentOffchainId',
            operator: 'AND',
            filterValues: [{ dataType: 'OFFCHAIN_ID', filterType: 'EQUALS', valueString: ids.instrument.offchainId }],
          },
        ],
      },
    },
    response: { count: 1, items: [record] },
  },
  fetchOnchainDataSourceDetails: {
    request: { itemData: { onchainDataSource: { offchainId: feed.offchainId } } },
    response: record,
  },
};
