/**
 * The one place where retryability is decided: domain and validation errors become non-retryable
 * ApplicationFailures whose type is the stable error code; anything else (transport faults,
 * database hiccups) is thrown as it is so Temporal retries the step.
 */
import { ApplicationFailure } from '@temporalio/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { LedgerError } from '../domain/errors';

export function toActivityFailure(error: unknown): unknown {
  if (error instanceof LedgerError) {
    return ApplicationFailure.create({
      message: error.message,
      type: error.code,
      nonRetryable: true,
      details: [{ field: error.field ?? null, context: error.context }],
    });
  }
  // Two attempts of one step racing (a local activity retried under load while its first attempt still
  // runs) both create the write's own record: the later one retries and finds it. Not a client's conflict.
  if (error instanceof UniqueConstraintViolationException && /ledger_transaction_pkey/.test(error.message)) return error;
  if (error instanceof UniqueConstraintViolationException) {
    const reservation = /reserved_address/.test(error.message);
    return ApplicationFailure.create({
      message: reservation ? 'another live transaction is already creating this address' : 'the record already exists',
      type: 'CONFLICT',
      nonRetryable: true,
      details: [{ field: reservation ? 'itemData.onchainId' : null, context: {} }],
    });
  }
  return error;
}

/**
 * Wraps each activity so its failures cross the boundary classified. The steps named in
 * `retriedUntilDone` run after the network may have moved value: every failure of theirs stays
 * retryable (a stuck step shows in the Web UI; giving up would leave chain and records apart).
 */
/** Any activity function (its arguments are the activity's own; `never` lets every signature in). */
type Activity = (...args: never[]) => Promise<unknown>;

export function withFailureBoundary<T extends Record<string, Activity>>(activities: T, retriedUntilDone: (keyof T)[] = []): T {
  const wrapped: Record<string, Activity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    // Called with the arguments the wrapper received, which are the activity's own.
    const fn = activity as (...args: unknown[]) => Promise<unknown>;
    wrapped[name] = retriedUntilDone.includes(name)
      ? fn
      : async (...args: unknown[]) => {
          try {
            return await fn(...args);
          } catch (error) {
            throw toActivityFailure(error);
          }
        };
  }
  return wrapped as T;
}
