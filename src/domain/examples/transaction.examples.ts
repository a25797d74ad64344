/** Examples of the transaction reads. */
import { at, confirmedTransaction, ids, signature, statusHistory, transactionDetailed, earlier } from './example-values';
import type { OperationExample } from './operation-examples';

const webhookDeliveries = [
  {
    eventId: `${ids.transaction}:TRANSACTION_POST_SUBMIT`,
    eventType: 'TRANSACTION_POST_SUBMIT',
    webhookName: 'settlement',
    attempt: 1,
    at: earlier,
    httpStatus: 503,
    error: 'the receiver answered HTTP 503',
  },
  {
    eventId: `${ids.transaction}:TRANSACTION_POST_SUBMIT`,
    eventType: 'TRANSACTION_POST_SUBMIT',
    webhookName: 'settlement',
    attempt: 2,
    at,
    httpStatus: 200,
    error: null,
  },
];

export const transactionExamples: Record<string, OperationExample> = {
  fetchTransactionStatus: {
    request: { itemData: { transaction: { offchainId: ids.transaction } } },
    response: { offchainId: ids.transaction, onchainId: signature, status: 'CONFIRMED', success: true, errorMessage: null, statusHistory },
  },
  fetchTransactionDetails: {
    request: { itemData: { transaction: { onchainId: signature } } },
    response: transactionDetailed,
  },
  fetchWebhookDeliveries: {
    request: { itemData: { transaction: { offchainId: ids.transaction } } },
    response: { items: webhookDeliveries },
  },
  replayWebhookDelivery: {
    request: { itemData: { eventId: `${ids.transaction}:TRANSACTION_POST_SUBMIT` } },
    response: { items: [...webhookDeliveries, { ...webhookDeliveries[1], attempt: 3, at }] },
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
    request: {
      itemQuery: {
        limit: 25,
        filter: [{ fieldName: 'status', filterValues: [{ dataType: 'TEXT', filterType: 'IN', valuesString: ['CONFIRMED', 'FINALIZED'] }] }],
      },
    },
    response: { count: 1, items: [{ ...confirmedTransaction, operation: 'MINT', origin: 'SERVICE', createdAt: earlier }] },
  },
};
