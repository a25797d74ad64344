/** Examples of the account operations: a request and its answer each. */
import { confirmedTransaction, identifiers, ids, treasuryCompact, treasuryDetailed } from './example-values';
import type { OperationExample } from './operation-examples';

const feePayer = { svmTransactionConfig: { feePayer: { offchainId: ids.treasury.offchainId }, commitmentConfig: { commitmentLevel: 'confirmed' } } };

export const accountExamples: Record<string, OperationExample> = {
  createAccount: {
    request: {
      itemData: {
        managed: true,
        offchainReferences: { type: 'WALLET', code: 'INV-7', name: 'Investor 7', accountNumber: '100-200-377' },
        seed: { amount: '0.05' },
        canPayFees: false,
        comments: 'Onboarded by the bond desk',
        networkCurrencyDebitLimits: [{ destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 2.5 } }],
      },
      ...feePayer,
    },
    response: { newAccount: ids.investor, svmTransaction: confirmedTransaction },
  },
  updateAccount: {
    request: {
      itemData: { account: { offchainId: ids.treasury.offchainId }, comments: 'Pays fees for the bond desk', offchainReferences: { code: 'TREASURY-01' } },
    },
    response: { updatedAccount: ids.treasury, svmTransaction: null },
  },
  inactivateAccount: {
    request: {
      itemData: { accountToInactivate: { offchainId: ids.investor.offchainId }, transferRemainingNetworkCurrencyTo: { offchainId: ids.treasury.offchainId } },
      ...feePayer,
    },
    response: { inactivatedAccount: ids.investor, svmTransaction: confirmedTransaction },
  },
  fetchAccounts: {
    request: {
      itemQuery: {
        limit: 50,
        skip: 0,
        filter: [{ fieldName: 'type', operator: 'AND', filterValues: [{ dataType: 'OFFCHAIN_REFRENCE_TYPE', filterType: 'EQUALS', valueString: 'WALLET' }] }],
        sort: [{ fieldName: 'lastTransactionAt', sortDirection: 'DESC' }],
      },
    },
    response: { count: 1, items: [treasuryCompact] },
  },
  fetchAccountDetails: {
    request: { itemData: { account: { onchainId: ids.treasury.onchainId } } },
    response: treasuryDetailed,
  },
  fetchAccountBalance: {
    request: { itemData: { account: { offchainReferences: { code: 'TREASURY-01' } } } },
    response: {
      account: identifiers(ids.treasury),
      onchain: { balance: { amount: 2.000005, lamports: 2000005000 } },
      offchain: { balance: { amount: 2.000005, lamports: 2000005000 } },
    },
  },
  transferNetworkCurrency: {
    request: {
      itemData: {
        source: { offchainId: ids.treasury.offchainId },
        destination: { onchainId: ids.investor.onchainId },
        value: { amount: '0.250000001' },
        idempotencyId: '7b3e1f9c-2d4a-4c8e-9f6b-1a5d3c7e9b20',
        memo: 'Coupon float',
      },
      // A simulated limit and the median recent priority fee of the message's writable accounts (docs/compute-budget.md).
      svmTransactionConfig: {
        ...feePayer.svmTransactionConfig,
        computeUnitConfig: { enable: true, priceEstimate: { provider: 'CLUSTER_RPC', calculationStrategy: 'DEFAULT', priorityLevel: 'RECOMMENDED' } },
      },
    },
    response: confirmedTransaction,
  },
  fetchAccountPrivateKey: {
    request: { itemData: { account: { offchainId: ids.investor.offchainId } } },
    response: {
      account: identifiers(ids.investor),
      privateKey: '4NMwxzmYj2uvHuq8xoqhY8RXg63KSVJM1DXkpbmkUY7YQWuoyQgFnnzn6yo3CMnqZasnNPNuAT2TLwQsCaKkUddp',
      privateKeyLocation: ['DATABASE'],
    },
  },
};
