/** Account request shapes: Create Account itemData (spec 2.3), Transfer Network Currency, Update and Inactivate Account. */
import * as t from 'io-ts';
import { accountLookup, offchainReferences, valueInput, webhookConfig, type AccountLookupInput } from '../../inputs/common.inputs';
import { arrayOf, decimalText, describe, integer, nonEmptyString, oneOf, strictObject, text, address, uuid } from '../../inputs/primitives';
import { composedSchemas } from '../../responses/building-blocks';

const limitDestination = oneOf(['ANY', 'OFF_PLATFORM', 'NON_MANAGED', 'MANAGED'] as const, 'DebitDestination');

/** A limit is a non-negative amount in the asset's UI units. */
const limitAmount = describe(
  new t.Type<string, string, unknown>(
    'LimitAmount',
    decimalText.is,
    (u, c) => {
      const decoded = decimalText.validate(u, c);
      return decoded._tag === 'Right' && decoded.right.startsWith('-') && !/^-0*(\.0*)?$/.test(decoded.right)
        ? t.failure(u, c, 'must not be negative')
        : decoded;
    },
    decimalText.encode,
  ),
  { type: 'number', minimum: 0, description: 'Exact decimal in UI units; finer than the asset: the extra decimals are dropped.' },
);

export const maxAllowedDebit = strictObject(
  'MaxAllowedDebit',
  { limitType: oneOf(['PER_TRANSACTION', 'DURATION'] as const, 'LimitType'), limitAmount },
  {
    duration: strictObject('Duration', { code: oneOf(['SECONDS', 'MINUTES', 'HOURS', 'DAYS'] as const, 'DurationCode'), unit: integer(1, 3650) }, {}),
    approversForOverride: arrayOf(nonEmptyString(200), 100),
    requiredApproversCount: integer(1, 100),
  },
);

/** A token limit's mint authority: ANY, or a lookup of the authority's account (resolved to its address when the limit is set). */
const limitMintAuthority = new t.Type<'ANY' | AccountLookupInput, unknown, unknown>(
  'LimitMintAuthority',
  (u): u is 'ANY' | AccountLookupInput => u === 'ANY' || (typeof u === 'object' && u !== null),
  (u, c) =>
    u === 'ANY'
      ? t.success('ANY' as const)
      : typeof u === 'string'
        ? t.failure(u, c, 'must be ANY or an account lookup of the mint authority ({"onchainId": …}, {"offchainId": …} or {"offchainReferences": …})')
        : accountLookup.validate(u, c),
  (a) => a,
);
composedSchemas.set(limitMintAuthority, (schemaOf) => ({
  anyOf: [{ type: 'string', enum: ['ANY'] }, schemaOf(accountLookup)],
  description:
    "ANY (default), or an account lookup of the mint authority: the limit governs only instruments whose mint authority it is. Resolved to the authority's address when the limit is set (an unknown account is 404); autoSign does not apply.",
}));

export const networkCurrencyDebitLimit = strictObject('NetworkCurrencyDebitLimit', { destination: limitDestination, maxAllowedDebit }, {});
export type NetworkCurrencyDebitLimitInput = t.TypeOf<typeof networkCurrencyDebitLimit>;
export const tokenDebitLimit = strictObject(
  'TokenDebitLimit',
  { destination: limitDestination, maxAllowedDebit },
  {
    // A mint debits no one, so no limit could govern it.
    operationType: oneOf(['ANY', 'TRANSFER', 'BURN'] as const, 'TokenOperationType'),
    mintAuthority: limitMintAuthority,
  },
);
export type TokenDebitLimitInput = t.TypeOf<typeof tokenDebitLimit>;

export const privateKeyDetails = strictObject(
  'PrivateKeyDetails',
  {},
  {
    location: describe(arrayOf(oneOf(['DATABASE', 'SECRETS'] as const, 'PrivateKeyLocation'), 2), {
      description:
        'Where the service keeps the key: one location. DATABASE (default): sealed (AES-256-GCM, bound to its address) in PostgreSQL. SECRETS: in a secret store outside PostgreSQL (an encrypted keystore directory). Both sign alike; both locations at once is refused (400). See docs/key-custody.md.',
    }),
    publickKey: address,
    privateKey: nonEmptyString(200),
    dkgKeys: arrayOf(
      strictObject(
        'DkgKey',
        {},
        {
          keyUsage: describe(nonEmptyString(100), {
            description:
              'SIGNING (the default and only usage): the key is the account address and signs its transactions. Other values answer 400, and so does isDefault false (the one key is the default). See docs/threshold-keys.md.',
          }),
          useBackendPlayersCodes: arrayOf(nonEmptyString(100), 50),
          // t.boolean is shared by every boolean field: a description here would land on all of them.
          isDefault: t.boolean,
          session: strictObject('DkgSession', {}, { threshold: integer(1, 100) }),
        },
      ),
      20,
    ),
  },
);

/** The fields of spec 2.3 that stay changeable after creation (Update Account takes exactly these, with the same rules). */
const changeableAccountFields = {
  networkCurrencyDebitApiKeys: arrayOf(nonEmptyString(200), 100),
  tokenDebitApiKeys: arrayOf(nonEmptyString(200), 100),
  networkCurrencyDebitLimits: arrayOf(networkCurrencyDebitLimit, 20),
  tokenDebitLimits: arrayOf(tokenDebitLimit, 20),
  subscribeToNetworkEvents: t.boolean,
  canPayFees: t.boolean,
  globalFeePayerForOrgs: arrayOf(nonEmptyString(200), 100),
  orgsAllowedToSignWithPrivateKey: arrayOf(nonEmptyString(200), 100),
  shareAcrossTenants: t.boolean,
  comments: text,
  domain: nonEmptyString(500),
  missingSignatureWebhooks: arrayOf(webhookConfig, 20),
  preTransactionSubmitWebhooks: arrayOf(webhookConfig, 20),
  postTransactionSubmitWebhooks: arrayOf(webhookConfig, 20),
};

/** Create Account itemData (spec 2.3). dataLength is capped at the network's 10 MiB account limit. */
export const createAccountItemData = strictObject(
  'CreateAccountItemData',
  {},
  {
    managed: t.boolean,
    alreadyOnchain: t.boolean,
    onchainId: address,
    offchainReferences,
    privateKeyDetails,
    dataLength: integer(0, 10 * 1024 * 1024),
    seed: valueInput,
    tokenVersion: oneOf(['SPL', 'TOKEN_2022'] as const, 'TokenVersion'),
    isDerived: t.boolean,
    isGenesis: t.boolean,
    skipBlockchainExistenceVerification: t.boolean,
    ...changeableAccountFields,
  },
);
export type CreateAccountItemData = t.TypeOf<typeof createAccountItemData>;

/** Transfer Network Currency itemData. */
export const transferNetworkCurrencyItemData = strictObject(
  'TransferNetworkCurrencyItemData',
  { source: accountLookup, destination: accountLookup, value: valueInput },
  { idempotencyId: uuid, memo: nonEmptyString(500) },
);
export type TransferNetworkCurrencyItemData = t.TypeOf<typeof transferNetworkCurrencyItemData>;

/** The offchain references Update Account may change: labels only (type, alId and the address are what the account is). */
export const updatableOffchainReferences = strictObject(
  'UpdatableOffchainReferences',
  {},
  {
    accountNumber: nonEmptyString(200),
    code: nonEmptyString(200),
    name: nonEmptyString(500),
    organizationExternalId: nonEmptyString(200),
  },
);

/** Fields Update Account can set back to empty: texts to null, debit limits to null (spec 8's defaults apply again). */
export const unsettableAccountFields = [
  'comments',
  'domain',
  'offchainReferences.accountNumber',
  'offchainReferences.code',
  'offchainReferences.name',
  'offchainReferences.organizationExternalId',
  'networkCurrencyDebitLimits',
  'tokenDebitLimits',
] as const;
export type UnsettableAccountField = (typeof unsettableAccountFields)[number];

/**
 * Update Account itemData: patch semantics. A field sent replaces the stored value (lists whole);
 * a field left out stays; `unsetFields` empties the named nullable fields.
 */
export const updateAccountItemData = strictObject(
  'UpdateAccountItemData',
  { account: accountLookup },
  {
    offchainReferences: updatableOffchainReferences,
    ...changeableAccountFields,
    unsetFields: arrayOf(oneOf(unsettableAccountFields, 'UnsettableAccountField'), unsettableAccountFields.length),
  },
);
export type UpdateAccountItemData = t.TypeOf<typeof updateAccountItemData>;

/** Inactivate Account itemData. */
export const inactivateAccountItemData = strictObject(
  'InactivateAccountItemData',
  { accountToInactivate: accountLookup },
  { transferRemainingNetworkCurrencyTo: accountLookup },
);
export type InactivateAccountItemData = t.TypeOf<typeof inactivateAccountItemData>;
