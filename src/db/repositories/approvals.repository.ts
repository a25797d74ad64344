/** Approval records (docs/approvals.md): decisions appended under a row lock, status moved once from PENDING. */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Approval, type ApprovalDecision } from '../entities';
import { countFromApproval } from './debit-reservations.repository';

export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';

/** Moves a PENDING approval to `status`; any other is left as it is. */
export async function closeApproval(em: EntityManager, id: string, status: ApprovalStatus, at: Date): Promise<void> {
  await em.getConnection().execute(`update approval set status = ?, updated_at = ? where id = ? and status = 'PENDING'`, [status, at, id], 'run');
}

export async function approvalStatus(em: EntityManager, id: string): Promise<ApprovalStatus> {
  const approval = await em.findOneOrFail(Approval, { id });
  return approval.status as ApprovalStatus;
}

/** What a decision did: the approval after it, and whether it was this decision that settled it. */
export interface Decided {
  approval: Approval;
  settled: boolean;
}

/**
 * Appends one key's decision under a row lock (concurrent decisions take turns). `refuse` answers
 * why this key may not decide (not listed, already decided, not pending), or nothing. The settling
 * approval re-stamps the write's held debits in the same transaction (they count from now on).
 */
export async function decide(
  em: EntityManager,
  where: { id: string; organizationId: string },
  decision: ApprovalDecision,
  refuse: (approval: Approval) => void,
): Promise<Decided | null> {
  return em.transactional(async (tx) => {
    const approval = await tx.findOne(Approval, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!approval) return null;
    refuse(approval);
    const decisions = [...approval.decisions, decision];
    const approvals = decisions.filter((d) => d.decision === 'APPROVE').length;
    const status: ApprovalStatus = decision.decision === 'REJECT' ? 'REJECTED' : approvals >= approval.requiredApproversCount ? 'APPROVED' : 'PENDING';
    approval.decisions = decisions;
    approval.status = status;
    approval.updatedAt = new Date(decision.at);
    await tx.flush();
    if (status === 'APPROVED') await countFromApproval(tx, approval.transactionId, approval.updatedAt);
    return { approval, settled: status !== 'PENDING' };
  });
}
