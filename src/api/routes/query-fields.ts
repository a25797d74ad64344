/** The filter and sort whitelists of each resource (spec 4.1), mapped to entity properties. */
import { accountStatuses, accountTypes } from '../../domain/account-types';
import type { QueryField, QueryResource } from '../../domain/item-query';
import { transactionStatuses } from '../../domain/write';
import { operations } from '../../domain/operations/registry';
import { loanStatuses } from '../../domain/loans';
import { authorityFields } from '../../domain/instrument-authorities';

const text = (property: string, extra: Partial<QueryField> = {}): QueryField => ({ property, kind: 'TEXT', dataTypes: ['TEXT'], ...extra });
const bool = (property: string, extra: Partial<QueryField> = {}): QueryField => ({ property, kind: 'BOOLEAN', dataTypes: ['BOOLEAN'], ...extra });
const timestamp = (property: string): QueryField => ({ property, kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'], nullable: true });
const list = (property: string): QueryField => ({ property, kind: 'TEXT', dataTypes: ['TEXT'], array: true, nullable: true });

export const accountQuery: QueryResource = {
  fields: {
    managed: bool('managed'),
    type: text('type', { dataTypes: ['OFFCHAIN_REFRENCE_TYPE', 'TEXT'], values: accountTypes }),
    code: text('code', { nullable: true }),
    alId: text('alId', { nullable: true }),
    accountNumber: text('accountNumber', { nullable: true }),
    externalOrganizationId: text('referenceOrganizationExternalId', { nullable: true }),
    offchainReferenceName: text('name', { nullable: true }),
    status: text('status', { values: accountStatuses }),
    lamportsBalance: { property: 'lamportsBalance', kind: 'NUMBER', dataTypes: ['NUMBER'], integer: true },
    orgsIsGlobalFeePayerFor: list('globalFeePayerForOrgs'),
    orgsAllowedToSignWithPrivateKey: list('orgsAllowedToSignWithPrivateKey'),
    lastTransactionAt: timestamp('lastTransactionAt'),
    creationTransactionAt: timestamp('creationTransactionAt'),
    wasAlreadyOnchain: bool('wasOnchainAlready'),
    privateKeyLocation: { ...list('privateKeyLocation'), nullable: false },
    canPayFees: bool('canPayFees'),
    sharedAccrossTenants: bool('sharedAcrossTenants'),
    comments: text('comments', { nullable: true }),
    solDebitApiKeys: list('solDebitApiKeys'),
    tokenDebitApiKeys: list('tokenDebitApiKeys'),
    tenantOrganizationId: { property: 'organizationId', kind: 'UUID', dataTypes: ['TEXT', 'OFFCHAIN_ID'] },
  },
  defaultSort: [['managed', 'DESC']],
  idProperty: 'id',
};

/** Each authority of an instrument, and its transfer hook program, filters by `<name>OnchainId` and `<name>OffchainId` (spec 4.1, spellings as given). */
const authorityQueryFields = Object.fromEntries(
  ['transferHookProgram', ...authorityFields].flatMap((name): [string, QueryField][] => [
    [
      `${name}OnchainId`,
      { property: `authorities.${name}.address`, kind: 'TEXT', dataTypes: ['ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID', 'TEXT'], nullable: true },
    ],
    [
      name === 'updateAuthority' ? 'udpateAuthorityOffchainId' : `${name}OffchainId`,
      { property: `authorities.${name}.accountId`, kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'], nullable: true },
    ],
  ]),
);

export const financialInstrumentQuery: QueryResource = {
  fields: {
    managed: bool('managed'),
    version: text('version', { values: ['SPL', 'TOKEN_2022'] }),
    alId: text('alId'),
    offchainReferenceName: text('offchainReferenceName', { nullable: true }),
    lastTransactionAt: timestamp('lastTransactionAt'),
    creationTransactionAt: timestamp('creationTransactionAt'),
    wasAlreadyOnchain: bool('wasOnchainAlready'),
    sharedAccrossTenants: bool('sharedAcrossTenants'),
    comments: text('comments', { nullable: true }),
    tenantOrganizationId: { property: 'organizationId', kind: 'UUID', dataTypes: ['TEXT', 'OFFCHAIN_ID'] },
    defaultPositionState: text('defaultPositionState', { nullable: true, values: ['INITIALIZED', 'FROZEN'] }),
    paused: bool('paused', { nullable: true }),
    ...authorityQueryFields,
  },
  defaultSort: [
    ['managed', 'DESC'],
    ['version', 'DESC'],
  ],
  idProperty: 'id',
};

/** Positions (the spec shows none; chosen by the product, documented in the OpenAPI summary). */
export const positionQuery: QueryResource = {
  fields: {
    status: text('status', { values: ['ACTIVE', 'INACTIVE'] }),
    frozen: bool('frozen'),
    associated: bool('associated'),
    ownerOnchainId: { property: 'ownerAddress', kind: 'TEXT', dataTypes: ['ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID', 'TEXT'] },
    ownerOffchainId: { property: 'ownerAccountId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'], nullable: true },
    financialInstrumentOnchainId: { property: 'mintAddress', kind: 'TEXT', dataTypes: ['ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID', 'TEXT'] },
    financialInstrumentOffchainId: { property: 'financialInstrumentId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    positionOnchainId: { property: 'address', kind: 'TEXT', dataTypes: ['ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID', 'TEXT'] },
    balance: { property: 'balance', kind: 'NUMBER', dataTypes: ['NUMBER'], integer: true },
    code: text('code', { nullable: true }),
    name: text('name', { nullable: true }),
    comments: text('comments', { nullable: true }),
    lastTransactionAt: timestamp('lastTransactionAt'),
    creationTransactionAt: timestamp('creationTransactionAt'),
    tenantOrganizationId: { property: 'organizationId', kind: 'UUID', dataTypes: ['TEXT', 'OFFCHAIN_ID'] },
  },
  defaultSort: [['creationTransactionAt', 'DESC']],
  idProperty: 'id',
};

/** Transactions (docs/behaviour/transactions.md: fields chosen by the product; the spec shows none). */
export const transactionQuery: QueryResource = {
  fields: {
    status: text('status', { values: transactionStatuses }),
    operation: text('operation', { values: [...operations, 'NETWORK_TRANSACTION'] }),
    // API.md section 9: the service's own writes, or network transactions of subscribed accounts.
    origin: text('origin', { values: ['SERVICE', 'NETWORK'] }),
    onchainId: { property: 'signature', kind: 'TEXT', dataTypes: ['TEXT', 'ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID'], nullable: true },
    offchainId: { property: 'id', kind: 'UUID', dataTypes: ['TEXT', 'OFFCHAIN_ID'] },
    success: bool('success', { nullable: true }),
    feePayer: { property: 'feePayer', kind: 'TEXT', dataTypes: ['TEXT', 'ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID'], nullable: true },
    idempotencyId: text('idempotencyKey', { nullable: true }),
    slot: { property: 'slot', kind: 'NUMBER', dataTypes: ['NUMBER'], nullable: true, integer: true },
    accountOffchainId: { ...list('accountIds'), dataTypes: ['TEXT', 'OFFCHAIN_ID'] },
    createdAt: { property: 'createdAt', kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'] },
    txnTimestamp: timestamp('txnTimestamp'),
  },
  defaultSort: [['createdAt', 'DESC']],
  idProperty: 'id',
};

/** Address lookup tables (spec 4.1). */
export const addressLookupTableQuery: QueryResource = {
  fields: {
    managed: bool('managed'),
    authorityOnchainId: { property: 'authorityAddress', kind: 'TEXT', dataTypes: ['ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID', 'TEXT'] },
    componentAddressOnchainId: { ...list('componentAddresses'), dataTypes: ['ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID', 'TEXT'] },
    authorityOffchainId: { property: 'authorityAccountId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'], nullable: true },
    componentAddressOffchainId: { ...list('componentAccountIds'), dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    wasAlreadyOnchain: bool('wasOnchainAlready'),
    frozen: bool('frozen'),
    deactivated: bool('deactivated'),
    closed: bool('closed'),
  },
  defaultSort: [['managed', 'DESC']],
  idProperty: 'id',
};

/** Onchain data sources (spec 4.1); `dataType` ascending by default. */
export const onchainDataSourceQuery: QueryResource = {
  fields: {
    defiProtocol: text('defiProtocol', { values: ['LEDGER_FEED'] }),
    dataType: text('kind', { values: ['PRICE', 'RATING'] }),
    ratingAgency: text('ratingProvider', { nullable: true }),
    onchainDataSourceOffchainId: { property: 'id', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    financialInstrumentOffchainId: { property: 'financialInstrumentId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    onchainDataSourceAuthorityOffchainId: { property: 'authorityAccountId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'], nullable: true },
    onchainDataSourceOnchainId: { property: 'address', kind: 'TEXT', dataTypes: ['ADDRESS_ONCHAIN_ID', 'ONCHAIN_ADDRESS_ID', 'TEXT'] },
    financialInstrumentOnchainId: { property: 'financialInstrumentAddress', kind: 'TEXT', dataTypes: ['ADDRESS_ONCHAIN_ID', 'ONCHAIN_ADDRESS_ID', 'TEXT'] },
    onchainDataSourceAuthorityOnchainId: { property: 'authorityAddress', kind: 'TEXT', dataTypes: ['ADDRESS_ONCHAIN_ID', 'ONCHAIN_ADDRESS_ID', 'TEXT'] },
  },
  defaultSort: [['dataType', 'ASC']],
  idProperty: 'id',
};

/** Durable nonce accounts (spec 4.1, spellings as given); `isInUse` ascending by default (free ones first). */
export const durableNonceAccountQuery: QueryResource = {
  fields: {
    nonceAuthorityOnchainId: { property: 'authorityAddress', kind: 'TEXT', dataTypes: ['ADDRESS_ONCHAIN_ID', 'ONCHAIN_ADDRESS_ID', 'TEXT'] },
    nonceAccountOnchainId: { property: 'address', kind: 'TEXT', dataTypes: ['ADDRESS_ONCHAIN_ID', 'ONCHAIN_ADDRESS_ID', 'TEXT'] },
    nonceAuthorityOffchainId: { property: 'authorityAccountId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'], nullable: true },
    nonceAccountOffchainId: { property: 'id', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    inUseByTransactionId: { property: 'inUseByTransactionId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'], nullable: true },
    nonceAccountCode: text('code', { nullable: true }),
    isInUse: bool('isInUse'),
    nonceHash: text('nonceHash', { nullable: true }),
  },
  defaultSort: [['isInUse', 'ASC']],
  idProperty: 'id',
};

export const approvalQuery: QueryResource = {
  fields: {
    status: text('status', { values: ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'] }),
    transactionOffchainId: { property: 'transactionId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    accountOffchainId: { property: 'accountId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    createdAt: timestamp('createdAt'),
  },
  defaultSort: [['createdAt', 'DESC']],
  idProperty: 'id',
};

const onchain = (property: string, extra: Partial<QueryField> = {}): QueryField => ({
  property,
  kind: 'TEXT',
  dataTypes: ['ONCHAIN_ADDRESS_ID', 'ADDRESS_ONCHAIN_ID', 'TEXT'],
  ...extra,
});
const offchain = (property: string, extra: Partial<QueryField> = {}): QueryField => ({ property, kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'], ...extra });

/** Loan strategies (chosen by the product). */
export const loanStrategyQuery: QueryResource = {
  fields: {
    loanStrategyOnchainId: onchain('vaultAddress'),
    loanStrategyOffchainId: offchain('id'),
    lenderOnchainId: onchain('lenderAddress'),
    lenderOffchainId: offchain('lenderAccountId'),
    principalFinancialInstrumentOnchainId: onchain('principalMint'),
    principalFinancialInstrumentOffchainId: offchain('principalInstrumentId'),
    collateralFinancialInstrumentOnchainId: { ...onchain('collateralMints'), array: true },
    originationsEnabled: bool('originationsEnabled'),
    rollover: bool('rollover'),
    createdAt: { property: 'createdAt', kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'] },
  },
  defaultSort: [['createdAt', 'DESC']],
  idProperty: 'id',
};

/** Loans (chosen by the product: status, parties, strategy, instruments, dates). */
export const loanQuery: QueryResource = {
  fields: {
    status: text('status', { values: loanStatuses }),
    escrowOnchainId: onchain('escrowAddress'),
    escrowOffchainId: offchain('escrowAccountId'),
    borrowerOnchainId: onchain('borrowerAddress'),
    borrowerOffchainId: offchain('borrowerAccountId'),
    lenderOnchainId: onchain('lenderAddress'),
    lenderOffchainId: offchain('lenderAccountId'),
    loanStrategyOnchainId: onchain('strategyAddress'),
    loanStrategyOffchainId: offchain('strategyId'),
    principalFinancialInstrumentOnchainId: onchain('principalMint'),
    principalFinancialInstrumentOffchainId: offchain('principalInstrumentId'),
    collateralFinancialInstrumentOnchainId: { ...onchain('collateralMints'), array: true },
    collateralFinancialInstrumentOffchainId: { ...offchain('collateralInstrumentIds'), kind: 'TEXT', array: true },
    durationIndex: { property: 'durationIndex', kind: 'NUMBER', dataTypes: ['NUMBER'], integer: true },
    termStartAt: { property: 'termStartAt', kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'] },
    maturityAt: { property: 'maturityAt', kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'] },
    createdAt: { property: 'createdAt', kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'] },
  },
  defaultSort: [['createdAt', 'DESC']],
  idProperty: 'id',
};
