/** The oracle data source operations (spec 4.5, docs/oracle-data-sources.md): Create Onchain Data Source, Update Oracle Data Source Definition, Refresh Oracle Data Source. */
import { oracleDataSourceExamples } from '../../examples/oracle-data-source.examples';
import { createOnchainDataSourceResponse, refreshOracleDataSourceResponse, updateOracleDataSourceResponse } from '../../responses/oracle-data-source.responses';
import { defineOperation } from '../define-operation';
import { createOnchainDataSourceItemData, onchainDataSourceItemData, updateOracleDataSourceItemData } from './oracle-data-source.inputs';
import * as oracleDataSourceRules from './oracle-data-source.rules';

const tag = 'Oracle data sources';

export const oracleDataSourceOperations = {
  CREATE_ONCHAIN_DATA_SOURCE: defineOperation({
    input: createOnchainDataSourceItemData,
    validate: (item) => oracleDataSourceRules.validateCreateOnchainDataSource(item),
    rules: oracleDataSourceRules,
    route: {
      operationId: 'createOnchainDataSource',
      method: 'post',
      path: '/api/v1/market-data/onchain-data-source',
      tag,
      summary:
        "Create Onchain Data Source (defiProtocol LEDGER_FEED): runs the job definition once for the first value, then creates the feed, a Token-2022 mint whose metadata (pointing to itself) holds kind, value, decimals, updatedAt, slot, feedHash (SHA-256 of the job definition) and ratingProvider, written only by onchainDataSourceAuthority (a managed account this organization may sign with). onchainDataSource is the feed mint's account payload (spec 2.3): its labels and flags go on the mint's account record and privateKeyDetails.location says where its generated key is kept; managed false, an onchainId, alreadyOnchain, size, seed, fee, debit and webhook fields are refused with 400. refreshEverySeconds (at least 5) starts a Temporal Schedule that refreshes it. A job naming a host outside ORACLE_ALLOWED_HOSTS, a task outside the supported subset or a malformed definition is 400 naming the task; a job that gives no value (source down, out of bounds) is 502 and nothing is written.",
      successStatus: 201,
      body: 'CreateOnchainDataSourceRequest',
      response: createOnchainDataSourceResponse,
      example: oracleDataSourceExamples.createOnchainDataSource,
      creates: true,
      extraRecords: ['mintAccount'],
      answer: 'newOnchainDataSource',
    },
  }),
  UPDATE_ORACLE_DATA_SOURCE: defineOperation({
    input: updateOracleDataSourceItemData,
    validate: (item) => oracleDataSourceRules.validateUpdateOracleDataSource(item),
    rules: oracleDataSourceRules,
    route: {
      operationId: 'updateOracleDataSourceDefinition',
      method: 'patch',
      path: '/api/v1/market-data/onchain-data-source',
      tag,
      summary:
        'Update Oracle Data Source Definition (spec 4.5, patch semantics: provided fields replace, others stay). A new providerDetails.jobDefinition is checked and its feedHash written onchain at once; the value changes at the next refresh. dataDetails.kind and ratingProvider are written onchain too; a new onchainDataSourceAuthority takes over the metadata and the mint (signed by the current one); financialInstrument relinks the data source; refreshEverySeconds changes the schedule (0 stops it). Only offchain changes: no network transaction (svmTransaction null).',
      successStatus: 200,
      body: 'UpdateOracleDataSourceRequest',
      response: updateOracleDataSourceResponse,
      example: oracleDataSourceExamples.updateOracleDataSourceDefinition,
      answer: 'updatedOnchainDataSource',
    },
  }),
  /** Called by clients and, on its schedule, by the data source's refresh workflow (the same write). */
  REFRESH_ORACLE_DATA_SOURCE: defineOperation({
    input: onchainDataSourceItemData,
    rules: oracleDataSourceRules,
    route: {
      operationId: 'refreshOracleDataSource',
      method: 'patch',
      path: '/api/v1/market-data/onchain-data-source/refresh',
      tag,
      summary:
        "Refresh Oracle Data Source: runs the job now and writes the value, its decimals, updatedAt and slot into the feed's metadata. A job that gives no value is 502 NETWORK_ERROR with the reason: the value onchain stays, and the reason shows as lastRefreshFailure in the record. Scheduled refreshes are the same write.",
      successStatus: 200,
      body: 'RefreshOracleDataSourceRequest',
      response: refreshOracleDataSourceResponse,
      example: oracleDataSourceExamples.refreshOracleDataSource,
    },
  }),
};
