/**
 * What a loan's own workflow asks of the records (docs/loans.md): the loan as it stands now, and the
 * one offchain change it makes itself, OPEN → OVERDUE once the term is over (movements of value are
 * ledgerWrite children).
 */
import { Loan } from '../db/entities';
import type { LoanSnapshot } from '../domain/loan-lifecycle';
import type { ActivityDeps } from './deps';

export function createLoanActivities(deps: ActivityDeps) {
  return {
    async loanSnapshot(loanId: string): Promise<LoanSnapshot | null> {
      const loan = await deps.orm.em.fork().findOne(Loan, { id: loanId });
      return loan ? { status: loan.status, maturityAt: loan.maturityAt.toISOString() } : null;
    },

    /** OPEN → OVERDUE when the term is over (idempotent: answers the status it leaves). */
    async markLoanOverdue(loanId: string): Promise<LoanSnapshot | null> {
      const em = deps.orm.em.fork();
      const now = deps.now();
      await em.nativeUpdate(Loan, { id: loanId, status: 'OPEN', maturityAt: { $lte: now } }, { status: 'OVERDUE', updatedAt: now });
      const loan = await em.findOne(Loan, { id: loanId });
      return loan ? { status: loan.status, maturityAt: loan.maturityAt.toISOString() } : null;
    },
  };
}
