/**
 * Oracle data source request shapes: Create Onchain Data Source, Update Oracle Data Source
 * Definition (spec 4.5, patch), Refresh and Fetch Details (docs/oracle-data-sources.md).
 */
import * as t from 'io-ts';
import { isLosslessNumber, stringify } from 'lossless-json';
import { accountLookup } from '../../inputs/common.inputs';
import { describe, integer, nonEmptyString, oneOf, strictObject } from '../../inputs/primitives';
import { createAccountItemData } from '../accounts/account.inputs';
import { MAX_DEFINITION_LENGTH } from '../../oracle-job';

export const oracleProtocols = ['LEDGER_FEED'] as const;
export const dataKinds = ['PRICE', 'RATING'] as const;
/** The longest schedule: a year. 0 stops the schedule. */
export const MAX_REFRESH_SECONDS = 31_536_000;
/** The shortest cadence a schedule runs at. */
export const MIN_REFRESH_SECONDS = 5;

/**
 * The job definition as its JSON text (spec 2.7: a string); a JSON object is accepted too and kept
 * as its JSON text with every number's digits (the feedHash is the SHA-256 of that text).
 */
export const jobDefinitionText = describe(
  new t.Type<string, string, unknown>(
    'JobDefinition',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      const value = typeof u === 'string' ? u : typeof u === 'object' && u !== null && !Array.isArray(u) && !isLosslessNumber(u) ? stringify(u) : undefined;
      if (value === undefined || value.length === 0 || value.length > MAX_DEFINITION_LENGTH)
        return t.failure(u, c, `must be an OracleJob as JSON text (or a JSON object) of at most ${MAX_DEFINITION_LENGTH} characters`);
      return t.success(value);
    },
    (a) => a,
  ),
  {
    type: ['string', 'object'],
    description:
      'A Switchboard OracleJob in JSON: {"tasks": [...]} or {"jobs": [{"tasks": [...]}]} (the median across jobs); the supported tasks are listed in docs/oracle-data-sources.md. Sent as JSON text (spec 2.7) or as a JSON object (kept as its JSON text).',
  },
);

const refreshEverySeconds = describe(integer(0, MAX_REFRESH_SECONDS), {
  type: 'integer',
  minimum: 0,
  maximum: MAX_REFRESH_SECONDS,
  description: `Seconds between scheduled refreshes (at least ${MIN_REFRESH_SECONDS}); 0 or absent on create: no schedule. On update, 0 stops the schedule.`,
});

const dataDetails = strictObject(
  'OracleDataDetails',
  { kind: oneOf(dataKinds, 'OracleDataKind') },
  { ratingProvider: nonEmptyString(64) },
  "PRICE: the price of one whole token of the instrument; RATING: a number on ratingProvider's scale (ratingProvider required).",
);
const providerDetails = strictObject('OracleProviderDetails', { kind: oneOf(['QUOTES'] as const, 'OracleProviderKind'), jobDefinition: jobDefinitionText }, {});

/** Create Onchain Data Source itemData: the feed mint's account payload is spec 2.3's (what acts: validateCreateOnchainDataSource). */
export const createOnchainDataSourceItemData = strictObject(
  'CreateOnchainDataSourceItemData',
  {
    defiProtocol: oneOf(oracleProtocols, 'OracleProtocol'),
    onchainDataSource: createAccountItemData,
    financialInstrument: accountLookup,
    onchainDataSourceAuthority: accountLookup,
    dataDetails,
    providerDetails,
  },
  { refreshEverySeconds },
);
export type CreateOnchainDataSourceItemData = t.TypeOf<typeof createOnchainDataSourceItemData>;

/** Update Oracle Data Source Definition itemData (spec 4.5): provided fields replace, others stay. */
export const updateOracleDataSourceItemData = strictObject(
  'UpdateOracleDataSourceItemData',
  { onchainDataSource: accountLookup },
  {
    defiProtocol: oneOf(oracleProtocols, 'OracleProtocol'),
    providerDetails: strictObject(
      'OracleProviderDetailsPatch',
      {},
      { kind: oneOf(['QUOTES'] as const, 'OracleProviderKind'), jobDefinition: jobDefinitionText },
    ),
    financialInstrument: accountLookup,
    onchainDataSourceAuthority: accountLookup,
    dataDetails: strictObject('OracleDataDetailsPatch', {}, { kind: oneOf(dataKinds, 'OracleDataKind'), ratingProvider: nonEmptyString(64) }),
    refreshEverySeconds,
  },
);
export type UpdateOracleDataSourceItemData = t.TypeOf<typeof updateOracleDataSourceItemData>;

/** Refresh Oracle Data Source and Fetch Onchain Data Source Details itemData. */
export const onchainDataSourceItemData = strictObject('OnchainDataSourceItemData', { onchainDataSource: accountLookup }, {});
export type OnchainDataSourceItemData = t.TypeOf<typeof onchainDataSourceItemData>;
