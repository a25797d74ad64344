/** The write's own retries of a fault before anything is sent, and the outage memo that tells the API while they last. */
import { ActivityFailure, ApplicationFailure, patched, sleep, upsertMemo } from '@temporalio/workflow';
import type { WriteRequest } from '../../domain/write';
import { DEFAULT_WRITE_DEADLINE_MS, writeOutageMemo } from '../../domain/write';
import { isErrorCode } from '../../domain/errors';
import type { Progress } from './progress';
import { refusalOf } from './refusals';

/** The write's own retries of a fault before anything is sent: waits of 1 s doubling up to this. */
const MAX_FAULT_WAIT_MS = 30_000;

/**
 * Runs a step of `prepare` (nothing sent yet) until it answers or refuses: a fault (the node or the
 * database away: anything but a refusal with a code) that outlasts the step's quick retries is tried
 * again after a durable timer, 1 s doubling up to 30 s, while the memo `outage` tells the API so,
 * until the write's deadline: WriteRequest.deadlineMs after the step began (the write's start for
 * its first prepare; an approval or an earlier transaction of the write is progress, and the wait for
 * it does not count). Past it the fault is thrown: `refuse` records that nothing was sent, unless the
 * record shows a message that may have been.
 */
export async function retryingFaults<T>(request: WriteRequest, progress: Progress, step: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + (request.deadlineMs ?? DEFAULT_WRITE_DEADLINE_MS);
  for (let round = 0; ; round++) {
    try {
      const value = await step();
      if (progress.outage) upsertMemo({ [writeOutageMemo]: null });
      progress.outage = undefined;
      return value;
    } catch (error) {
      if (!isFault(error) || Date.now() >= deadline || !patched('faults-retried-until-deadline')) throw error;
      const waitMs = Math.min(MAX_FAULT_WAIT_MS, 1000 * 2 ** round, Math.max(1, deadline - Date.now()));
      progress.outage = {
        message: refusalOf(error).message,
        since: progress.outage?.since ?? new Date().toISOString(),
        retryAt: new Date(Date.now() + waitMs).toISOString(),
        deadline: new Date(deadline).toISOString(),
      };
      upsertMemo({ [writeOutageMemo]: progress.outage });
      await sleep(waitMs);
    }
  }
}

/** A step's failure without a code of ours: a service it needs failed (or a bug), which is no answer to give. */
function isFault(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return !(cause instanceof ApplicationFailure && isErrorCode(cause.type));
}
