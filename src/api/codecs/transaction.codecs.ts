/** Transaction reads (API.md 6): a transaction named by offchainId or onchainId (signature). */
import { address, arrayOf, strictObject, nonEmptyString, uuid } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const transactionLookup = strictObject('TransactionLookup', {}, { offchainId: uuid, onchainId: nonEmptyString(100) });
export const singleTransactionBody = strictObject('SingleTransactionRequest', { itemData: strictObject('SingleTransactionItemData', { transaction: transactionLookup }, {}) }, { tenancyConfig });

/** A write that waits (for signatures, for Submit Transaction): named by its offchain id. */
const waitingTransaction = strictObject('WaitingTransactionLookup', { offchainId: uuid }, {}, 'The transaction of a write, by its offchain id (a write that answered 202 or rests at SIGNED).');
const suppliedSignature = strictObject('SuppliedSignature', { signer: address, signature: nonEmptyString(100) }, {}, 'A signer the transaction needs and its ed25519 signature of the transaction\'s message (serializedMessage, base64-decoded), base58.');

/** Sign Transaction (API.md 6): signatures to add, or none for the managed keys this organization may use. */
export const signTransactionBody = strictObject(
  'SignTransactionRequest',
  { itemData: strictObject('SignTransactionItemData', { transaction: waitingTransaction }, { signatures: arrayOf(suppliedSignature, 64) }) },
  { tenancyConfig },
);
/** Submit Transaction and Cancel (API.md 6): the waiting write's transaction. */
export const waitingTransactionBody = strictObject('WaitingTransactionRequest', { itemData: strictObject('WaitingTransactionItemData', { transaction: waitingTransaction }, {}) }, { tenancyConfig });
