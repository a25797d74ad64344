/**
 * Values the examples share, so one operation's answer names what another created: a treasury
 * wallet, a bond token (6 decimals) and its positions. Amounts are exact decimals; requests show
 * both forms a client may send (a JSON number, or a string of decimal text).
 */
import { writeWorkflowId } from '../write';

export const ids = {
  treasury: { onchainId: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU', offchainId: '0f8c2b6e-4d1a-4e7b-9c3f-5a2d8e6b1c40' },
  investor: { onchainId: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', offchainId: '6a1d3f9b-2c4e-4b8a-a7d5-3e9f1c2b8d61' },
  authority: { onchainId: 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3', offchainId: 'c2e7a9d4-8b3f-4a16-b5e2-7d9c1f3a6e82' },
  mint: { onchainId: 'Bond5mQw8vLZ3kRtHyPc2XJfNsE7dGuA9bW4nVxKoT6e', offchainId: '4b9e2d7a-1f3c-4e8b-a6d2-9c5f3b1e7a03' },
  instrument: { onchainId: 'Bond5mQw8vLZ3kRtHyPc2XJfNsE7dGuA9bW4nVxKoT6e', offchainId: 'e5a3c8f1-7b2d-4c9e-8f4a-1d6b3e9c2a74' },
  treasuryPosition: { onchainId: '3Tqz1d4LbGx5yQeC8wVhN7pR2mKjF6sAo9uXbH4cDe5W', offchainId: '8d2f6b1e-3a9c-4d7e-b2f5-6c1a9e3d8b25' },
  investorPosition: { onchainId: 'CkPz8rYvW3xN6mTq2JhB5dLsG9eF4aU7oRiE1nVtKwXy', offchainId: 'a7c1e4b9-6d2f-4a3e-9b8c-2f5d7a1e4c96' },
  transaction: '5d0e8f6a-3c2b-4e1d-9a7f-6b8c0d1e2f3a',
  organization: '1e4b7c2a-9d3f-4a6e-8b1c-5f2d9a7e3c18',
  requestId: '9f2c4e1a-5b7d-4c3e-8a1f-2d6b0e9c7a41',
};

export const signature = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
export const at = '2026-03-02T14:05:09.512Z';
export const earlier = '2026-03-02T14:04:58.107Z';

/** A transaction result (spec 2.2) of a confirmed write. */
export const confirmedTransaction = {
  success: true,
  offchainId: ids.transaction,
  status: 'CONFIRMED',
  onchainId: signature,
  confirmationsCount: 1,
  serializedMessage: 'AQAHDmZ3kq0v2hYc7r5b8Xw1N3m9Fq4pT6sJ2dK8eL0oA5cB7gH1iV3uY9xZ2wQ4rE6tR8yU0iO2pA4sD6fG8hJ0kL==',
  errorMessage: null,
  txnTimestamp: at,
};

export const identifiers = (ref: { onchainId: string; offchainId: string }) => ({ onchain: { id: ref.onchainId }, offchain: { id: ref.offchainId } });

/** The treasury wallet's offchain id and references, the same at every detail level. */
const treasuryReferences = {
  id: ids.treasury.offchainId,
  type: 'WALLET',
  code: 'TREASURY-01',
  alId: null,
  organizationExternalId: 'acme-capital',
  accountNumber: '100-200-300',
};

/** The treasury wallet's account record at the detailed level. */
export const treasuryDetailed = {
  onchain: {
    id: ids.treasury.onchainId,
    lastTransactionId: signature,
    lastTransactionAt: at,
    creationTransactionId: signature,
    creationTransactionAt: earlier,
  },
  offchain: {
    ...treasuryReferences,
    name: 'Treasury wallet',
    balance: { amount: 2.000005, lamports: 2000005000 },
    tokenDecimals: 9,
    lastTransactionId: ids.transaction,
    creationTransactionId: ids.transaction,
  },
  managed: true,
  status: 'ACTIVE',
  privateKeyLocation: ['DATABASE'],
  isDerived: false,
  isGenesis: false,
  comments: 'Pays fees for the bond desk',
  subscribeToNetworkEvents: false,
  sharedAcrossTenants: false,
  wasOnchainAlready: false,
  canPayFees: true,
  globalFeePayerForOrgs: [],
  orgsAllowedToSignWithPrivateKey: [],
  solDebitApiKeys: [],
  tokenDebitApiKeys: [],
  networkCurrencyDebitLimits: [{ destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '2.5' } }],
  tokenDebitLimits: null,
  missingSignatureWebhooks: [],
  preTransactionSubmitWebhooks: [],
  postTransactionSubmitWebhooks: [
    { endpointUrl: 'https://hooks.acme.example/ledger', name: 'settlement', apiKeyAuthConfig: { httpHeaderName: 'x-api-key', keyValue: '***' }, timeout: 5000 },
  ],
  dataLength: 0,
  tokenVersion: null,
  domain: null,
  tenantOrganizationId: ids.organization,
};

export const treasuryCompact = {
  onchain: { id: ids.treasury.onchainId, lastTransactionId: signature, lastTransactionAt: at },
  offchain: { ...treasuryReferences, lastTransactionId: ids.transaction },
};

export const authorityReference = (ref: { onchainId: string; offchainId: string }) => ({
  onchain: { id: ref.onchainId },
  offchain: { id: ref.offchainId },
  managed: true,
  tenantOrganizationId: ids.organization,
});

export const instrumentCompact = {
  onchain: { id: ids.instrument.onchainId, lastTransactionAt: at },
  offchain: { id: ids.instrument.offchainId, alId: 'ALFICBD00000042', lastTransactionId: ids.transaction },
  version: 'TOKEN_2022',
  status: 'ACTIVE',
};

export const instrumentDetailed = {
  ...instrumentCompact,
  offchain: { ...instrumentCompact.offchain, financialInstrumentType: 'CORPORATE_BOND', creationTransactionId: ids.transaction },
  mintAccount: identifiers(ids.mint),
  freezeAuthority: authorityReference(ids.authority),
  permanentDelegateAuthority: authorityReference(ids.authority),
  mintAuthority: authorityReference(ids.authority),
  updateAuthority: authorityReference(ids.authority),
  onchainData: { decimals: 6, symbol: 'ACB29', name: 'Acme Corp 4.25% 2029', uri: null, simpleCustomMetadata: { isin: 'US0000000AB1' } },
  offchainData: { description: 'Senior unsecured notes, semi-annual coupon' },
  extensions: ['METADATA_POINTER', 'TOKEN_METADATA', 'PERMANENT_DELEGATE'],
  defaultPositionState: 'INITIALIZED',
  paused: null,
  scaledUiAmountMultiplier: null,
  managed: true,
  wasOnchainAlready: false,
  sharedAcrossTenants: false,
  comments: null,
  offchainReferenceName: 'Acme 2029 notes',
  creationTransactionAt: earlier,
  tenantOrganizationId: ids.organization,
};

const positionCompactOf = (
  ref: { onchainId: string; offchainId: string },
  owner: { onchainId: string; offchainId: string },
  balance: Record<string, number>,
) => ({
  onchain: { id: ref.onchainId, lastTransactionAt: at },
  offchain: { id: ref.offchainId, lastTransactionId: ids.transaction, balance },
  owner: { onchain: { id: owner.onchainId }, offchain: { id: owner.offchainId } },
  financialInstrument: identifiers(ids.instrument),
  status: 'ACTIVE',
  frozen: false,
  associated: true,
});

export const investorPositionCompact = positionCompactOf(ids.investorPosition, ids.investor, { lamports: 1250000001 });
export const investorPositionDetailed = {
  ...positionCompactOf(ids.investorPosition, ids.investor, { amount: 1250.000001, lamports: 1250000001 }),
  comments: null,
  code: 'INV-7',
  name: 'Investor 7, Acme 2029',
  creationTransactionId: ids.transaction,
  creationTransactionAt: earlier,
  tenantOrganizationId: ids.organization,
};

export const statusHistory = [
  { status: 'PENDING', at: earlier },
  { status: 'BUILT', at: '2026-03-02T14:04:58.391Z' },
  { status: 'SIGNED', at: '2026-03-02T14:04:58.412Z', signature },
  { status: 'SUBMITTED', at: '2026-03-02T14:04:58.530Z' },
  { status: 'CONFIRMED', at },
];

export const transactionDetailed = {
  ...confirmedTransaction,
  operation: 'MINT',
  origin: 'SERVICE',
  cluster: 'LOCAL',
  statusHistory,
  idempotencyId: '2c7e9a14-5b3d-4f8e-a1c6-9d4b2e7f3a58',
  workflowId: writeWorkflowId('MINT', { id: ids.organization, externalId: 'acme-capital' }, '2c7e9a14-5b3d-4f8e-a1c6-9d4b2e7f3a58'),
  feePayer: ids.treasury.onchainId,
  computeUnitConfig: { limit: 7766, limitSource: 'SIMULATED', simulatedUnits: 6766, price: '1000', priceEstimate: null },
  computeUnitsConsumed: 6766,
  fee: 5008,
  signers: [ids.treasury.onchainId, ids.authority.onchainId],
  slot: 418223,
  lastValidBlockHeight: 418373,
  accountOffchainIds: [ids.investorPosition.offchainId],
  webhookFailures: [{ webhookName: 'risk-check', eventType: 'TRANSACTION_PRE_SUBMIT', httpStatus: 503, error: 'the receiver answered HTTP 503', at: earlier }],
  tenantOrganizationId: ids.organization,
  createdAt: earlier,
  updatedAt: at,
};

/** A position lookup by owner and instrument (the associated token account). */
export const investorPositionLookup = { owner: { offchainId: ids.investor.offchainId }, financialInstrument: { onchainId: ids.instrument.onchainId } };
export const treasuryPositionLookup = { owner: { offchainId: ids.treasury.offchainId }, financialInstrument: { onchainId: ids.instrument.onchainId } };
