/**
 * MikroORM entity schemas: persistence only. Relations are kept as plain id columns: every
 * query here is scoped by organization, and the write path stays one insert or update per table.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { MessageLifetime, Resolved } from '../domain/write';
import type { ComputeBudgetRecord } from '../domain/fees';
import type { BalanceMove } from '../domain/finality';
import { OracleDataSource } from './oracle-data-source.entity';
import { DriftFinding } from './drift-finding.entity';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: {
    id: p.uuid().primary(),
    externalId: p.text().unique(),
    name: p.text().nullable(),
    /** Sealed (AES-256-GCM) secret that signs webhook deliveries. */
    webhookSigningSecret: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Organization = InferEntity<typeof Organization>;

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid().index(),
    /** SHA-256 of the key: the key itself is shown once and never stored. */
    keyHash: p.text().unique(),
    keyPrefix: p.text(),
    roles: p.array(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;

export const CustodyKey = defineEntity({
  name: 'CustodyKey',
  tableName: 'custody_key',
  properties: {
    address: p.text().primary(),
    organizationId: p.uuid().index(),
    location: p.text(),
    /** The 32-byte private key seed sealed with the key-encryption key (AAD: address and field); null when location is SECRETS. */
    sealedSecret: p.text().nullable(),
    /** Makes key generation idempotent: a retried step gets the key it generated the first time. */
    requestKey: p.text().nullable().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CustodyKey = InferEntity<typeof CustodyKey>;

export interface WebhookConfig {
  endpointUrl: string;
  name?: string;
  apiKeyAuthConfig?: { httpHeaderName: string; keyValue: string };
  oauth2AuthConfig?: Record<string, string>;
  timeout?: number;
  doNotSubmitTransactionOnFailure?: boolean;
}

export const Account = defineEntity({
  name: 'Account',
  tableName: 'account',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    address: p.text(),
    type: p.text(),
    code: p.text().nullable(),
    alId: p.text().nullable(),
    accountNumber: p.text().nullable(),
    name: p.text().nullable(),
    referenceOrganizationExternalId: p.text().nullable(),
    managed: p.boolean(),
    status: p.text(),
    privateKeyLocation: p.array(),
    isDerived: p.boolean(),
    isGenesis: p.boolean(),
    comments: p.text().nullable(),
    subscribeToNetworkEvents: p.boolean(),
    sharedAcrossTenants: p.boolean(),
    wasOnchainAlready: p.boolean(),
    canPayFees: p.boolean(),
    globalFeePayerForOrgs: p.array(),
    orgsAllowedToSignWithPrivateKey: p.array(),
    solDebitApiKeys: p.array(),
    tokenDebitApiKeys: p.array(),
    networkCurrencyDebitLimits: p.json<unknown[]>().nullable(),
    tokenDebitLimits: p.json<unknown[]>().nullable(),
    missingSignatureWebhooks: p.json<WebhookConfig[]>(),
    preTransactionSubmitWebhooks: p.json<WebhookConfig[]>(),
    postTransactionSubmitWebhooks: p.json<WebhookConfig[]>(),
    domain: p.text().nullable(),
    dataLength: p.integer(),
    tokenVersion: p.text().nullable(),
    /** Offchain balance of network currency in lamports, kept by the record step. */
    lamportsBalance: p.bigint().onCreate(() => 0n),
    tokenDecimals: p.integer(),
    lastTransactionId: p.uuid().nullable(),
    lastTransactionSignature: p.text().nullable(),
    lastTransactionAt: p.datetime().nullable(),
    creationTransactionId: p.uuid().nullable(),
    creationTransactionSignature: p.text().nullable(),
    creationTransactionAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Account = InferEntity<typeof Account>;

export interface StatusChange {
  status: string;
  at: string;
  /** The signature a status change concerns, when it is not the record's current one (an expired message's). */
  signature?: string;
}

/** A pre-submit webhook delivery that failed; the transaction went on unless the webhook may veto. */
export interface WebhookFailure {
  webhookName: string | null;
  eventType: string;
  httpStatus: number | null;
  error: string;
  at: string;
}

export const LedgerTransaction = defineEntity({
  name: 'LedgerTransaction',
  tableName: 'ledger_transaction',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    operation: p.text(),
    cluster: p.text(),
    status: p.text(),
    statusHistory: p.json<StatusChange[]>(),
    idempotencyKey: p.text().nullable(),
    /** Digest of the request (itemData and config) of a write with an idempotency key. */
    requestDigest: p.text().nullable(),
    workflowId: p.text(),
    signature: p.text().nullable(),
    serializedMessage: p.text().nullable(),
    feePayer: p.text().nullable(),
    /** The compute budget the message was built with (svmTransactionConfig.computeUnitConfig), null without one. */
    computeBudget: p.json<ComputeBudgetRecord>().nullable(),
    signers: p.array(),
    lastValidBlockHeight: p.bigint().nullable(),
    success: p.boolean().nullable(),
    errorCode: p.text().nullable(),
    errorMessage: p.text().nullable(),
    slot: p.bigint().nullable(),
    /** Lamports the landed transaction paid (its meta's fee). */
    fee: p.bigint().nullable(),
    /** Compute units the landed transaction consumed (its meta's computeUnitsConsumed). */
    computeUnitsConsumed: p.bigint().nullable(),
    confirmationsCount: p.integer().nullable(),
    txnTimestamp: p.datetime().nullable(),
    /** The address whose record this transaction creates, reserved while the transaction is live. */
    reservedAddress: p.text().nullable(),
    /** Offchain ids of the records this transaction created or touched. */
    accountIds: p.array(),
    /** What the write's lookup resolved (JSON, no secrets): a replayed lookup of a possibly-sent write answers it. */
    resolved: p.json<Resolved>().nullable(),
    /** The current message's lifetime (a recent blockhash, or a durable nonce), to prove it over. */
    lifetime: p.json<MessageLifetime>().nullable(),
    /** Signatures of the message by signer (base58, null where one is still missing), kept while the write waits in AWAITING_SIGNATURES. */
    signatures: p.json<Record<string, string | null>>().nullable(),
    /** The first transaction of a write that needs several (null for a one-transaction write), and this one's place. */
    writeTransactionId: p.uuid().nullable(),
    part: p
      .integer()
      .default(0)
      .onCreate(() => 0),
    /** Pre-submit webhook deliveries that failed without stopping the transaction (docs/webhooks.md), null when none. */
    webhookFailures: p.json<WebhookFailure[]>().nullable(),
    /** The offchain balances its record step moved (docs/finality.md): undone if it leaves the chain before finalization. */
    balanceMoves: p.json<BalanceMove[]>().nullable(),
    /** SERVICE: the service's own write; NETWORK: a network transaction the chain follower recorded (docs/chain-follower.md). */
    origin: p
      .text()
      .default('SERVICE')
      .onCreate(() => 'SERVICE'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type LedgerTransaction = InferEntity<typeof LedgerTransaction>;

/** An authority of an instrument: its address, and its account record when it is onboarded. */
export interface AuthorityRef {
  address: string;
  accountId: string | null;
}

export const FinancialInstrument = defineEntity({
  name: 'FinancialInstrument',
  tableName: 'financial_instrument',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    /** The mint's account record (type FUNDS_TOKEN, ASSET_TOKEN or CURRENCY_TOKEN). */
    mintAccountId: p.uuid(),
    mintAddress: p.text(),
    version: p.text(),
    alId: p.text(),
    financialInstrumentType: p.text().nullable(),
    decimals: p.integer(),
    symbol: p.text().nullable(),
    name: p.text().nullable(),
    uri: p.text().nullable(),
    onchainCustomMetadata: p.json<Record<string, string>>(),
    offchainData: p.json<Record<string, unknown>>(),
    extensions: p.array(),
    /** Authorities by the spec's field names (mintAuthority, updateAuthority, ...). */
    authorities: p.json<Record<string, AuthorityRef>>(),
    defaultPositionState: p.text().nullable(),
    paused: p.boolean().nullable(),
    scaledUiAmountMultiplier: p.text().nullable(),
    status: p.text(),
    managed: p.boolean(),
    wasOnchainAlready: p.boolean(),
    sharedAcrossTenants: p.boolean(),
    comments: p.text().nullable(),
    offchainReferenceName: p.text().nullable(),
    lastTransactionId: p.uuid().nullable(),
    lastTransactionAt: p.datetime().nullable(),
    creationTransactionId: p.uuid().nullable(),
    creationTransactionAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type FinancialInstrument = InferEntity<typeof FinancialInstrument>;

export const Position = defineEntity({
  name: 'Position',
  tableName: 'position',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    /** The token account's address. */
    address: p.text(),
    ownerAddress: p.text(),
    ownerAccountId: p.uuid().nullable(),
    financialInstrumentId: p.uuid(),
    mintAddress: p.text(),
    /** The owner's associated token account (true) or an explicit account. */
    associated: p.boolean(),
    status: p.text(),
    frozen: p.boolean(),
    /** Offchain balance in the instrument's base units (u64 fits numeric(20,0)). */
    balance: p.decimal('string'),
    comments: p.text().nullable(),
    code: p.text().nullable(),
    name: p.text().nullable(),
    lastTransactionId: p.uuid().nullable(),
    lastTransactionAt: p.datetime().nullable(),
    creationTransactionId: p.uuid().nullable(),
    creationTransactionAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Position = InferEntity<typeof Position>;

/** An address lookup table (spec 2.9): the table's address, its authority and the addresses it holds, with its one-way flags. */
export const AddressLookupTable = defineEntity({
  name: 'AddressLookupTable',
  tableName: 'address_lookup_table',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    address: p.text(),
    authorityAddress: p.text(),
    authorityAccountId: p.uuid().nullable(),
    /** Whether the service holds the authority's key. */
    managed: p.boolean(),
    /** The table's addresses in table order, and the offchain ids of those that are onboarded accounts. */
    componentAddresses: p.array(),
    componentAccountIds: p.array(),
    wasOnchainAlready: p.boolean(),
    frozen: p.boolean(),
    deactivated: p.boolean(),
    /** The slot of the deactivating transaction (decimal), for the cool-down before close. */
    deactivationSlot: p.text().nullable(),
    closed: p.boolean(),
    code: p.text().nullable(),
    name: p.text().nullable(),
    comments: p.text().nullable(),
    lastTransactionId: p.uuid().nullable(),
    lastTransactionAt: p.datetime().nullable(),
    creationTransactionId: p.uuid().nullable(),
    creationTransactionAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type AddressLookupTable = InferEntity<typeof AddressLookupTable>;

/**
 * A durable nonce account (spec 2.8) beside its account record (same id). `inUseByTransactionId` is
 * the transaction record whose message holds the nonce: one at a time, reserved at build and
 * released when that transaction lands, fails or is replaced. `nonceHash` is the nonce value last
 * read from the chain (at creation and at each reservation).
 */
export const DurableNonceAccount = defineEntity({
  name: 'DurableNonceAccount',
  tableName: 'durable_nonce_account',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    address: p.text(),
    code: p.text().nullable(),
    authorityAddress: p.text(),
    authorityAccountId: p.uuid().nullable(),
    /** false: its authority was looked up with `autoSign: false`, so the service never signs with it and never reserves this nonce. */
    authorityAutoSign: p.boolean(),
    nonceHash: p.text().nullable(),
    isInUse: p.boolean(),
    inUseByTransactionId: p.uuid().nullable(),
    inUseAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type DurableNonceAccount = InferEntity<typeof DurableNonceAccount>;

/**
 * One delivery attempt of one webhook (pre-submit, post-submit, replay): the log Fetch Webhook
 * Deliveries answers. `eventId` is the same on every attempt of an event, for receivers to deduplicate.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    transactionId: p.uuid(),
    eventId: p.text(),
    eventType: p.text(),
    webhookName: p.text().nullable(),
    endpointUrl: p.text(),
    attempt: p.integer(),
    at: p.datetime(),
    /** The receiver's answer; null when none came (timeout, network error, refused address, token endpoint failure). */
    httpStatus: p.integer().nullable(),
    /** Why the attempt failed; null on a 2xx. */
    error: p.text().nullable(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;

/** One decision on an approval: who (an API key id), what, why, when. */
export interface ApprovalDecision {
  apiKeyId: string;
  decision: 'APPROVE' | 'REJECT';
  comment: string | null;
  at: string;
}

/** A write over a limit that names approvers, waiting for (or decided by) them (docs/approvals.md). */
export const Approval = defineEntity({
  name: 'Approval',
  tableName: 'approval',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    transactionId: p.uuid(),
    accountId: p.uuid(),
    requiredApproversCount: p.integer(),
    approversForOverride: p.array(),
    decisions: p.json<ApprovalDecision[]>(),
    /** The limit that fired, the debit and the headroom the window had left (base units). */
    rule: p.json<Record<string, unknown>>(),
    status: p.text(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Approval = InferEntity<typeof Approval>;

/** A strategy's terms for one collateral instrument (cBPS; apy per duration index). */
export interface LoanCollateralTermsRecord {
  financialInstrumentId: string;
  mintAddress: string;
  apy: number[];
  loanToValueRatio: number;
  liquidationRatio: number;
}

/**
 * A loan strategy (docs/loans.md): the lender's vault (a managed account, same id as its account
 * record) whose positions hold the principal, and the terms it lends on.
 */
export const LoanStrategy = defineEntity({
  name: 'LoanStrategy',
  tableName: 'loan_strategy',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    vaultAddress: p.text(),
    lenderAddress: p.text(),
    lenderAccountId: p.uuid(),
    principalInstrumentId: p.uuid(),
    principalMint: p.text(),
    collateral: p.json<LoanCollateralTermsRecord[]>(),
    /** Mints of the accepted collateral (for filters). */
    collateralMints: p.array(),
    originationsEnabled: p.boolean(),
    /** Base units of the principal, or null (no cap / no buffer). */
    originationCap: p.decimal('string').nullable(),
    liquidityBuffer: p.decimal('string').nullable(),
    rollover: p.boolean(),
    creationTransactionId: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type LoanStrategy = InferEntity<typeof LoanStrategy>;

/** One pledged item of a loan: the instrument and the units the escrow holds of it. */
export interface PledgedItemRecord {
  financialInstrumentId: string;
  mintAddress: string;
  /** Base units held by the escrow. */
  amount: string;
  /** The escrow's position of the instrument. */
  escrowPosition: string;
}

/**
 * A loan (spec 2.6, docs/loans.md): the escrow wallet (a managed account made for the loan) holding
 * the pledged items, the principal borrowed from a strategy's vault, its term and interest.
 * Amounts are base units; interest accrues from lastInterestUpdateTime and is moved into
 * interestOutstanding at each loan write.
 */
export const Loan = defineEntity({
  name: 'Loan',
  tableName: 'loan',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    strategyId: p.uuid(),
    strategyAddress: p.text(),
    escrowAddress: p.text(),
    escrowAccountId: p.uuid(),
    borrowerAddress: p.text(),
    borrowerAccountId: p.uuid(),
    lenderAddress: p.text(),
    lenderAccountId: p.uuid(),
    principalInstrumentId: p.uuid(),
    principalMint: p.text(),
    /** The principal's decimals (amounts of the compact record without loading the instrument). */
    principalDecimals: p.integer(),
    pledged: p.json<PledgedItemRecord[]>(),
    collateralMints: p.array(),
    collateralInstrumentIds: p.array(),
    principalDue: p.decimal('string'),
    principalRepaid: p.decimal('string'),
    interestOutstanding: p.decimal('string'),
    apy: p.integer(),
    loanToValueRatio: p.integer(),
    liquidationRatio: p.integer(),
    durationIndex: p.integer(),
    durationDays: p.integer(),
    termStartAt: p.datetime(),
    maturityAt: p.datetime(),
    lastInterestUpdateTime: p.datetime(),
    status: p.text(),
    creationTransactionId: p.uuid().nullable(),
    lastTransactionId: p.uuid().nullable(),
    createdAt: p.datetime(),
    /** The write that holds the loan (lookup to record): one movement of a loan at a time. */
    inUseByTransactionId: p.uuid().nullable(),
    updatedAt: p.datetime(),
  },
});
export type Loan = InferEntity<typeof Loan>;

export { OracleDataSource } from './oracle-data-source.entity';
export { DriftFinding } from './drift-finding.entity';

export const entities = [
  Organization,
  ApiKey,
  CustodyKey,
  Account,
  LedgerTransaction,
  FinancialInstrument,
  Position,
  AddressLookupTable,
  DurableNonceAccount,
  WebhookDelivery,
  Approval,
  OracleDataSource,
  LoanStrategy,
  Loan,
  DriftFinding,
];
