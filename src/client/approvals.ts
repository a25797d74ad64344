/**
 * The approval decision below HTTP (docs/approvals.md): the decision that settles an approval is
 * signalled to the write waiting on it. The API stores the decision on the approval record first.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { LedgerTransaction, type Approval } from '../db/entities';
import { approvalDecidedSignal } from '../domain/write';
import type { WriteClientDeps } from './write-client';

/**
 * Signals the write its approval settled (idempotent in the write: the first status it hears stays).
 * A write that no longer runs takes no signal and is skipped; fails with Temporal's error otherwise.
 */
export async function signalApprovalDecided(deps: Pick<WriteClientDeps, 'orm' | 'temporal'>, approval: Approval): Promise<void> {
  const record = await deps.orm.em.fork().findOne(LedgerTransaction, { id: approval.transactionId });
  if (!record?.workflowId) return;
  await deps.temporal.client.workflow
    .getHandle(record.workflowId)
    .signal(approvalDecidedSignal, approval.status as 'APPROVED' | 'REJECTED')
    .catch((error: unknown) => {
      // A write that no longer runs (cancelled meanwhile) takes no signal; its record says how it ended.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
}
