/** Account payloads: Create Account (spec 2.3) and the single-account reads (API.md 6). */
import * as t from 'io-ts';
import { accountLookup, offchainReferences, svmTransactionConfig, tenancyConfig, valueInput, webhookConfig, accountType } from './common.codecs';
import { arrayOf, decimalText, integer, nonEmptyString, oneOf, strictObject, text, address, uuid } from './primitives';

const limitDestination = oneOf(['ANY', 'OFF_PLATFORM', 'NON_MANAGED', 'MANAGED'] as const, 'DebitDestination');

export const maxAllowedDebit = strictObject('MaxAllowedDebit', { limitType: oneOf(['PER_TRANSACTION', 'DURATION'] as const, 'LimitType'), limitAmount: decimalText }, {
  duration: strictObject('Duration', { code: oneOf(['SECONDS', 'MINUTES', 'HOURS', 'DAYS'] as const, 'DurationCode'), unit: integer(1, 3650) }, {}),
  approversForOverride: arrayOf(nonEmptyString(200), 100),
  requiredApproversCount: integer(0, 100),
});

export const networkCurrencyDebitLimit = strictObject('NetworkCurrencyDebitLimit', { destination: limitDestination, maxAllowedDebit }, {});
export const tokenDebitLimit = strictObject('TokenDebitLimit', { destination: limitDestination, maxAllowedDebit }, {
  operationType: oneOf(['ANY', 'MINT', 'BURN', 'TRANSFER'] as const, 'TokenOperationType'),
  mintAuthority: nonEmptyString(200),
});

export const privateKeyDetails = strictObject('PrivateKeyDetails', {}, {
  location: arrayOf(oneOf(['DATABASE', 'SECRETS'] as const, 'PrivateKeyLocation'), 2),
  publickKey: address,
  privateKey: nonEmptyString(200),
  dkgKeys: arrayOf(strictObject('DkgKey', {}, {
    keyUsage: nonEmptyString(100),
    useBackendPlayersCodes: arrayOf(nonEmptyString(100), 50),
    isDefault: t.boolean,
    session: strictObject('DkgSession', {}, { threshold: integer(1, 100) }),
  }), 20),
});

/** Create Account itemData (spec 2.3). dataLength is capped at the network's 10 MiB account limit. */
export const createAccountItemData = strictObject('CreateAccountItemData', {}, {
  managed: t.boolean,
  alreadyOnchain: t.boolean,
  onchainId: address,
  offchainReferences,
  privateKeyDetails,
  dataLength: integer(0, 10 * 1024 * 1024),
  seed: valueInput,
  networkCurrencyDebitApiKeys: arrayOf(nonEmptyString(200), 100),
  tokenDebitApiKeys: arrayOf(nonEmptyString(200), 100),
  networkCurrencyDebitLimits: arrayOf(networkCurrencyDebitLimit, 20),
  tokenDebitLimits: arrayOf(tokenDebitLimit, 20),
  subscribeToNetworkEvents: t.boolean,
  canPayFees: t.boolean,
  globalFeePayerForOrgs: arrayOf(nonEmptyString(200), 100),
  orgsAllowedToSignWithPrivateKey: arrayOf(nonEmptyString(200), 100),
  shareAcrossTenants: t.boolean,
  tokenVersion: oneOf(['SPL', 'TOKEN_2022'] as const, 'TokenVersion'),
  comments: text,
  isDerived: t.boolean,
  isGenesis: t.boolean,
  domain: nonEmptyString(500),
  skipBlockchainExistenceVerification: t.boolean,
  missingSignatureWebhooks: arrayOf(webhookConfig, 20),
  preTransactionSubmitWebhooks: arrayOf(webhookConfig, 20),
  postTransactionSubmitWebhooks: arrayOf(webhookConfig, 20),
});
export type CreateAccountItemData = t.TypeOf<typeof createAccountItemData>;

export const createAccountBody = strictObject('CreateAccountRequest', { itemData: createAccountItemData }, { svmTransactionConfig, tenancyConfig });

export const singleAccountBody = strictObject('SingleAccountRequest', { itemData: strictObject('SingleAccountItemData', { account: accountLookup }, {}) }, { tenancyConfig });

export { accountType };

/** Transfer Network Currency (API.md 6). */
export const transferNetworkCurrencyBody = strictObject(
  'TransferNetworkCurrencyRequest',
  { itemData: strictObject('TransferNetworkCurrencyItemData', { source: accountLookup, destination: accountLookup, value: valueInput }, { idempotencyId: uuid, memo: nonEmptyString(500) }) },
  { svmTransactionConfig, tenancyConfig },
);
export type TransferNetworkCurrencyItemData = t.TypeOf<typeof transferNetworkCurrencyBody>['itemData'];
