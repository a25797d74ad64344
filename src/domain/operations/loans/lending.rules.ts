/**
 * What a strategy must allow before its vault lends (docs/loans.md), shared by Create Loan and a
 * Refinance to another strategy: a rate for the duration against every pledged item, originations
 * on, the origination cap and the liquidity buffer. Pure, over the strategy's looked-up state.
 */
import { conflict, notFound, validationError } from '../../errors';
import type { CollateralTerms } from '../../loans';
import { fromBaseUnits } from '../../money';
import type { StrategyFacts } from './loan.rules';

/** The terms a loan gets at a duration (the loan's APY is the highest of its collaterals', its ratios the lowest: the lender's safe side). */
export interface LoanQuote {
  apy: number;
  /** One per pledged item, in order. */
  liquidationRatios: number[];
  loanToValueRatio: number;
  liquidationRatio: number;
}

/** The quote for `durationIndex` over the pledged items' terms; a duration one of them is not lent for is 400 naming `field`. */
export function quoteFor(terms: CollateralTerms[], durationIndex: number, field: string): LoanQuote {
  const rates = terms.map((t, i) => {
    const apy = t.apy[durationIndex];
    if (apy === undefined)
      throw validationError(
        field,
        `the strategy does not lend for duration index ${durationIndex} against pledged item ${i} (it lends for indexes 0 to ${t.apy.length - 1})`,
      );
    return apy;
  });
  return {
    apy: Math.max(...rates),
    liquidationRatios: terms.map((t) => t.liquidationRatio),
    loanToValueRatio: Math.min(...terms.map((t) => t.loanToValueRatio)),
    liquidationRatio: Math.min(...terms.map((t) => t.liquidationRatio)),
  };
}

/** The strategy takes new loans; otherwise 409 naming `field`. */
/** The strategy a Create Loan names (404 when the organization has none at that vault) takes new loans (409). */
export function requireOriginations<T extends Pick<StrategyFacts, 'originationsEnabled'>>(strategy: T | null, vaultAddress: string, field: string): T {
  if (!strategy) throw notFound(field, `${vaultAddress} is not a loan strategy of the organization`);
  if (!strategy.originationsEnabled) throw conflict(field, 'the strategy takes no new loans (originationsEnabled is false)');
  return strategy;
}

/**
 * The vault lends `units` more (it holds `vaultUnits`; `outstanding` is the principal its unsettled
 * loans owe, read only when there is a cap): within the origination cap, and keeping the liquidity
 * buffer. Each refusal is 409 naming `field`.
 */
export function checkCapacity(
  strategy: Pick<StrategyFacts, 'originationCap' | 'liquidityBuffer'>,
  decimals: number,
  units: bigint,
  vaultUnits: bigint,
  outstanding: bigint,
  field: string,
): void {
  const show = (n: bigint) => fromBaseUnits(n, decimals);
  const cap = strategy.originationCap == null ? null : BigInt(strategy.originationCap);
  if (cap !== null && outstanding + units > cap)
    throw conflict(field, `the strategy's origination cap is ${show(cap)}; ${show(outstanding)} is lent already, so ${show(units)} more does not fit`);
  const buffer = strategy.liquidityBuffer == null ? null : BigInt(strategy.liquidityBuffer);
  if (buffer !== null && vaultUnits - units < buffer) {
    throw conflict(
      field,
      `the vault keeps a liquidity buffer of ${show(buffer)}; it holds ${show(vaultUnits)}, so it lends at most ${show(vaultUnits > buffer ? vaultUnits - buffer : 0n)}`,
    );
  }
}

/** Whether the capacity check needs the strategy's outstanding principal (it has a cap). */
export const needsOutstanding = (strategy: Pick<StrategyFacts, 'originationCap'>) => strategy.originationCap != null;
