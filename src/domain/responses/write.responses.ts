/**
 * What writes answer (spec 2.2, docs/behaviour/conventions.md): the transaction result, `{<created>{onchainId,
 * offchainId}, svmTransaction}`, and 202 `{transaction: {offchainId, status}}` with Prefer: respond-async.
 */
import type * as t from 'io-ts';
import { transactionStatuses } from '../write';
import { address, boolean, integer, listOf, nullable, signature, strictObject, textEnum, textWith, timestamp, uuid } from './building-blocks';

export const transactionStatus = textEnum(
  transactionStatuses,
  'PENDING (accepted, not built yet) → BUILT → (AWAITING_APPROVAL) → (AWAITING_SIGNATURES) → SIGNED → SUBMITTED → CONFIRMED → FINALIZED; or FAILED, REJECTED, EXPIRED, CANCELLED.',
);

/** The transaction fields every write answers (spec 2.2 "Transaction result"). */
export const transactionResultProps = {
  success: boolean,
  offchainId: uuid,
  status: transactionStatus,
  onchainId: nullable(signature),
  confirmationsCount: nullable(integer),
  serializedMessage: nullable(textWith('The signed message (base64), as sent to the network.')),
  errorMessage: nullable(textWith('Why the transaction failed (onchain error or build error); null when it did not.')),
  txnTimestamp: nullable(timestamp),
};

export const transactionResult = strictObject(
  'TransactionResult',
  transactionResultProps,
  {},
  'A network transaction a write built, signed and (unless submitTransaction: false) submitted. A failure onchain is success false with errorMessage, not an HTTP error.',
);
export type TransactionResultBody = t.TypeOf<typeof transactionResult>;

/** `{onchainId, offchainId}` of a record a write created or changed. */
export const recordReference = strictObject(
  'RecordReference',
  { onchainId: address, offchainId: uuid },
  {},
  'The onchain address and offchain id of a record.',
);

const nullableReference = nullable(recordReference);
const nullableTransaction = nullable(transactionResult);

/** `{<name>: {onchainId, offchainId}, svmTransaction}`: the answer of a write about one record (null: a write with no network transaction). */
export function referenceAnswer<const N extends string>(name: N, component: string, description: string) {
  const props = { [name]: nullableReference, svmTransaction: nullableTransaction } as Record<N, typeof nullableReference> & {
    svmTransaction: typeof nullableTransaction;
  };
  return strictObject(component, props, {}, description);
}
export type ReferenceAnswerBody<N extends string> = Record<N, t.TypeOf<typeof recordReference> | null> & { svmTransaction: TransactionResultBody | null };

/** 202 with Prefer: respond-async (or a write still running when the wait is over): read the status with Fetch Transaction Status. */
export const acceptedWrite = strictObject(
  'AcceptedWrite',
  { transaction: strictObject('AcceptedTransaction', { offchainId: uuid, status: transactionStatus }, {}) },
  { svmTransactions: listOf(transactionResult, 'Freeze or Unfreeze Position with allPositions: empty until the write ends.') },
  'The write was accepted and runs on; its transaction is read with Fetch Transaction Status (POST /api/v1/transactions/status).',
);
export type AcceptedWriteBody = t.TypeOf<typeof acceptedWrite>;
