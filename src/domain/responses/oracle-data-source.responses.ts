/** Onchain data source records (spec 2.7, docs/oracle-data-sources.md) and the answers of their writes. */
import * as t from 'io-ts';
import { authorityReference } from './financial-instrument.responses';
import { offchainDetailsProps, onchainIdentifier } from './account.responses';
import { address, exactAmount, integer, nullable, strictObject, textEnum, timestamp, uuid } from './building-blocks';
import { recordPage } from './bulk.responses';
import { referenceAnswer, transactionResult } from './write.responses';

export const latestValue = strictObject(
  'OracleLatestValue',
  { value: exactAmount, updatedAt: timestamp, slot: nullable(integer) },
  {},
  'The value the feed holds onchain (exact decimal; a PRICE is the price of one whole token of the instrument), when its job ran, and the network slot it ran at (the write lands in a later slot).',
);
export type LatestValueBody = t.TypeOf<typeof latestValue>;

export const onchainDataSourceRecord = strictObject(
  'OnchainDataSourceRecord',
  {
    defiProtocol: textEnum(['LEDGER_FEED']),
    onchainDataSource: strictObject(
      'OnchainDataSourceAccount',
      {
        onchain: strictObject('OnchainDataSourceOnchain', { id: address, lastTransactionAt: nullable(timestamp) }, {}),
        offchain: strictObject('OnchainDataSourceOffchain', { id: uuid, accountId: uuid, ...offchainDetailsProps }, {}),
      },
      {},
      "The feed mint: its address, the data source's offchain id (accountId: the mint's account record).",
    ),
    financialInstrument: strictObject(
      'OnchainDataSourceInstrument',
      { onchain: onchainIdentifier, offchain: strictObject('OnchainDataSourceInstrumentOffchain', { id: uuid }, {}) },
      {},
    ),
    onchainDataSourceAuthority: authorityReference,
    dataDetails: strictObject('OracleDataDetailsRecord', { kind: textEnum(['PRICE', 'RATING']), ratingProvider: nullable(t.string) }, {}),
    providerDetails: strictObject(
      'OracleProviderDetailsRecord',
      { kind: textEnum(['QUOTES']), jobDefinition: t.string },
      {},
      'The job definition as JSON text; feedHash is its SHA-256.',
    ),
    feedHash: t.string,
    refreshEverySeconds: nullable(integer),
    latestValue: nullable(latestValue),
    lastRefreshFailure: nullable(
      strictObject(
        'OracleRefreshFailure',
        { reason: t.string, at: timestamp },
        {},
        'The last refresh that gave no value (the value onchain stayed); null once a refresh succeeds.',
      ),
    ),
  },
  {},
  'An onchain data source (spec 2.7): a LEDGER_FEED feed mint whose Token-2022 metadata holds kind, value, decimals, updatedAt, slot, feedHash and ratingProvider (docs/oracle-data-sources.md).',
);
export type OnchainDataSourceRecordBody = t.TypeOf<typeof onchainDataSourceRecord>;

export const onchainDataSourcePage = recordPage(
  'OnchainDataSourcePage',
  onchainDataSourceRecord,
  'Fetch Oracle Data Sources: the detailed records of the page, and how many match.',
);

export const createOnchainDataSourceResponse = referenceAnswer(
  'newOnchainDataSource',
  'CreateOnchainDataSourceResponse',
  "The new data source (its feed mint's address and the data source's offchain id) and the network transaction that created it with its first value.",
);
export const updateOracleDataSourceResponse = referenceAnswer(
  'updatedOnchainDataSource',
  'UpdateOracleDataSourceResponse',
  'The updated data source and its network transaction (null when only offchain fields changed: the instrument link, refreshEverySeconds).',
);
export const refreshOracleDataSourceResponse = strictObject(
  'RefreshOracleDataSourceResponse',
  { svmTransaction: nullable(transactionResult), latestValue: nullable(latestValue) },
  {},
  "The refresh's network transaction and the value the feed now holds.",
);
