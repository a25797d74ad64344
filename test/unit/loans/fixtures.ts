/** Plain snapshots of what a loan handler looks up, for the loan rules' unit tests. */
import type { ErrorCode } from '../../../src/domain/errors';
import type { InstrumentFacts, LoanFacts, StrategyFacts } from '../../../src/domain/operations/loans/loan.rules';
import { refusal } from '../../support/expectations';

/** USD: the principal, 6 decimals. */
export const USD: InstrumentFacts = { id: 'usd', mintAddress: 'UsdMint', decimals: 6, defaultPositionState: 'ACTIVE' };
/** BOND: a collateral, 2 decimals. */
export const BOND: InstrumentFacts = { id: 'bond', mintAddress: 'BondMint', decimals: 2, defaultPositionState: 'ACTIVE' };
/** A frozen-by-default collateral. */
export const FROZEN: InstrumentFacts = { id: 'frozen', mintAddress: 'FrozenMint', decimals: 0, defaultPositionState: 'FROZEN' };
/** An instrument no strategy accepts. */
export const OTHER: InstrumentFacts = { id: 'other', mintAddress: 'OtherMint', decimals: 0 };

export const terms = (instrument: InstrumentFacts, apy: number[] = [50_000, 60_000], loanToValueRatio = 600_000, liquidationRatio = 800_000) => ({
  financialInstrumentId: instrument.id,
  mintAddress: instrument.mintAddress,
  apy,
  loanToValueRatio,
  liquidationRatio,
});

export const strategy = (fields: Partial<StrategyFacts> = {}): StrategyFacts => ({
  principalInstrumentId: USD.id,
  principalMint: USD.mintAddress,
  collateral: [terms(BOND), terms(FROZEN)],
  originationsEnabled: true,
  originationCap: null,
  liquidityBuffer: null,
  ...fields,
});

export const START = new Date('2026-01-01T00:00:00Z');

/** An OPEN loan of 100 USD against 200 BOND, 60 % limit, 80 % liquidation ratio, 10 % APY, no interest accrued yet at START. */
export const loan = (fields: Partial<LoanFacts> = {}): LoanFacts => ({
  status: 'OPEN',
  borrowerAddress: 'Borrower',
  lenderAddress: 'Lender',
  strategyAddress: 'Vault',
  principalInstrumentId: USD.id,
  principalMint: USD.mintAddress,
  pledged: [{ financialInstrumentId: BOND.id, mintAddress: BOND.mintAddress, amount: '20000', escrowPosition: 'EscrowBond' }],
  collateralInstrumentIds: [BOND.id],
  collateralMints: [BOND.mintAddress],
  principalDue: '100000000',
  principalRepaid: '0',
  interestOutstanding: '0',
  apy: 100_000,
  loanToValueRatio: 600_000,
  liquidationRatio: 800_000,
  maturityAt: new Date('2026-01-31T00:00:00Z'),
  lastInterestUpdateTime: START,
  ...fields,
});

/** Asserts `fn` refuses with `code` naming `field`; answers the error for more. */
export function expectRefusal(fn: () => unknown, code: ErrorCode, field: string) {
  const error = refusal(fn);
  expect({ code: error.code, field: error.field }).toEqual({ code, field });
  return error;
}
