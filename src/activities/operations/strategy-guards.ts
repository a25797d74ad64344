/**
 * What a strategy must allow before its vault lends (API.md 7), shared by Create Loan and a
 * Refinance to another strategy: originations on, the origination cap and the liquidity buffer.
 * Each refusal is a 409 (the strategy's state) naming the request's own field.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Loan, type FinancialInstrument, type LoanStrategy } from '../../db/entities';
import { conflict } from '../../domain/errors';
import { fromBaseUnits } from '../../domain/money';

/** Principal owed on the strategy's loans that are not settled (OPEN or OVERDUE), base units. */
export async function outstandingPrincipal(em: EntityManager, strategyId: string): Promise<bigint> {
  const loans = await em.find(Loan, { strategyId, status: { $in: ['OPEN', 'OVERDUE'] } }, { fields: ['principalDue'] });
  return loans.reduce((sum, loan) => sum + BigInt(loan.principalDue), 0n);
}

export function requireOriginations(strategy: LoanStrategy, field: string): void {
  if (!strategy.originationsEnabled) throw conflict(field, 'the strategy takes no new loans (originationsEnabled is false)');
}

/** The vault lends `units` more (it holds `vaultUnits`): within the origination cap, and keeping the liquidity buffer. */
export async function requireCapacity(em: EntityManager, strategy: LoanStrategy, principal: FinancialInstrument, units: bigint, vaultUnits: bigint, field: string): Promise<void> {
  const show = (n: bigint) => fromBaseUnits(n, principal.decimals);
  const cap = strategy.originationCap == null ? null : BigInt(strategy.originationCap);
  if (cap !== null) {
    const outstanding = await outstandingPrincipal(em, strategy.id);
    if (outstanding + units > cap) throw conflict(field, `the strategy's origination cap is ${show(cap)}; ${show(outstanding)} is lent already, so ${show(units)} more does not fit`);
  }
  const buffer = strategy.liquidityBuffer == null ? null : BigInt(strategy.liquidityBuffer);
  if (buffer !== null && vaultUnits - units < buffer) {
    throw conflict(field, `the vault keeps a liquidity buffer of ${show(buffer)}; it holds ${show(vaultUnits)}, so it lends at most ${show(vaultUnits > buffer ? vaultUnits - buffer : 0n)}`);
  }
}
