/** The workflow's end of an approval wait (docs/approvals.md): an approval nobody decided in time, or a cancelled write's. */
import { approvalStatus, closeApproval } from '../../db/repositories/approvals.repository';
import type { PipelineContext } from './context';

export function createApprovalWait(ctx: PipelineContext) {
  return {
    /**
     * Closes a PENDING approval as EXPIRED or CANCELLED and answers its status now: a decision that
     * reached the record first wins (APPROVED goes on, REJECTED ends the write). Idempotent.
     */
    async endApproval(approvalId: string, status: 'EXPIRED' | 'CANCELLED'): Promise<string> {
      await closeApproval(ctx.fork(), approvalId, status, ctx.deps.now());
      return approvalStatus(ctx.fork(), approvalId);
    },
  };
}
