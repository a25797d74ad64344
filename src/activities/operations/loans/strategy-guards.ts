/**
 * The lookups a strategy's lending guards need (lending.rules.ts holds the guards): what its
 * unsettled loans owe, read only when it has an origination cap.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Loan, type FinancialInstrument, type LoanStrategy } from '../../../db/entities';
import { checkCapacity, needsOutstanding } from '../../../domain/operations/loans/lending.rules';

/** Principal owed on the strategy's loans that are not settled (OPEN or OVERDUE), base units. */
export async function outstandingPrincipal(em: EntityManager, strategyId: string): Promise<bigint> {
  const loans = await em.find(Loan, { strategyId, status: { $in: ['OPEN', 'OVERDUE'] } }, { fields: ['principalDue'] });
  return loans.reduce((sum, loan) => sum + BigInt(loan.principalDue), 0n);
}

/** The vault lends `units` more (it holds `vaultUnits`): checkCapacity over the strategy's outstanding principal. */
export async function requireCapacity(
  em: EntityManager,
  strategy: LoanStrategy,
  principal: FinancialInstrument,
  units: bigint,
  vaultUnits: bigint,
  field: string,
): Promise<void> {
  const outstanding = needsOutstanding(strategy) ? await outstandingPrincipal(em, strategy.id) : 0n;
  checkCapacity(strategy, principal.decimals, units, vaultUnits, outstanding, field);
}
