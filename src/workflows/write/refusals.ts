/** How a step's failure becomes the write's answer: a refusal with a stable code, or a fault that fails the run. */
import { ActivityFailure, ApplicationFailure, patched, upsertSearchAttributes } from '@temporalio/workflow';
import type { Refusal, WriteRequest, WriteResult } from '../../domain/write';
import { isErrorCode, isRefusalCode } from '../../domain/errors';
import { untilDone } from './proxies';
import { finish, statusKey, type Progress } from './progress';

/** The failure a step ended with, as a refusal with a stable code (a fault that outlasted its retries is UNAVAILABLE). */
export function refusalOf(error: unknown): ApplicationFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type && (isErrorCode(cause.type) || !patched('faults-retried-until-deadline'))) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return ApplicationFailure.create({
    type: 'UNAVAILABLE',
    message: `nothing was sent: a service the write needs did not answer until the write's deadline (${reason})`,
    nonRetryable: true,
  });
}

/**
 * Ends a write refused before anything was sent: its record FAILED with the reason. A business
 * refusal (a 4xx code: the answer, not a fault) completes the workflow with it, LedgerStatus
 * REFUSED; a fault (UNAVAILABLE, INTERNAL: retries ran out, a bug) fails it, LedgerStatus FAILED, as
 * does a refusal whose record holds a possibly-sent message (left open: the API starts a run that
 * reconciles it). Histories from before `write-refusal-completes` fail on every refusal.
 */
export async function refuse(request: WriteRequest, error: unknown, progress: Progress): Promise<WriteResult> {
  const refusal = refusalOf(error);
  progress.step = 'record';
  const transaction = await untilDone(request, 'record FAILED').recordFailure(request, refusal.type ?? 'UNAVAILABLE', refusal.message, 0);
  const answer = businessRefusal(refusal);
  if (answer && (transaction === null || transaction.status === 'FAILED') && patched('write-refusal-completes')) {
    return finish(progress, { transaction, refusal: answer }, 'REFUSED');
  }
  upsertSearchAttributes([{ key: statusKey, value: 'FAILED' }]);
  progress.step = 'done';
  throw refusal;
}

/** The refusal a client is answered with (a code of a 4xx status), or undefined for a fault. */
function businessRefusal(failure: ApplicationFailure): Refusal | undefined {
  const code = failure.type;
  if (!isRefusalCode(code)) return undefined;
  const details = (failure.details?.[0] ?? {}) as { field?: string | null; context?: Record<string, unknown> };
  return { code, message: failure.message, field: details.field ?? null, context: details.context ?? {} };
}
