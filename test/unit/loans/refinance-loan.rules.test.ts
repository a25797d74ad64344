/** Refinance Loan's rules: the parties named are the loan's, a rollover or another strategy's vault, its guards. */
import {
  checkMoveLoanToValue,
  isSameLender,
  quoteOf,
  refinancedLoanFields,
  requireBorrowedItem,
  requireFromLender,
  requireNamedBorrower,
  requireRefinanceable,
  requireSamePrincipal,
  requireStrategyVault,
} from '../../../src/domain/operations/loans/refinance-loan.rules';
import { BOND, expectRefusal, loan, START, strategy, terms, USD } from './fixtures';
import { durationDays } from '../../../src/domain/loans';

const T = 'itemData.toLender';

describe('the loan and the parties named', () => {
  it('an OPEN or OVERDUE loan', () => {
    expect(() => requireRefinanceable(loan({ status: 'OVERDUE' }))).not.toThrow();
    expect(expectRefusal(() => requireRefinanceable(loan({ status: 'CLOSED' })), 'CONFLICT', 'itemData.escrow').message).toBe('the loan is CLOSED');
  });

  it("fromLender: the lender's account or its strategy's vault", () => {
    expect(() => requireFromLender(loan(), 'Lender')).not.toThrow();
    expect(() => requireFromLender(loan(), 'Vault')).not.toThrow();
    expectRefusal(() => requireFromLender(loan(), 'Borrower'), 'VALIDATION_ERROR', 'itemData.fromLender');
  });

  it("borrower: the loan's", () => {
    expect(() => requireNamedBorrower(loan(), 'Borrower')).not.toThrow();
    expectRefusal(() => requireNamedBorrower(loan(), 'Lender'), 'VALIDATION_ERROR', 'itemData.borrower');
  });

  it('borrowedItem: a position of the principal', () => {
    expect(() => requireBorrowedItem(USD, USD)).not.toThrow();
    expectRefusal(() => requireBorrowedItem(USD, BOND), 'VALIDATION_ERROR', 'itemData.borrowedItem');
  });
});

describe('toLender', () => {
  it("is a rollover when it names the loan's own lender", () => {
    expect(isSameLender(loan(), 'Lender')).toBe(true);
    expect(isSameLender(loan(), 'Vault')).toBe(true);
    expect(isSameLender(loan(), 'OtherVault')).toBe(false);
  });

  it("otherwise names a strategy's vault", () => {
    const other = strategy();
    expect(requireStrategyVault(other, 'OtherVault')).toBe(other);
    expect(expectRefusal(() => requireStrategyVault(null, 'Someone'), 'VALIDATION_ERROR', T).message).toContain("Someone is not a loan strategy's vault");
  });

  it("whose strategy lends the loan's principal", () => {
    expect(() => requireSamePrincipal(strategy(), loan())).not.toThrow();
    expectRefusal(() => requireSamePrincipal(strategy({ principalInstrumentId: BOND.id, principalMint: BOND.mintAddress }), loan()), 'VALIDATION_ERROR', T);
  });
});

describe('quoteOf', () => {
  it("quotes the strategy's terms for the loan's collateral at the duration", () => {
    expect(quoteOf(strategy(), loan(), 1, T)).toEqual({ apy: 60_000, liquidationRatios: [800_000], loanToValueRatio: 600_000, liquidationRatio: 800_000 });
  });
  it('refuses a strategy that does not accept a pledged item, naming the field given', () => {
    expect(expectRefusal(() => quoteOf(strategy({ collateral: [] }), loan(), 0, 'itemData.escrow'), 'VALIDATION_ERROR', 'itemData.escrow').message).toBe(
      'the strategy does not accept BondMint (pledged item 0) as collateral',
    );
  });
  it('refuses a duration it does not lend for, naming durationIndex', () => {
    expectRefusal(() => quoteOf(strategy({ collateral: [terms(BOND, [1])] }), loan(), 3, T), 'VALIDATION_ERROR', 'itemData.durationIndex');
  });
});

describe('checkMoveLoanToValue', () => {
  it("takes a loan at the new strategy's limit exactly, not 1 cBPS above", () => {
    expect(() => checkMoveLoanToValue(600_000n, { loanToValueRatio: 600_000 })).not.toThrow();
    expectRefusal(() => checkMoveLoanToValue(600_001n, { loanToValueRatio: 600_000 }), 'VALIDATION_ERROR', T);
  });
});

describe('refinancedLoanFields', () => {
  it('adds the interest to principalDue and starts the new term at the landing', () => {
    const terms = { apy: 70_000, loanToValueRatio: 500_000, liquidationRatio: 700_000, durationIndex: 2, secondsPerDay: 86_400 };
    expect(refinancedLoanFields(loan(), terms, 5n, START)).toEqual({
      principalDue: '100000005',
      interestOutstanding: '0',
      termStartAt: START,
      maturityAt: new Date(START.getTime() + durationDays[2] * 86_400_000),
      lastInterestUpdateTime: START,
      apy: 70_000,
      loanToValueRatio: 500_000,
      liquidationRatio: 700_000,
      durationIndex: 2,
      durationDays: 30,
      status: 'OPEN',
    });
  });
});
