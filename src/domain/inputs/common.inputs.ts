/** Shared request shapes of spec 2.1 (lookups, value input, svmTransactionConfig) and webhook configs: the workflow-history contract. */
import * as t from 'io-ts';
import { accountTypes } from '../account-types';
import { address, amountText, httpUrl, integer, integerText, nonEmptyString, oneOf, strictObject, uuid } from './primitives';

export const accountType = oneOf(accountTypes, 'AccountType');

export const financialInstrumentTypes = [
  'BROKER_CD', 'CORPORATE_BOND', 'CORPORATE_LOAN', 'LOAN', 'MUNI_BOND', 'MUNI_LOAN', 'MUNI_PRIVATE_PLACEMENT', 'MUNI_LIMITED_OFFERING',
  'PRIVATE_FUND', 'STOCK', 'ETF', 'FIAT_CURRENCY', 'STABLECOIN', 'PROTOCOL_TOKEN', 'NFT', 'LAYER_1_TOKEN', 'LAYER_2_TOKEN',
] as const;

export const offchainReferences = strictObject('OffchainReferences', {}, {
  alId: nonEmptyString(64),
  organizationExternalId: nonEmptyString(200),
  accountNumber: nonEmptyString(200),
  code: nonEmptyString(200),
  type: accountType,
  name: nonEmptyString(500),
  newAlId: strictObject('NewAlId', { financialInstrumentType: oneOf(financialInstrumentTypes, 'FinancialInstrumentType') }, {}),
});
export type OffchainReferencesInput = t.TypeOf<typeof offchainReferences>;

export const accountLookup = strictObject('AccountLookup', {}, {
  onchainId: address,
  offchainId: uuid,
  offchainReferences,
  autoSign: t.boolean,
  otherTenantOrganizationExternalId: nonEmptyString(200),
  offPlatform: t.boolean,
}, 'Identifies an account by onchain id, offchain id or offchain references (spec 2.1).');
export type AccountLookupInput = t.TypeOf<typeof accountLookup>;

export const valueInput = strictObject('ValueInput', {}, { amount: amountText, lamports: integerText }, 'Send amount (decimal, UI units) or lamports (integer base units); when both are sent they must agree.');

export const commitmentLevel = oneOf(['processed', 'confirmed', 'finalized'] as const, 'Commitment');

export const svmTransactionConfig = strictObject('SvmTransactionConfig', {}, {
  feePayer: accountLookup,
  computeUnitConfig: strictObject('ComputeUnitConfig', {}, {
    enable: t.boolean,
    limit: integer(1, 1_400_000),
    price: integer(0, 1_000_000_000_000),
    priceEstimate: strictObject('PriceEstimate', {}, {
      provider: nonEmptyString(100),
      calculationStrategy: oneOf(['DEFAULT'] as const),
      priorityLevel: oneOf(['MIN', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH', 'UNSAFE_MAX', 'RECOMMENDED'] as const),
    }),
  }),
  commitmentConfig: strictObject('CommitmentConfig', {}, { commitmentLevel }),
  messageLifetimeStrategy: oneOf(['RECENT_BLOCKHASH', 'DURABLE_NONCE'] as const),
  transactionVersion: oneOf(['V0'] as const),
  submitTransaction: t.boolean,
});
export type SvmTransactionConfigInput = t.TypeOf<typeof svmTransactionConfig>;

export const webhookConfig = strictObject('WebhookConfig', { endpointUrl: httpUrl }, {
  name: nonEmptyString(200),
  apiKeyAuthConfig: strictObject('ApiKeyAuthConfig', { httpHeaderName: nonEmptyString(200), keyValue: nonEmptyString(2000) }, {}),
  oauth2AuthConfig: strictObject('OAuth2AuthConfig', {}, {
    accessTokenUrl: httpUrl, audience: nonEmptyString(500), flowType: oneOf(['CLIENT_CREDENTIALS'] as const),
    clientId: nonEmptyString(500), clientSecret: nonEmptyString(2000), userName: nonEmptyString(500), password: nonEmptyString(2000),
  }, 'The OAuth2 client-credentials flow: a form POST to accessTokenUrl (grant_type=client_credentials, client_id, client_secret, audience when given); the token is cached per worker until shortly before expires_in and sent as Authorization: Bearer. accessTokenUrl, clientId and clientSecret are required; flowType is CLIENT_CREDENTIALS only; userName and password are kept sealed but not used by this flow. A token endpoint failure is a failed delivery. See docs/webhooks.md.'),
  timeout: integer(1, 30000),
  doNotSubmitTransactionOnFailure: t.boolean,
}, 'A webhook (spec 6). endpointUrl and accessTokenUrl must be public https addresses unless the service is configured otherwise (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_ADDRESSES), checked here and again after DNS at each delivery. Deliveries carry x-ledger-event-id, x-ledger-timestamp and x-ledger-signature (hex HMAC-SHA256 of `timestamp.body` with the organization\'s webhook signing secret). Pre-submit payloads add signedTransaction (the fully signed wire transaction, base64); a failure vetoes only with doNotSubmitTransactionOnFailure, otherwise it is listed in the transaction\'s webhookFailures. timeout in milliseconds (default 5000). Every attempt is in Fetch Webhook Deliveries.');
export type WebhookConfigInput = t.TypeOf<typeof webhookConfig>;
