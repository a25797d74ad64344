/** Examples of the durable nonce account operations: a request and its answer each. */
import { at, authorityReference, confirmedTransaction, ids, signature, treasuryDetailed } from './example-values';
import type { OperationExample } from './operation-examples';

const nonce = { onchainId: 'NoNcE8vQ3kJ7tYp2WmXbR5sLdG4hF9aZcU6eK1oTiPq', offchainId: '2b7d4f1a-8c3e-4a9b-b6d1-5e2f8a4c7d93' };
const nonceHash = 'F8kZ3rTq9WmXbR5sLdG4hJ7tYp2vQ6eK1oNcU4aPiBx';

const nonceDetailed = {
  ...treasuryDetailed,
  onchain: { id: nonce.onchainId, lastTransactionId: signature, lastTransactionAt: at, creationTransactionId: signature, creationTransactionAt: at },
  offchain: {
    ...treasuryDetailed.offchain,
    id: nonce.offchainId,
    type: 'NONCE',
    code: 'NONCE-DESK',
    accountNumber: null,
    name: null,
    balance: { amount: 0.00144768, lamports: 1447680 },
  },
  comments: null,
  canPayFees: false,
  networkCurrencyDebitLimits: null,
  postTransactionSubmitWebhooks: [],
  dataLength: 80,
};

const nonceRecord = {
  nonceAccount: nonceDetailed,
  nonceAuthority: authorityReference(ids.authority),
  nonceHash,
  inUse: { transactionOffchainId: ids.transaction, transactionAt: at },
};

export const durableNonceExamples: Record<string, OperationExample> = {
  createDurableNonceAccounts: {
    request: {
      itemData: {
        nonceAccount: { offchainReferences: { type: 'NONCE', code: 'NONCE-DESK' } },
        numberOfNonceAccounts: 3,
        nonceAuthority: { offchainId: ids.authority.offchainId },
      },
      svmTransactionConfig: { feePayer: { offchainId: ids.treasury.offchainId } },
    },
    response: { transactions: [confirmedTransaction] },
  },
  fetchDurableNonceAccounts: {
    request: {
      itemQuery: {
        limit: 20,
        filter: [
          {
            fieldName: 'nonceAuthorityOnchainId',
            filterValues: [{ dataType: 'ADDRESS_ONCHAIN_ID', filterType: 'EQUALS', valueString: ids.authority.onchainId }],
          },
        ],
        sort: [{ fieldName: 'isInUse', sortDirection: 'ASC' }],
      },
    },
    response: { count: 1, items: [nonceRecord] },
  },
  fetchDurableNonceAccountDetails: {
    request: { itemData: { nonceAccount: { onchainId: nonce.onchainId } } },
    response: { ...nonceRecord, inUse: null },
  },
};
