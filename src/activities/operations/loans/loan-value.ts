/**
 * A loan's loan-to-value at the price port's prices: the prices are looked up here, the valuation
 * and its refusal (a missing price, 409 naming the item) are loan-value.rules.ts's.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FinancialInstrument, type Loan } from '../../../db/entities';
import { interestAt } from '../../../domain/loans';
import { loanToValueAtPrices, needsPrices, type ValuedItem } from '../../../domain/operations/loans/loan-value.rules';
import { noPrices } from '../../../domain/prices';
import type { ActivityDeps } from '../../deps';

export type HeldCollateral = ValuedItem & { instrument: FinancialInstrument };

/** Loan-to-value in cBPS of `owed` base units of `principal` over `collateral`; reads prices only when some collateral is another instrument. */
export async function loanToValueAt(
  deps: ActivityDeps,
  organizationId: string,
  principal: FinancialInstrument,
  owed: bigint,
  principalField: string,
  collateral: HeldCollateral[],
): Promise<bigint> {
  const prices = new Map<string, string | null>();
  if (needsPrices(principal.id, collateral)) {
    const port = deps.prices ?? noPrices;
    for (const instrument of [principal, ...collateral.map((c) => c.instrument)]) {
      if (!prices.has(instrument.id)) prices.set(instrument.id, (await port.priceOf(organizationId, instrument.id))?.value ?? null);
    }
  }
  return loanToValueAtPrices({ instrument: principal, units: owed, field: principalField }, collateral, prices);
}

/** The collateral records of held units by instrument id (reads only; fails if an instrument is gone), each valued item naming `field`. */
export async function heldCollateral(em: EntityManager, held: Iterable<[string, bigint]>, field: string): Promise<HeldCollateral[]> {
  const collateral: HeldCollateral[] = [];
  for (const [id, units] of held) collateral.push({ instrument: await em.findOneOrFail(FinancialInstrument, { id }), units, field });
  return collateral;
}

/** A loan's loan-to-value now: what it owes with interest to `now` over its pledged items, at the port's prices. */
export async function currentLoanToValue(em: EntityManager, deps: ActivityDeps, loan: Loan, now: Date, field: string): Promise<bigint> {
  const principal = await em.findOneOrFail(FinancialInstrument, { id: loan.principalInstrumentId });
  const collateral = await heldCollateral(
    em,
    loan.pledged.map((p): [string, bigint] => [p.financialInstrumentId, BigInt(p.amount)]),
    field,
  );
  return loanToValueAt(deps, loan.organizationId, principal, BigInt(loan.principalDue) + interestAt(loan, now), field, collateral);
}
