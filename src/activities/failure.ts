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
    return ApplicationFailure.create({ message: error.message, type: error.code, nonRetryable: true, details: [{ field: error.field ?? null, context: error.context }] });
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
export function withFailureBoundary<T extends Record<string, (...args: any[]) => Promise<any>>>(activities: T, retriedUntilDone: (keyof T)[] = []): T {
  const wrapped = {} as Record<string, (...args: any[]) => Promise<any>>;
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = retriedUntilDone.includes(name)
      ? fn
      : async (...args: any[]) => {
          try {
            return await fn(...args);
          } catch (error) {
            throw toActivityFailure(error);
          }
        };
  }
  return wrapped as T;
}
