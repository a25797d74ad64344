/** Limit check: the debit limits of spec 8 over every debited wallet (src/activities/limit-check.ts). */
import { insertPendingRecord, setStatus } from '../../db/repositories/transaction-records.repository';
import type { Resolved, WriteRequest } from '../../domain/write';
import { enforceDebitLimits, type ApprovalNeeded } from '../limit-check';
import type { PipelineContext } from './context';

export function createCheckLimits(ctx: PipelineContext) {
  /**
   * Holds the write's debits in the rolling windows (replacing what an earlier attempt held, so a
   * debit is held once). Fails with LIMIT_EXCEEDED naming the limit; a limit that names approvers
   * answers the approval the write waits for (its record AWAITING_APPROVAL). The workflow skips it
   * for a resumed write: its debits were checked and held before its message was signed.
   */
  return async function checkLimits(request: WriteRequest, resolved: Resolved): Promise<ApprovalNeeded | undefined> {
    if (!resolved.debits.length) return undefined;
    const needed = await enforceDebitLimits(ctx.fork(), request, resolved.debits, ctx.deps.now());
    if (!needed) return undefined;
    // The record is there to be fetched, cancelled and rejected while approvers decide (a sync write has none yet).
    await insertPendingRecord(ctx.fork(), request, ctx.deps.now());
    await setStatus(ctx.fork(), request.transactionId, 'AWAITING_APPROVAL', ctx.deps.now());
    return { ...needed, timeoutMs: ctx.deps.approvalTimeoutMs ?? 86_400_000 };
  };
}
