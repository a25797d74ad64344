/** Examples of the transaction reads. */
import { confirmedTransaction, ids, signature, statusHistory, transactionDetailed, earlier } from './example-values';
import type { OperationExample } from './operation-examples';

export const transactionExamples: Record<string, OperationExample> = {
  fetchTransactionStatus: {
    request: { itemData: { transaction: { offchainId: ids.transaction } } },
    response: { offchainId: ids.transaction, onchainId: signature, status: 'CONFIRMED', success: true, errorMessage: null, statusHistory },
  },
  fetchTransactionDetails: {
    request: { itemData: { transaction: { onchainId: signature } } },
    response: transactionDetailed,
  },
  signTransaction: {
    request: { itemData: { transaction: { offchainId: ids.transaction }, signatures: [{ signer: ids.investor.onchainId, signature }] } },
    response: confirmedTransaction,
  },
  submitTransaction: {
    request: { itemData: { transaction: { offchainId: ids.transaction } } },
    response: confirmedTransaction,
  },
  cancelTransaction: {
    request: { itemData: { transaction: { offchainId: ids.transaction } } },
    response: { transaction: { offchainId: ids.transaction, status: 'CANCELLED' } },
  },
  fetchTransactions: {
    request: { itemQuery: { limit: 25, filter: [{ fieldName: 'status', filterValues: [{ dataType: 'TEXT', filterType: 'IN', valuesString: ['CONFIRMED', 'FINALIZED'] }] }] } },
    response: { count: 1, items: [{ ...confirmedTransaction, operation: 'MINT', createdAt: earlier }] },
  },
};
