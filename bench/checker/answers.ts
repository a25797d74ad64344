/** What an HTTP answer says, for the model: an outcome, or nothing definite yet (ask again with the same key). */
import type { Outcome } from './model';

export interface Answer {
  /** The HTTP status, or 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  body: any;
  retryAfterSeconds?: number;
  error?: string;
}

const RESTS = ['AWAITING_APPROVAL', 'AWAITING_SIGNATURES'];
/** Statuses of a write still on its way: a careful client asks again. */
const UNDER_WAY = ['PENDING', 'BUILT', 'SUBMITTED'];

/** The transaction result inside a write's answer (`svmTransaction` of a created record, the last of several). */
export function resultOf(body: any): any {
  if (body?.svmTransaction) return body.svmTransaction;
  if (Array.isArray(body?.transactions) && body.transactions.length) return body.transactions.at(-1);
  return body;
}

/**
 * The outcome an answer gives, or undefined when it is not definite: no answer, 429, 502-504, a 202
 * of a write still running, a result still on its way. `rests`: whether a resting write's answer
 * (202 AWAITING_*, a result at SIGNED) ends the asking; after Approve, Submit or Sign it does not.
 * A 500 is definite and never allowed (faults answer 503).
 */
export function outcomeOf(answer: Answer, rests: boolean): Outcome | undefined {
  const { status, body } = answer;
  if (status === 0 || status === 429 || (status > 500 && status < 600)) return undefined;
  if (status === 500) return { type: 'other', what: `500 ${body?.errors?.[0]?.code ?? ''} ${body?.errors?.[0]?.message ?? ''}`.trim() };
  if (status >= 400) return { type: 'refused', http: status, code: String(body?.errors?.[0]?.code ?? 'none') };
  if (body?.approval?.status)
    return body.approval.status === 'APPROVED' || body.approval.status === 'REJECTED'
      ? { type: 'decided', status: body.approval.status }
      : { type: 'other', what: `approval ${body.approval.status}` };
  if (status === 202) {
    const waiting = body?.transaction?.status;
    return RESTS.includes(waiting) && rests ? { type: 'rests', status: waiting } : undefined;
  }
  // Cancel answers {transaction: {offchainId, status: CANCELLED}}.
  if (body?.transaction?.status && body.success === undefined)
    return body.transaction.status === 'CANCELLED'
      ? { type: 'ended', status: 'CANCELLED' }
      : { type: 'other', what: `${status} transaction ${body.transaction.status}` };
  const result = resultOf(body);
  switch (result?.status) {
    case 'CONFIRMED':
    case 'FINALIZED':
      return result.success === true ? { type: 'landed' } : { type: 'other', what: `${result.status} with success ${result.success}` };
    case 'FAILED':
      return { type: 'failed' };
    case 'REJECTED':
    case 'CANCELLED':
    case 'EXPIRED':
      return { type: 'ended', status: result.status };
    case 'SIGNED':
      return rests ? { type: 'rests', status: 'SIGNED' } : undefined;
    default:
      if (UNDER_WAY.includes(result?.status) || RESTS.includes(result?.status)) return undefined;
      return { type: 'other', what: `${status} without a transaction result (${JSON.stringify(body).slice(0, 200)})` };
  }
}

/** A short text of an answer for a history: "201 CONFIRMED", "503 UNAVAILABLE", "no answer (ECONNREFUSED)". */
export function answerText(answer: Answer): string {
  if (answer.status === 0) return `no answer (${answer.error ?? 'connection'})`;
  const body = answer.body;
  if (answer.status >= 400) {
    const error = body?.errors?.[0];
    return `${answer.status} ${error?.code ?? ''}${error?.field ? ` ${error.field}` : ''}${error?.message ? ` "${String(error.message).slice(0, 140)}"` : ''}`.trim();
  }
  if (body?.approval) return `${answer.status} approval ${body.approval.status}`;
  if (body?.transaction?.status && body.success === undefined) return `${answer.status} ${body.transaction.status}`;
  const result = resultOf(body);
  return `${answer.status} ${result?.status ?? ''}${result?.success === false ? ' (success false)' : ''}`.trim();
}

/** The transaction's offchain id and signature an answer names, when it names them. */
export function transactionIds(body: any): { offchainId?: string; signature?: string } {
  const result = resultOf(body);
  return { offchainId: result?.offchainId ?? body?.transaction?.offchainId ?? undefined, signature: result?.onchainId ?? undefined };
}
