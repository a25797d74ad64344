/**
 * Business refusals are answers, not faults. An activity that refuses (an ApplicationFailure whose
 * type is an error code of a 4xx status: `toActivityFailure`) is logged here once, at info, with its
 * code, field, activity and workflow, and leaves marked BENIGN, the SDK's category for an expected
 * failure: the SDK then logs its own "Activity failed" line at DEBUG instead of WARN (and records no
 * activity failure metric nor an error status on the activity's span). Any other failure (a fault:
 * transport, database, timeout, INTERNAL, UNAVAILABLE) passes untouched: the SDK warns as before.
 */
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Context as ActivityContext } from '@temporalio/activity';
import { isRefusalCode, type ErrorCode } from '../domain/errors';

/** Where a refusal's info line goes: `(fields, message)`, as pino takes them. */
export type RefusalLog = (fields: Record<string, unknown>, message: string) => void;

/** A refusal a client is answered with (a code of a 4xx status); anything else is a fault. */
export function isBusinessRefusal(error: unknown): error is ApplicationFailure & { type: ErrorCode } {
  return error instanceof ApplicationFailure && isRefusalCode(error.type);
}

/** The same failure (type, message, details, retryability, stack) in the BENIGN category. */
export function asBenign(failure: ApplicationFailure): ApplicationFailure {
  if (failure.category === ApplicationFailureCategory.BENIGN) return failure;
  const benign = ApplicationFailure.create({
    message: failure.message,
    type: failure.type ?? undefined,
    nonRetryable: failure.nonRetryable ?? undefined,
    details: failure.details ?? undefined,
    nextRetryDelay: failure.nextRetryDelay ?? undefined,
    cause: failure.cause,
    category: ApplicationFailureCategory.BENIGN,
  });
  benign.stack = failure.stack;
  return benign;
}

/**
 * The activity interceptor (every activity, local ones included). `logFor(ctx)`: where the refusal of
 * the activity running in `ctx` is logged.
 */
export function refusalLogging(logFor: (ctx: ActivityContext) => RefusalLog): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        try {
          return await next(input);
        } catch (error) {
          if (!isBusinessRefusal(error)) throw error;
          const { activityType, workflowExecution, workflowType, isLocal, attempt } = ctx.info;
          const field = (error.details?.[0] as { field?: string | null } | undefined)?.field;
          logFor(ctx)(
            {
              errorCode: error.type,
              ...(field ? { field } : {}),
              activityType,
              workflowId: workflowExecution?.workflowId,
              workflowRunId: workflowExecution?.runId,
              workflowType,
              isLocal,
              attempt,
            },
            `${activityType} refused (${error.type}): ${error.message}`,
          );
          throw asBenign(error);
        }
      },
    },
  });
}
