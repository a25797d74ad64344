/**
 * Signatures from outside the service (docs/webhooks.md, missing signature; Sign Transaction): what a write
 * waiting in AWAITING_SIGNATURES keeps on its record, and the checks a supplied signature passes
 * before it is kept (a signer the message names, an ed25519 signature of that very message).
 */
import {
  address,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  isAddress,
  verifySignature,
  type SignatureBytes,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerTransaction } from '../../db/entities';
import { setStatus } from '../../db/repositories/transaction-records.repository';
import { validationError } from '../../domain/errors';
import type { SignedTransaction } from '../../domain/write';
import type { PipelineContext } from './context';

const base58 = { text: getBase58Decoder(), bytes: getBase58Encoder() };
const base64 = { text: getBase64Decoder(), bytes: getBase64Encoder() };

/** Signatures by signer, base58, null where one is missing: the form the record keeps. */
export type SignatureMap = Record<string, string | null>;

export const signatureMap = (transaction: Transaction): SignatureMap =>
  Object.fromEntries(Object.entries(transaction.signatures).map(([signer, bytes]) => [signer, bytes ? base58.text.decode(bytes) : null]));

/** The record's message with the signatures it keeps. */
export function transactionOf(record: LedgerTransaction): Transaction {
  const messageBytes = base64.bytes.encode(record.serializedMessage!) as TransactionMessageBytes;
  const kept = record.signatures ?? {};
  const signatures = Object.fromEntries(record.signers.map((signer) => [signer, kept[signer] ? (base58.bytes.encode(kept[signer]) as SignatureBytes) : null]));
  return { messageBytes, signatures } as Transaction;
}

/**
 * The answer of a message signed so far: its fee payer's signature (null while that one is awaited,
 * `autoSign: false`), the wire bytes, and who is still missing.
 */
export function signedSoFar(transaction: Transaction): SignedTransaction {
  const missing = Object.entries(transaction.signatures)
    .filter(([, bytes]) => !bytes)
    .map(([signer]) => signer);
  // The fee payer is the message's first signer.
  const feePayerSignature = Object.values(transaction.signatures)[0];
  return {
    signature: feePayerSignature ? getSignatureFromTransaction(transaction) : null,
    wireBase64: getBase64EncodedWireTransaction(transaction),
    ...(missing.length ? { missing } : {}),
  };
}

/**
 * Keeps a partly signed message on its record: signatures supplied earlier for this same message are
 * added back (a replayed sign loses none), then AWAITING_SIGNATURES, or SIGNED once none is missing.
 * Idempotent. The record has the fee payer's signature (the write's onchain id) from the moment it is
 * signed: at once, or (its lookup said `autoSign: false`) through Sign Transaction. Until then nothing
 * can have been sent, so a replayed build may make a new message (docs/signatures.md).
 */
export async function awaitSignatures(ctx: PipelineContext, em: EntityManager, id: string, signed: Transaction): Promise<SignedTransaction> {
  const record = await em.findOne(LedgerTransaction, { id });
  const sameMessage = record?.serializedMessage === base64.text.decode(signed.messageBytes);
  const kept = sameMessage ? (record!.signatures ?? {}) : {};
  const signatures = Object.fromEntries(
    Object.entries(signed.signatures).map(([signer, bytes]) => [
      signer,
      bytes ?? (kept[signer] ? (base58.bytes.encode(kept[signer]) as SignatureBytes) : null),
    ]),
  );
  const transaction = { ...signed, signatures } as Transaction;
  const answer = signedSoFar(transaction);
  await em.nativeUpdate(LedgerTransaction, { id }, { signatures: signatureMap(transaction) });
  await setStatus(em, id, answer.missing ? 'AWAITING_SIGNATURES' : 'SIGNED', ctx.deps.now(), { signature: answer.signature ?? undefined });
  return answer;
}

/** A signature Sign Transaction supplied, checked against the message: VALIDATION_ERROR naming `itemData.signatures[i]` otherwise. */
export async function verifiedSignature(transaction: Transaction, signer: string, signature: string, field: string): Promise<SignatureBytes> {
  if (!isAddress(signer)) throw validationError(`${field}.signer`, `${field}.signer is not an address`);
  if (!(signer in transaction.signatures))
    throw validationError(
      `${field}.signer`,
      `${field}.signer ${signer} is not a signer this transaction needs (it needs ${Object.keys(transaction.signatures).join(', ')})`,
    );
  let bytes: Uint8Array;
  try {
    bytes = base58.bytes.encode(signature) as Uint8Array;
  } catch {
    throw validationError(`${field}.signature`, `${field}.signature is not base58`);
  }
  if (bytes.length !== 64) throw validationError(`${field}.signature`, `${field}.signature must be 64 bytes (base58), not ${bytes.length}`);
  const key = await getPublicKeyFromAddress(address(signer));
  if (!(await verifySignature(key, bytes as SignatureBytes, transaction.messageBytes))) {
    throw validationError(`${field}.signature`, `${field}.signature is not ${signer}'s signature of this transaction's message`);
  }
  return bytes as SignatureBytes;
}
