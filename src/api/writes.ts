/**
 * The HTTP side of a write: the keys its headers give (Idempotency-Key, x-request-id), Prefer:
 * respond-async, and the answer's shape (202 with Preference-Applied for a write that runs on).
 * Starting, joining and answering the write is the write client's (src/client/write-client.ts).
 */
import { validationError } from '../domain/errors';
import type { TransactionResult } from '../domain/write';
import type { SvmTransactionConfigInput } from '../domain/inputs/common.inputs';
import { runWrite as runWriteBelow, type StartWrite, type WriteAnswer } from '../client/write-client';
import type { ApiDeps, Caller, LedgerContext } from './context';
import type { AcceptedWriteBody, ReferenceAnswerBody } from '../domain/responses/write.responses';
import { MAX_REQUEST_ID_LENGTH } from './middleware';

export type { WriteAnswer } from '../client/write-client';

/** A write as a route hands it over: the write client's input less what the request's headers and state give. */
export interface WriteInput {
  operation: Parameters<typeof runWriteBelow>[1]['operation'];
  caller: Caller;
  itemData: unknown;
  svmTransactionConfig?: SvmTransactionConfigInput;
  idempotencyId?: string;
  newRecordId?: string;
  extraRecordIds?: Record<string, string>;
  /** Starts the write's run another way than the write's own workflow (loan movements: src/client/loan-movements.ts). */
  start?: StartWrite;
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * The standard Idempotency-Key header of a write, if sent: 1 to MAX_REQUEST_ID_LENGTH printable
 * ASCII characters like x-request-id (it becomes part of the workflow id), either bare or as the
 * quoted string of the IETF draft (`"…"`, the quotes are not part of the key). Anything else,
 * an empty value included, is 400 naming the header.
 */
export function idempotencyKeyHeader(ctx: LedgerContext): string | undefined {
  const raw = ctx.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const text = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  const key = /^"[^"\\]*"$/.test(text) ? text.slice(1, -1) : text;
  if (!key || key.length > MAX_REQUEST_ID_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw validationError(
      IDEMPOTENCY_KEY_HEADER,
      `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${MAX_REQUEST_ID_LENGTH} printable ASCII characters (optionally in double quotes)`,
    );
  }
  return key;
}

/** The write's idempotency key: itemData.idempotencyId, else the Idempotency-Key header, else x-request-id (the two first given and different: 400). */
function idempotencyOf(ctx: LedgerContext, idempotencyId: string | undefined): { key: string; field: string } | undefined {
  const headerKey = idempotencyKeyHeader(ctx);
  if (idempotencyId !== undefined && headerKey !== undefined && headerKey !== idempotencyId) {
    throw validationError(
      IDEMPOTENCY_KEY_HEADER,
      `${IDEMPOTENCY_KEY_HEADER} (${headerKey}) differs from itemData.idempotencyId (${idempotencyId}); send one key, or the same in both`,
    );
  }
  if (idempotencyId) return { key: idempotencyId, field: 'itemData.idempotencyId' };
  if (headerKey) return { key: headerKey, field: IDEMPOTENCY_KEY_HEADER };
  const requestId = ctx.get('x-request-id');
  return requestId ? { key: requestId, field: 'x-request-id' } : undefined;
}

export const respondsAsync = (ctx: LedgerContext) => /respond-async/i.test(ctx.get('prefer'));

/** Runs the write through the write client; an answer that runs on says so (Preference-Applied). */
export async function runWrite(ctx: LedgerContext, deps: ApiDeps, input: WriteInput): Promise<WriteAnswer> {
  const { idempotencyId, ...rest } = input;
  const idempotency = idempotencyOf(ctx, idempotencyId);
  return applied(ctx, await runWriteBelow(deps, { ...rest, cluster: ctx.state.cluster, idempotency, respondAsync: respondsAsync(ctx) }));
}

/** Sets Preference-Applied on an answer that runs on (202). */
export function applied(ctx: LedgerContext, answer: WriteAnswer): WriteAnswer {
  if (answer.async) ctx.set('Preference-Applied', 'respond-async');
  return answer;
}

/** The body of a write that answers its transaction result (202 with the transaction when it runs on). */
export function transactionAnswer(ctx: LedgerContext, answer: WriteAnswer): TransactionResult | AcceptedWriteBody {
  if (answer.async) {
    ctx.state.status = 202;
    return { transaction: answer.transaction };
  }
  // Only writes that always build a transaction answer with it; anything else is a bug (a 500).
  if (!answer.transaction) throw new Error('the write ended without a transaction to answer');
  return answer.transaction;
}

/** The body of a write that answers `{<name>{onchainId, offchainId}, svmTransaction}` (202 with the transaction when it runs on). */
export function referenceAnswer<const N extends string>(ctx: LedgerContext, answer: WriteAnswer, name: N): ReferenceAnswerBody<N> | AcceptedWriteBody {
  if (answer.async) {
    ctx.state.status = 202;
    return { transaction: answer.transaction };
  }
  return { [name]: answer.created ?? null, svmTransaction: answer.transaction } as ReferenceAnswerBody<N>;
}
