/** Account records at the three detail levels (spec 2.2, docs/behaviour/conventions.md) and the account reads' answers. */
import * as t from 'io-ts';
import { accountTypes } from '../account-types';
import {
  address,
  baseUnits,
  boolean,
  decimalString,
  exactAmount,
  integer,
  listOf,
  nullable,
  oneOfShapes,
  signature,
  strictObject,
  textEnum,
  textWith,
  timestamp,
  uuid,
} from './building-blocks';
import { referenceAnswer } from './write.responses';

/** `identifiers` of every record kept beside an onchain object (accounts, instruments, positions). */
export const onchainIdentifier = strictObject('OnchainIdentifier', { id: address }, {});
export const offchainIdentifier = strictObject('OffchainIdentifier', { id: uuid }, {});
/** What the record of an onchain object keeps offchain beside its id: what its owner wrote on it, and the writes that created and last changed it. */
export const offchainDetailsProps = {
  code: nullable(t.string),
  name: nullable(t.string),
  comments: nullable(t.string),
  lastTransactionId: nullable(uuid),
  creationTransactionId: nullable(uuid),
};
/** An offchain id that may be missing (an authority or owner that is not onboarded). */
export const optionalOffchainIdentifier = strictObject('OptionalOffchainIdentifier', { id: nullable(uuid) }, {}, 'id: null when the account is not onboarded.');

export const recordIdentifiers = strictObject(
  'RecordIdentifiers',
  { onchain: onchainIdentifier, offchain: offchainIdentifier },
  {},
  'The identifiers detail level: the onchain address and the offchain id.',
);
export type RecordIdentifiersBody = t.TypeOf<typeof recordIdentifiers>;

/** A network-currency amount: the exact decimal and its lamports. */
export const networkCurrencyAmount = strictObject(
  'NetworkCurrencyAmount',
  { amount: exactAmount, lamports: baseUnits },
  {},
  'Network currency: amount (exact decimal, 9 decimals) and lamports (integer), the same value twice.',
);
export type NetworkCurrencyAmountBody = t.TypeOf<typeof networkCurrencyAmount>;

const accountType = textEnum(accountTypes);
const accountStatus = textEnum(['ACTIVE', 'CLOSED']);
const privateKeyLocation = listOf(textEnum(['DATABASE', 'SECRETS']));
const optionalText = nullable(t.string);

/** The offchain id and references of an account, at the compact and the detailed level alike. */
const offchainReferenceProps = {
  id: uuid,
  type: accountType,
  code: optionalText,
  alId: optionalText,
  organizationExternalId: optionalText,
  accountNumber: optionalText,
};

const compactProps = {
  onchain: strictObject('AccountCompactOnchain', { id: address, lastTransactionId: nullable(signature), lastTransactionAt: nullable(timestamp) }, {}),
  offchain: strictObject('AccountCompactOffchain', { ...offchainReferenceProps, lastTransactionId: nullable(uuid) }, {}),
};
export const accountCompact = strictObject('AccountCompact', compactProps, {}, 'The compact detail level of an account record (spec 2.2 reduced form).');
export type AccountCompactBody = t.TypeOf<typeof accountCompact>;

const debitDestination = textEnum(['ANY', 'OFF_PLATFORM', 'NON_MANAGED', 'MANAGED']);
const maxAllowedDebit = strictObject(
  'MaxAllowedDebitRecord',
  { limitType: textEnum(['PER_TRANSACTION', 'DURATION']), limitAmount: decimalString },
  {
    duration: strictObject('DurationRecord', { code: textEnum(['SECONDS', 'MINUTES', 'HOURS', 'DAYS']), unit: integer }, {}),
    approversForOverride: listOf(t.string),
    requiredApproversCount: integer,
  },
);
const networkCurrencyDebitLimit = strictObject('NetworkCurrencyDebitLimitRecord', { destination: debitDestination, maxAllowedDebit }, {});
const tokenDebitLimit = strictObject(
  'TokenDebitLimitRecord',
  { destination: debitDestination, maxAllowedDebit },
  {
    operationType: textEnum(['ANY', 'TRANSFER', 'BURN']),
    mintAuthority: textWith("ANY, or the mint authority's address (a lookup sent is resolved to it when the limit is set)."),
  },
);

/** A webhook as an account keeps it: credentials masked as "***". */
const webhook = strictObject(
  'WebhookRecord',
  { endpointUrl: t.string },
  {
    name: t.string,
    apiKeyAuthConfig: strictObject('ApiKeyAuthRecord', { httpHeaderName: t.string, keyValue: textWith('Always "***".') }, {}),
    oauth2AuthConfig: strictObject(
      'OAuth2AuthRecord',
      {},
      {
        accessTokenUrl: t.string,
        audience: t.string,
        flowType: t.string,
        clientId: t.string,
        clientSecret: textWith('"***" when set.'),
        userName: t.string,
        password: textWith('"***" when set.'),
      },
    ),
    timeout: integer,
    doNotSubmitTransactionOnFailure: boolean,
  },
  'A webhook configuration; secrets are never shown.',
);

/**
 * The owner's configuration of an account: who else may sign or is paid for, which API keys may debit
 * or approve, debit limits, webhooks. Always in the owning organization's view; left out of another
 * organization's view of a shared account (empty lists or null would claim "no restriction").
 */
const ownerOnlyProps = {
  globalFeePayerForOrgs: listOf(t.string, 'Owner only (left out for another organization).'),
  orgsAllowedToSignWithPrivateKey: listOf(t.string, 'Owner only (left out for another organization).'),
  solDebitApiKeys: listOf(t.string, 'Owner only (left out for another organization).'),
  tokenDebitApiKeys: listOf(t.string, 'Owner only (left out for another organization).'),
  networkCurrencyDebitLimits: nullable(
    listOf(networkCurrencyDebitLimit, 'null: the defaults of spec 8 apply. Owner only (left out for another organization).'),
  ),
  tokenDebitLimits: nullable(listOf(tokenDebitLimit, 'null: the defaults apply. Owner only (left out for another organization).')),
  missingSignatureWebhooks: listOf(webhook, 'Owner only (left out for another organization).'),
  preTransactionSubmitWebhooks: listOf(webhook, 'Owner only (left out for another organization).'),
  postTransactionSubmitWebhooks: listOf(webhook, 'Owner only (left out for another organization).'),
};
/** The owner-only fields of AccountDetailed, by name (the presenter leaves them out for another organization). */
export const accountOwnerOnlyFields = Object.keys(ownerOnlyProps) as (keyof typeof ownerOnlyProps)[];

export const accountDetailed = strictObject(
  'AccountDetailed',
  {
    onchain: strictObject(
      'AccountDetailedOnchain',
      {
        id: address,
        lastTransactionId: nullable(signature),
        lastTransactionAt: nullable(timestamp),
        creationTransactionId: nullable(signature),
        creationTransactionAt: nullable(timestamp),
      },
      {},
    ),
    offchain: strictObject(
      'AccountDetailedOffchain',
      {
        ...offchainReferenceProps,
        name: optionalText,
        balance: networkCurrencyAmount,
        tokenDecimals: integer,
        lastTransactionId: nullable(uuid),
        creationTransactionId: nullable(uuid),
      },
      {},
    ),
    managed: boolean,
    status: accountStatus,
    privateKeyLocation,
    isDerived: boolean,
    isGenesis: boolean,
    comments: optionalText,
    subscribeToNetworkEvents: boolean,
    sharedAcrossTenants: boolean,
    wasOnchainAlready: boolean,
    canPayFees: boolean,
    dataLength: integer,
    tokenVersion: nullable(textEnum(['SPL', 'TOKEN_2022'])),
    domain: optionalText,
    tenantOrganizationId: uuid,
  },
  ownerOnlyProps,
  "The detailed level of an account record: everything (spec 2.2). A shared account seen by another organization leaves out the owner's configuration (docs/custody-policy.md).",
);
export type AccountDetailedBody = t.TypeOf<typeof accountDetailed>;
export type NetworkCurrencyDebitLimitBody = t.TypeOf<typeof networkCurrencyDebitLimit>;
export type TokenDebitLimitBody = t.TypeOf<typeof tokenDebitLimit>;

export const accountLevels = { identifiers: recordIdentifiers, compact: accountCompact, detailed: accountDetailed };
export const accountRecord = oneOfShapes(
  [recordIdentifiers, accountCompact, accountDetailed],
  'An account record at the detail level asked for: identifiers, compact or detailed.',
);

export const createAccountResponse = referenceAnswer(
  'newAccount',
  'CreateAccountResponse',
  'The new account and the transaction that created it (svmTransaction null when it was onboarded without one, alreadyOnchain or non-managed).',
);
export const updateAccountResponse = referenceAnswer(
  'updatedAccount',
  'UpdateAccountResponse',
  'The updated account; no network transaction (svmTransaction null).',
);
export const inactivateAccountResponse = referenceAnswer(
  'inactivatedAccount',
  'InactivateAccountResponse',
  'The closed account and the sweep transaction (null when no lamports were left or the account is not managed).',
);

export const accountBalanceResponse = strictObject(
  'AccountBalanceResponse',
  {
    account: recordIdentifiers,
    onchain: strictObject('OnchainAccountBalance', { balance: networkCurrencyAmount }, {}, 'Read live from the network.'),
    offchain: strictObject('OffchainAccountBalance', { balance: networkCurrencyAmount }, {}, 'As the record keeps it.'),
  },
  {},
);

export const accountPrivateKeyResponse = strictObject(
  'AccountPrivateKeyResponse',
  { account: recordIdentifiers, privateKey: textWith('base58 of the 64-byte secret key (seed then public key), the Solana CLI layout.'), privateKeyLocation },
  {},
);
