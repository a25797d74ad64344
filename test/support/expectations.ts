/** Small helpers shared by unit tests: a domain refusal, and decoding a body exactly as the API does. */
import type * as t from 'io-ts';
import { parse } from 'lossless-json';
import { LedgerError } from '../../src/domain/errors';
import { reportErrors, type ValidationIssue } from '../../src/domain/inputs/primitives';

/** The LedgerError `fn` throws; fails the test when it throws nothing or something else. */
export function refusal(fn: () => unknown): LedgerError {
  try {
    fn();
  } catch (error) {
    if (error instanceof LedgerError) return error;
    throw error;
  }
  throw new Error('expected a LedgerError, but the call succeeded');
}

/** Parses a JSON body exactly as the API does (lossless numbers) and decodes it. */
export function decodeJson<A>(codec: t.Type<A, unknown, unknown>, json: string): { ok: true; value: A } | { ok: false; issues: ValidationIssue[] } {
  const result = codec.decode(parse(json));
  return result._tag === 'Right' ? { ok: true, value: result.right } : { ok: false, issues: reportErrors(result.left) };
}

export function accepted<A>(codec: t.Type<A, unknown, unknown>, json: string): A {
  const result = decodeJson(codec, json);
  if (!result.ok) throw new Error(`expected ${json} to be accepted, got ${JSON.stringify(result.issues)}`);
  return result.value;
}

export function refused<A>(codec: t.Type<A, unknown, unknown>, json: string): ValidationIssue[] {
  const result = decodeJson(codec, json);
  if (result.ok) throw new Error(`expected ${json} to be refused, got ${JSON.stringify(result.value)}`);
  return result.issues;
}

/**
 * An answer with the state the chain follower moves after it (docs/finality.md) set aside: a repeated
 * request answers the same transaction as it stands now, whose `confirmationsCount` may have grown and
 * whose `status` may have moved from CONFIRMED to FINALIZED. Everything else must be equal.
 */
export function withoutLiveState(answer: unknown): unknown {
  if (Array.isArray(answer)) return answer.map(withoutLiveState);
  if (answer === null || typeof answer !== 'object') return answer;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(answer)) copy[key] = withoutLiveState(value);
  if ('confirmationsCount' in copy) copy.confirmationsCount = 'live';
  if (copy.status === 'CONFIRMED' || copy.status === 'FINALIZED') copy.status = 'CONFIRMED or FINALIZED';
  return copy;
}
