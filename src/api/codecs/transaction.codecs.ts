/** Transaction reads: a transaction named by offchainId or onchainId (signature). */
import { address, arrayOf, strictObject, nonEmptyString, uuid } from '../../domain/inputs/primitives';
import { itemDataBody } from './common.codecs';

export const transactionLookup = strictObject('TransactionLookup', {}, { offchainId: uuid, onchainId: nonEmptyString(100) });
export const singleTransactionBody = itemDataBody(
  'SingleTransactionRequest',
  strictObject('SingleTransactionItemData', { transaction: transactionLookup }, {}),
);

/** Replay Webhook Delivery (docs/webhooks.md): one event, by the eventId its deliveries carry. */
export const replayWebhookDeliveryBody = itemDataBody(
  'ReplayWebhookDeliveryRequest',
  strictObject('ReplayWebhookDeliveryItemData', { eventId: nonEmptyString(300) }, {}),
);
const suppliedSignature = strictObject(
  'SuppliedSignature',
  { signer: address, signature: nonEmptyString(100) },
  {},
  "A signer the transaction needs and its ed25519 signature of the transaction's message (serializedMessage, base64-decoded), base58.",
);

/** Sign Transaction: signatures to add, or none for the managed keys this organization may use. */
export const signTransactionBody = itemDataBody(
  'SignTransactionRequest',
  strictObject('SignTransactionItemData', { transaction: transactionLookup }, { signatures: arrayOf(suppliedSignature, 64) }),
);
/** Submit Transaction and Cancel: the waiting write's transaction, named as the transaction reads name it. */
export const waitingTransactionBody = singleTransactionBody;
