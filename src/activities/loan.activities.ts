/**
 * What a loan's own workflow asks of the records (docs/loans.md): the loan as it stands now, and the
 * one offchain change it makes itself, OPEN → OVERDUE once the term is over (movements of value are
 * ledgerWrite children).
 */
import { LedgerTransaction, Loan, LoanStrategy } from '../db/entities';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LoanSnapshot } from '../domain/loan-lifecycle';
import type { ActivityDeps } from './deps';
import { LedgerError } from '../domain/errors';
import { currentLoanToValue } from './operations/loans/loan-value';

/** Whether an open or overdue loan is past its liquidation ratio at the latest prices (no price: not known to be). */
async function pastLiquidationRatio(em: EntityManager, deps: ActivityDeps, loan: Loan): Promise<boolean> {
  if (loan.status !== 'OPEN' && loan.status !== 'OVERDUE') return false;
  try {
    return (await currentLoanToValue(em, deps, loan, deps.now(), 'loan')) > BigInt(loan.liquidationRatio);
  } catch (error) {
    if (error instanceof LedgerError) return false;
    throw error;
  }
}

async function snapshotOf(em: EntityManager, deps: ActivityDeps, loan: Loan | null): Promise<LoanSnapshot | null> {
  if (!loan) return null;
  const strategy = await em.findOne(LoanStrategy, { id: loan.strategyId });
  const holder = loan.inUseByTransactionId ? await em.findOne(LedgerTransaction, { id: loan.inUseByTransactionId }, { fields: ['status'] }) : null;
  return {
    status: loan.status,
    maturityAt: loan.maturityAt.toISOString(),
    lender: loan.lenderAddress,
    strategy: loan.strategyAddress,
    rollover: strategy?.rollover ?? false,
    durationIndex: loan.durationIndex,
    pastLiquidationRatio: await pastLiquidationRatio(em, deps, loan),
    heldBy: holder ? { transactionId: holder.id, status: holder.status } : null,
  };
}

export function createLoanActivities(deps: ActivityDeps) {
  return {
    async loanSnapshot(loanId: string): Promise<LoanSnapshot | null> {
      const em = deps.orm.em.fork();
      return snapshotOf(em, deps, await em.findOne(Loan, { id: loanId }));
    },

    /** OPEN → OVERDUE when the term is over (idempotent: answers the status it leaves). */
    async markLoanOverdue(loanId: string): Promise<LoanSnapshot | null> {
      const em = deps.orm.em.fork();
      const now = deps.now();
      await em.nativeUpdate(Loan, { id: loanId, status: 'OPEN', maturityAt: { $lte: now } }, { status: 'OVERDUE', updatedAt: now });
      return snapshotOf(em, deps, await em.findOne(Loan, { id: loanId }));
    },
  };
}
