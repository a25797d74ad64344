/** Limit check: the debit limits of spec 8 over every debited wallet (src/activities/limit-check.ts). */
import type { Resolved, WriteRequest } from '../../domain/write';
import { enforceDebitLimits } from '../limit-check';
import type { PipelineContext } from './context';

export function createCheckLimits(ctx: PipelineContext) {
  /**
   * Holds the write's debits in the rolling windows (replacing what an earlier attempt held, so a
   * debit is held once). Fails with LIMIT_EXCEEDED naming the limit. The workflow skips it for a
   * resumed write: its debits were checked and held before its message was signed.
   */
  return async function checkLimits(request: WriteRequest, resolved: Resolved): Promise<void> {
    if (resolved.debits.length) await enforceDebitLimits(ctx.fork(), request, resolved.debits, ctx.deps.now());
  };
}
