/** Shared request shapes of spec 2.1 (lookups, value input, svmTransactionConfig) and webhook configs: the workflow-history contract. */
import * as t from 'io-ts';
import { accountTypes } from '../account-types';
import { calculationStrategies, priceEstimateProviders, priorityLevels } from '../fees';
import { address, amountText, describe, httpUrl, integer, integerText, nonEmptyString, oneOf, strictObject, uuid } from './primitives';

export const accountType = oneOf(accountTypes, 'AccountType');

export const financialInstrumentTypes = [
  'BROKER_CD',
  'CORPORATE_BOND',
  'CORPORATE_LOAN',
  'LOAN',
  'MUNI_BOND',
  'MUNI_LOAN',
  'MUNI_PRIVATE_PLACEMENT',
  'MUNI_LIMITED_OFFERING',
  'PRIVATE_FUND',
  'STOCK',
  'ETF',
  'FIAT_CURRENCY',
  'STABLECOIN',
  'PROTOCOL_TOKEN',
  'NFT',
  'LAYER_1_TOKEN',
  'LAYER_2_TOKEN',
] as const;

export const offchainReferences = strictObject(
  'OffchainReferences',
  {},
  {
    alId: nonEmptyString(64),
    organizationExternalId: nonEmptyString(200),
    accountNumber: nonEmptyString(200),
    code: nonEmptyString(200),
    type: accountType,
    name: nonEmptyString(500),
    newAlId: strictObject('NewAlId', { financialInstrumentType: oneOf(financialInstrumentTypes, 'FinancialInstrumentType') }, {}),
  },
);
export type OffchainReferencesInput = t.TypeOf<typeof offchainReferences>;

export const accountLookup = strictObject(
  'AccountLookup',
  {},
  {
    onchainId: address,
    offchainId: uuid,
    offchainReferences,
    autoSign: t.boolean,
    otherTenantOrganizationExternalId: nonEmptyString(200),
    offPlatform: t.boolean,
  },
  'Identifies an account by onchain id, offchain id or offchain references (spec 2.1).',
);
export type AccountLookupInput = t.TypeOf<typeof accountLookup>;

export const valueInput = strictObject(
  'ValueInput',
  {},
  { amount: amountText, lamports: integerText },
  'Send amount (decimal, UI units) or lamports (integer base units); when both are sent they must agree.',
);

export const commitmentLevel = oneOf(['processed', 'confirmed', 'finalized'] as const, 'Commitment');

export const svmTransactionConfig = strictObject(
  'SvmTransactionConfig',
  {},
  {
    feePayer: accountLookup,
    computeUnitConfig: strictObject(
      'ComputeUnitConfig',
      {},
      {
        enable: t.boolean,
        limit: describe(integer(1, 1_400_000), {
          description:
            'Compute unit limit, used as given. Without it (and the budget enabled) the limit is the units a simulation of the message consumed plus 10 % (at least 1,000 units), capped at 1,400,000.',
        }),
        price: describe(integer(0, 1_000_000_000_000), { description: 'Compute unit price in micro-lamports, used as given.' }),
        priceEstimate: strictObject(
          'PriceEstimate',
          {},
          {
            provider: describe(oneOf(priceEstimateProviders, 'PriceEstimateProvider'), {
              description: "CLUSTER_RPC (the default): the cluster's getRecentPrioritizationFees for the message's writable accounts, one fee per recent slot.",
            }),
            calculationStrategy: describe(oneOf(calculationStrategies, 'CalculationStrategy'), {
              description:
                'DEFAULT: the percentile over every recent slot (slots without fees count as 0); EXCLUDE_ZEROES: over the slots where a fee was paid.',
            }),
            priorityLevel: describe(oneOf(priorityLevels, 'PriorityLevel'), {
              description: 'The percentile of the recent fees: MIN 0, LOW 25, MEDIUM and RECOMMENDED (the default) 50, HIGH 75, VERY_HIGH 95, UNSAFE_MAX 100.',
            }),
          },
          'The price estimated from recent prioritization fees (instead of price); provider, strategy and level are recorded on the transaction.',
        ),
      },
      'The compute budget: on with enable true or with any of limit, price, priceEstimate; enable false (or no computeUnitConfig) sends no compute budget instructions.',
    ),
    commitmentConfig: strictObject(
      'CommitmentConfig',
      {},
      { commitmentLevel },
      'The commitment the write waits for: processed (answers SUBMITTED), confirmed (the default, CONFIRMED) or finalized (FINALIZED).',
    ),
    messageLifetimeStrategy: describe(oneOf(['RECENT_BLOCKHASH', 'DURABLE_NONCE'] as const), {
      description:
        'RECENT_BLOCKHASH (default): the message lives about 150 blocks. DURABLE_NONCE: a free durable nonce account of the organization on the cluster (one whose authority is a managed account the organization may sign with) is reserved for the transaction; AdvanceNonceAccount comes first and the authority signs; the account is free again once the transaction lands, fails or is replaced. None free: 409 CONFLICT (create more with Create Durable Nonce Accounts). See docs/durable-nonces.md.',
    }),
    transactionVersion: oneOf(['V0'] as const),
    submitTransaction: t.boolean,
  },
);
export type SvmTransactionConfigInput = t.TypeOf<typeof svmTransactionConfig>;

export const webhookConfig = strictObject(
  'WebhookConfig',
  { endpointUrl: httpUrl },
  {
    name: nonEmptyString(200),
    apiKeyAuthConfig: strictObject('ApiKeyAuthConfig', { httpHeaderName: nonEmptyString(200), keyValue: nonEmptyString(2000) }, {}),
    oauth2AuthConfig: strictObject(
      'OAuth2AuthConfig',
      {},
      {
        accessTokenUrl: httpUrl,
        audience: nonEmptyString(500),
        flowType: oneOf(['CLIENT_CREDENTIALS'] as const),
        clientId: nonEmptyString(500),
        clientSecret: nonEmptyString(2000),
        userName: nonEmptyString(500),
        password: nonEmptyString(2000),
      },
      'An OAuth2 bearer token per delivery: a form POST to accessTokenUrl with the password grant (grant_type=password, username, password) when userName and password are given (both or neither), else the client-credentials grant (grant_type=client_credentials); both send client_id, client_secret and audience when given. The token is cached per worker and credentials until shortly before expires_in and sent as Authorization: Bearer. accessTokenUrl, clientId and clientSecret are required; flowType is CLIENT_CREDENTIALS only (the one value the spec shows; it does not choose the grant); clientSecret and password are kept sealed. A token endpoint failure is a failed delivery. See docs/webhooks.md.',
    ),
    timeout: integer(1, 30000),
    doNotSubmitTransactionOnFailure: t.boolean,
  },
  "A webhook (spec 6). endpointUrl and accessTokenUrl must be public https addresses unless the service is configured otherwise (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_ADDRESSES), checked here and again after DNS at each delivery. Deliveries carry x-ledger-event-id, x-ledger-timestamp and x-ledger-signature (hex HMAC-SHA256 of `timestamp.body` with the organization's webhook signing secret). Pre-submit payloads add signedTransaction (the fully signed wire transaction, base64); a failure vetoes only with doNotSubmitTransactionOnFailure, otherwise it is listed in the transaction's webhookFailures. timeout in milliseconds (default 5000). Every attempt is in Fetch Webhook Deliveries.",
);
export type WebhookConfigInput = t.TypeOf<typeof webhookConfig>;
