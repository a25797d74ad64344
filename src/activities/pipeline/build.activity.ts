/**
 * Build: the V0 message of one transaction of the write, with its lifetime, written into the
 * transaction record as BUILT. Never a second live message for one transaction: while the record
 * holds a signed, possibly sent message whose lifetime is not proven over (or which the network
 * knows), build answers that message again, so sign reproduces the same signature and submit sends
 * the same bytes.
 */
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getBase64Decoder,
  getBase64Encoder,
  getTransactionEncoder,
  getTransactionSize,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayer,
  type AddressesByLookupTableAddress,
  type Instruction,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { LedgerTransaction } from '../../db/entities';
import { LedgerError } from '../../domain/errors';
import { MAX_COMPUTE_UNIT_LIMIT, type ComputeBudgetRecord } from '../../domain/fees';
import type { BuiltTransaction, MessageLifetime, Resolved, WriteRequest } from '../../domain/write';
import type { Lifetime } from '../../network/lifetime';
import type { SvmNetwork } from '../../network/svm-network';
import { operationHandlers } from '../operations';
import { handlerOf } from '../operations/operation-handler';
import { applyStatus, newTransactionRecord } from '../../db/repositories/transaction-records.repository';
import { partTransactionId } from '../../domain/ids';
import { budgetInstructions, pendingBudget, simulatedLimit } from './compute-budget';
import { possiblySent, type PipelineContext } from './context';
import { lookupTablesFor } from './lookup-table-compression';

/** The network's limit on a serialized transaction. */
export const MAX_TRANSACTION_SIZE = 1232;

const base64 = { text: getBase64Decoder(), bytes: getBase64Encoder() };

export function createBuild(ctx: PipelineContext) {
  /** Idempotent as described above; fails with TRANSACTION_TOO_LARGE; transport faults are retried. */
  return async function build(request: WriteRequest, resolved: Resolved, part = 0, recordAbsent = false): Promise<BuiltTransaction> {
    const em = ctx.fork();
    const now = ctx.deps.now();
    const lifetime = ctx.lifetime(request);
    const network = ctx.network(request.cluster);
    // Lookup, a moment ago in this attempt, found none: the INSERT below then fails on the id if a
    // concurrent attempt of the write made one meanwhile, and the retry reads it.
    const record = recordAbsent ? null : await ctx.findRecord(em, request, part);
    let expired: string | undefined;
    if (possiblySent(record)) {
      // A recorded outcome (landed, failed, or expired for the last time) is final: never a new message.
      if (record.success !== null && record.success !== undefined) return reuse(record);
      if (!(await provenExpired(record, lifetime, network))) return reuse(record);
      // Proven over: it can never land. Its history keeps the signature; a new message replaces it.
      expired = record.signature;
      if (record.lifetime) await lifetime.release(record.lifetime);
    }

    const operationInstructions = handlerOf(operationHandlers, request.operation).instructions(request, resolved, part);
    const pending = await pendingBudget(request, resolved.feePayer, operationInstructions, network);
    const tables = await lookupTablesFor(em, request, network, operationInstructions);
    let budget: ComputeBudgetRecord | null = null;
    for (let attempt = 1; ; attempt++) {
      // A durable nonce is reserved by this transaction's record: a replayed build finds its own.
      const messageLifetime = await lifetime.acquire(partTransactionId(request.transactionId, part));
      const compile = (budgetIxs: Instruction[]) =>
        compileSmallest(
          request,
          pipe(
            createTransactionMessage({ version: 0 }),
            (m) => setTransactionMessageFeePayer(address(resolved.feePayer), m),
            (m) => lifetime.apply(m, messageLifetime),
            (m) => appendTransactionMessageInstructions([...budgetIxs, ...operationInstructions], m),
          ),
          tables,
        );
      // The limit is settled once per build (a twin retry keeps it): given, or simulated from this very message.
      if (pending && !budget) {
        const simulated =
          pending.limit === undefined ? await simulatedLimit(network, wireOf(compile(budgetInstructions(MAX_COMPUTE_UNIT_LIMIT, pending.price)))) : null;
        budget = {
          limit: simulated?.limit ?? pending.limit!,
          limitSource: simulated ? 'SIMULATED' : 'GIVEN',
          simulatedUnits: simulated?.simulatedUnits ?? null,
          ...pending.record,
        };
      }
      const transaction = compile(budget ? budgetInstructions(budget.limit!, pending?.price) : []);
      const built: BuiltTransaction = {
        messageBase64: wireOf(transaction),
        signers: Object.keys(transaction.signatures),
        lifetime: messageLifetime,
        size: getTransactionSize(transaction),
      };
      const attemptEm = attempt === 1 ? em : ctx.fork();
      const found = attempt === 1 ? record : await ctx.findRecord(attemptEm, request, part);
      const written = found ?? newTransactionRecord(attemptEm, request, now, part);
      if (expired) applyStatus(written, 'EXPIRED', now, expired);
      applyStatus(written, 'BUILT', now);
      Object.assign(written, {
        serializedMessage: base64.text.decode(transaction.messageBytes),
        feePayer: resolved.feePayer,
        computeBudget: budget,
        signers: built.signers,
        lastValidBlockHeight: messageLifetime.kind === 'BLOCKHASH' ? BigInt(messageLifetime.lastValidBlockHeight) : null,
        lifetime: messageLifetime,
        signature: null,
        // A replayed lookup answers this resolution once the message is signed.
        resolved: part === 0 ? { ...resolved, resumed: undefined } : null,
        // A record reused by a new run (a retry of a write whose run is gone) starts without an outcome.
        success: null,
        errorMessage: null,
        errorCode: null,
        reservedAddress: part === 0 ? (resolved.reservesAddress ?? null) : null,
      });
      try {
        // A new record is one INSERT (no begin/commit around it); a record already there is updated by the flush.
        if (found) await attemptEm.flush();
        else await attemptEm.insert(written);
        return built;
      } catch (error) {
        // Another write built these very bytes (the same instructions in the same block): to the
        // network they would be one transaction, so this one waits for the next blockhash.
        if (!isTwinMessage(error) || attempt >= MAX_TWIN_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  };
}

/** Builds that may meet a twin before one gets a blockhash of its own (a block is 400 ms on public clusters). */
const MAX_TWIN_ATTEMPTS = 20;

const isTwinMessage = (error: unknown) => error instanceof UniqueConstraintViolationException && /ledger_transaction_message/.test(error.message);

/** Over only when the lifetime is proven over and, looked at once more after that, the network does not know the signature. */
async function provenExpired(record: LedgerTransaction & { signature: string }, lifetime: Lifetime, network: SvmNetwork): Promise<boolean> {
  if (!(await lifetime.isOver(lifetimeOf(record)))) return false;
  return (await network.getSignatureStatus(record.signature)) === null;
}

/** The record's message as an unsigned transaction, for sign to sign again. */
function reuse(record: LedgerTransaction): BuiltTransaction {
  const messageBytes = base64.bytes.encode(record.serializedMessage!) as TransactionMessageBytes;
  const signatures = Object.fromEntries(record.signers.map((signer) => [signer, null])) as Transaction['signatures'];
  const wire = getTransactionEncoder().encode({ messageBytes, signatures });
  return { messageBase64: base64.text.decode(wire), signers: record.signers, lifetime: lifetimeOf(record), size: wire.length, reused: true };
}

/** The record's lifetime (records written before lifetimes were kept have the blockhash's last valid height). */
function lifetimeOf(record: LedgerTransaction): MessageLifetime {
  return record.lifetime ?? { kind: 'BLOCKHASH', blockhash: '', lastValidBlockHeight: String(record.lastValidBlockHeight ?? 0) };
}

/** A compiled transaction as base64 wire bytes (unsigned signatures are zeros). */
function wireOf(transaction: ReturnType<typeof compileTransaction>): string {
  return base64.text.decode(getTransactionEncoder().encode(transaction));
}

type Message = Parameters<typeof compileTransaction>[0];

/**
 * The message as it is, or compressed through the organization's lookup tables when that makes it
 * fit or smaller (a table entry costs 1 byte instead of 32, plus 34 bytes per table used).
 */
function compileSmallest(request: WriteRequest, message: Message, tables: AddressesByLookupTableAddress): ReturnType<typeof compileTransaction> {
  if (Object.keys(tables).length === 0) return compileWithinLimits(request, message);
  const attempt = (m: Message) => {
    try {
      return { transaction: compileWithinLimits(request, m) };
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'TRANSACTION_TOO_LARGE') return { error };
      throw error;
    }
  };
  const plain = attempt(message);
  // The write's message is always v0 (createTransactionMessage({ version: 0 }) above).
  const compressed = attempt(
    compressTransactionMessageUsingAddressLookupTables(message as Parameters<typeof compressTransactionMessageUsingAddressLookupTables>[0], tables) as Message,
  );
  if (!compressed.transaction) {
    if (plain.transaction) return plain.transaction;
    throw plain.error;
  }
  if (!plain.transaction) return compressed.transaction;
  return getTransactionSize(compressed.transaction) < getTransactionSize(plain.transaction) ? compressed.transaction : plain.transaction;
}

/** Compiles the message; over the network's size or count limits is TRANSACTION_TOO_LARGE with the operation's hint. */
function compileWithinLimits(request: WriteRequest, message: Message): ReturnType<typeof compileTransaction> {
  const hint = operationHandlers[request.operation].tooLargeHint ?? 'Split the request into smaller ones.';
  let transaction: ReturnType<typeof compileTransaction>;
  try {
    transaction = compileTransaction(message);
  } catch (error) {
    // Over the network's count of instructions or accounts per transaction: too large as well.
    if (isSolanaError(error) && /maximum/i.test(error.message))
      throw new LedgerError('TRANSACTION_TOO_LARGE', `${error.message}. ${hint}`, undefined, { limit: MAX_TRANSACTION_SIZE });
    throw error;
  }
  const size = getTransactionSize(transaction);
  if (size > MAX_TRANSACTION_SIZE)
    throw new LedgerError('TRANSACTION_TOO_LARGE', `the transaction is ${size} bytes; the network allows ${MAX_TRANSACTION_SIZE}. ${hint}`, undefined, {
      size,
      limit: MAX_TRANSACTION_SIZE,
    });
  return transaction;
}
