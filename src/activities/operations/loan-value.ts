/**
 * A loan's loan-to-value at the price port's prices (docs/loans.md): a loan whose collateral is all
 * its principal needs no price (amount over amount); otherwise every instrument needs one, and a
 * missing price is a 409 naming the item whose instrument has none.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FinancialInstrument, type Loan } from '../../db/entities';
import { conflict } from '../../domain/errors';
import { interestAt, loanToValue } from '../../domain/loans';
import { noPrices } from '../../domain/prices';
import type { ActivityDeps } from '../deps';

export interface HeldCollateral {
  instrument: FinancialInstrument;
  units: bigint;
  /** The request field naming the item, for a missing price. */
  field: string;
}

export async function loanToValueAt(deps: ActivityDeps, organizationId: string, principal: FinancialInstrument, owed: bigint, principalField: string, collateral: HeldCollateral[]): Promise<bigint> {
  const samePrincipal = collateral.every((c) => c.instrument.id === principal.id);
  const prices = deps.prices ?? noPrices;
  const priceOf = async (instrument: FinancialInstrument, field: string) => {
    if (samePrincipal) return null;
    const price = await prices.priceOf(organizationId, instrument.id);
    if (!price) throw conflict(field, `no price for ${instrument.mintAddress}: a loan whose collateral is another instrument than its principal values both at oracle prices, and this instrument has no price data source`);
    return price.value;
  };
  const principalPrice = await priceOf(principal, principalField);
  const valued = [];
  for (const c of collateral) valued.push({ units: c.units, decimals: c.instrument.decimals, price: await priceOf(c.instrument, c.field) });
  return loanToValue({ units: owed, decimals: principal.decimals, price: principalPrice }, valued);
}

/** A loan's loan-to-value now: what it owes with interest to `now` over its pledged items, at the port's prices. */
export async function currentLoanToValue(em: EntityManager, deps: ActivityDeps, loan: Loan, now: Date, field: string): Promise<bigint> {
  const principal = await em.findOneOrFail(FinancialInstrument, { id: loan.principalInstrumentId });
  const collateral: HeldCollateral[] = [];
  for (const p of loan.pledged) collateral.push({ instrument: await em.findOneOrFail(FinancialInstrument, { id: p.financialInstrumentId }), units: BigInt(p.amount), field });
  return loanToValueAt(deps, loan.organizationId, principal, BigInt(loan.principalDue) + interestAt(loan, now), field, collateral);
}
