/**
 * The arithmetic of LEDGER_ESCROW loans (docs/loans.md): duration indexes, cBPS rates and ratios,
 * simple per-second interest, loan-to-value at prices. Pure: amounts are bigint base units, prices
 * exact decimal text; nothing goes through a binary float. The operations' refusals are in
 * operations/loans/*.rules.ts.
 */
import { LedgerError } from './errors';
import { fromBaseUnits } from './money';

/** The one lending protocol (docs/loans.md). */
export const LEDGER_ESCROW = 'LEDGER_ESCROW';

/** 1,000,000 cBPS = 100 %. */
export const CBPS = 1_000_000n;
export const SECONDS_PER_YEAR = 31_536_000n;

/** Duration index → days (docs/loans.md): 1 day, 1 week, 1 month, 3 months, 6 months. */
export const durationDays = [1, 7, 30, 90, 180] as const;
export const MAX_DURATION_INDEX = durationDays.length - 1;

/** Hours an OVERDUE loan waits before its collateral goes to the lender (docs/loans.md). */
export const GRACE_HOURS = 48;

/** The grace period in ms, its hours shortened as days are (`secondsPerDay`, docs/loans.md). */
export const graceMsOf = (secondsPerDay: number) => GRACE_HOURS * 3600 * 1000 * (secondsPerDay / 86_400);

export const loanStatuses = ['OPEN', 'OVERDUE', 'REPAID', 'LIQUIDATED', 'CLOSED'] as const;
export type LoanStatus = (typeof loanStatuses)[number];

/** A strategy's terms for one collateral instrument. */
export interface CollateralTerms {
  financialInstrumentId: string;
  mintAddress: string;
  /** cBPS, one per duration index the strategy lends for (index i = durationDays[i]). */
  apy: number[];
  loanToValueRatio: number;
  liquidationRatio: number;
}

/** Interest accrued on `principal` base units over `seconds` at `apy` cBPS, in base units rounded down (the borrower's side). */
export function interestFor(principal: bigint, apy: number, seconds: bigint): bigint {
  if (seconds <= 0n || principal <= 0n) return 0n;
  return (principal * BigInt(apy) * seconds) / (CBPS * SECONDS_PER_YEAR);
}

/** Interest per second in UI units, as exact decimal text cut after `decimals + 9` places (it rarely terminates). */
export function interestPerSecondText(principal: bigint, apy: number, decimals: number): string {
  const extra = 9;
  const scaled = (principal * BigInt(apy) * 10n ** BigInt(extra)) / (CBPS * SECONDS_PER_YEAR);
  return fromBaseUnits(scaled, decimals + extra);
}

/** Whole seconds from `from` to `to` (0 when `to` is earlier). */
export function secondsBetween(from: Date, to: Date): bigint {
  const ms = to.getTime() - from.getTime();
  return ms > 0 ? BigInt(Math.floor(ms / 1000)) : 0n;
}

/** An exact decimal as a fraction: value = numerator / 10^scale. */
interface Decimal {
  numerator: bigint;
  scale: number;
}

function decimalOf(text: string): Decimal {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new LedgerError('CONFLICT', `price "${text}" is not a non-negative decimal`);
  const fraction = match[2] ?? '';
  return { numerator: BigInt(match[1] + fraction), scale: fraction.length };
}

/** One instrument's amount in a loan, and its price (null when the loan needs none). */
export interface ValuedAmount {
  units: bigint;
  decimals: number;
  /** Exact decimal text: the price of one whole token; null for a loan whose instruments are all the same. */
  price: string | null;
}

/**
 * Loan-to-value in cBPS, rounded up (the lender's side): the principal's value over the collateral's.
 * Without prices (every instrument the same) it is amount over amount. Collateral worth nothing: CBPS × 10.
 */
export function loanToValue(principal: ValuedAmount, collateral: ValuedAmount[]): bigint {
  // Every value as a fraction over one common denominator: units × price / 10^(decimals + price scale).
  const parts = [principal, ...collateral].map((v) => {
    const price = v.price === null ? { numerator: 1n, scale: 0 } : decimalOf(v.price);
    return { numerator: v.units * price.numerator, scale: v.decimals + price.scale };
  });
  const scale = Math.max(...parts.map((p) => p.scale));
  const [owed, ...pledged] = parts.map((p) => p.numerator * 10n ** BigInt(scale - p.scale));
  const worth = pledged.reduce((a, b) => a + b, 0n);
  if (worth === 0n) return CBPS * 10n;
  return (owed * CBPS + worth - 1n) / worth;
}

/** When the term started at `start` for `days` ends; `secondsPerDay` shortens days for tests (docs/loans.md). */
export function maturityOf(start: Date, days: number, secondsPerDay: number): Date {
  return new Date(start.getTime() + days * secondsPerDay * 1000);
}

/** What a loan owes and has repaid, base units. */
export interface LoanBalance {
  principalDue: bigint;
  principalRepaid: bigint;
  interestOutstanding: bigint;
}

/**
 * A repayment of `paid` base units with interest accrued to its landing (`interest`, what
 * interestAt answers then): interest first, then principal. `repayAll` settles the loan whatever
 * accrued between the quote and the landing (docs/loans.md).
 */
export function applyRepayment(balance: LoanBalance, interest: bigint, paid: bigint, repayAll: boolean): LoanBalance & { settled: boolean } {
  if (repayAll) return { principalDue: 0n, principalRepaid: balance.principalRepaid + balance.principalDue, interestOutstanding: 0n, settled: true };
  const toInterest = paid < interest ? paid : interest;
  const rest = paid - toInterest;
  const toPrincipal = rest < balance.principalDue ? rest : balance.principalDue;
  const left = {
    principalDue: balance.principalDue - toPrincipal,
    principalRepaid: balance.principalRepaid + toPrincipal,
    interestOutstanding: interest - toInterest,
  };
  return { ...left, settled: left.principalDue === 0n && left.interestOutstanding === 0n };
}

/** What interest accrual needs of a loan. */
export interface AccruingLoan {
  status: string;
  principalDue: string;
  interestOutstanding: string;
  apy: number;
  lastInterestUpdateTime: Date;
}

/** Interest owed at `at`, base units: what was moved into interestOutstanding, and what accrued since (nothing once settled). */
export function interestAt(loan: AccruingLoan, at: Date): bigint {
  const settled = loan.status === 'REPAID' || loan.status === 'CLOSED' || loan.status === 'LIQUIDATED';
  const accrued = settled ? 0n : interestFor(BigInt(loan.principalDue), loan.apy, secondsBetween(loan.lastInterestUpdateTime, at));
  return BigInt(loan.interestOutstanding) + accrued;
}

/** A rollover's new term (docs/loans.md): accrued interest is added to principalDue and the clock restarts at `at`. */
export function rolledOver(balance: { principalDue: bigint }, interest: bigint, at: Date, days: number, secondsPerDay: number) {
  return {
    principalDue: balance.principalDue + interest,
    interestOutstanding: 0n,
    termStartAt: at,
    maturityAt: maturityOf(at, days, secondsPerDay),
    lastInterestUpdateTime: at,
  };
}
