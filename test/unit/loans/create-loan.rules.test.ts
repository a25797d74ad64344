/** Create Loan's rules over the request and the strategy, instruments and vault looked up. */
import {
  checkExpectedValues,
  checkOpeningLoanToValue,
  checkPledge,
  openedLoanRecord,
  openedLoanTerms,
  requireOneBorrow,
  requirePledges,
  requireStrategyPrincipal,
} from '../../../src/domain/operations/loans/create-loan.rules';
import { quoteFor } from '../../../src/domain/operations/loans/lending.rules';
import { BOND, expectRefusal, FROZEN, OTHER, START, strategy, terms, USD } from './fixtures';

const at = { position: { offchainId: 'p' } };
const borrow = { positionLookup: at, value: { amount: '10' } };
const pledge = (fields = {}) => ({ positionLookup: at, value: { amount: '20' }, ...fields });
const P = 'itemData.itemsToPledge[1]';

describe('the borrowed item', () => {
  it('is one', () => {
    expect(requireOneBorrow([borrow])).toBe(borrow);
    expectRefusal(() => requireOneBorrow([]), 'VALIDATION_ERROR', 'itemData.itemsToBorrow');
    expectRefusal(() => requireOneBorrow([borrow, borrow]), 'VALIDATION_ERROR', 'itemData.itemsToBorrow');
  });

  it("is the strategy's principal", () => {
    expect(() => requireStrategyPrincipal(strategy(), USD)).not.toThrow();
    expect(expectRefusal(() => requireStrategyPrincipal(strategy(), BOND), 'VALIDATION_ERROR', 'itemData.itemsToBorrow[0].positionLookup').message).toBe(
      'the strategy lends UsdMint, not BondMint',
    );
  });
});

describe('the pledged items', () => {
  it('are at least one', () => {
    expect(() => requirePledges([pledge()])).not.toThrow();
    expectRefusal(() => requirePledges([]), 'VALIDATION_ERROR', 'itemData.itemsToPledge');
  });

  it('answer their terms and units', () => {
    expect(checkPledge(strategy(), BOND, pledge(), P, [])).toEqual({ terms: terms(BOND), units: 2_000n });
    expect(checkPledge(strategy(), FROZEN, pledge(), P, [BOND.id]).units).toBe(20n);
  });

  it('are collateral the strategy accepts', () => {
    expectRefusal(() => checkPledge(strategy(), OTHER, pledge(), P, []), 'VALIDATION_ERROR', `${P}.positionLookup`);
  });

  it('are each pledged once', () => {
    expect(expectRefusal(() => checkPledge(strategy(), BOND, pledge(), P, [BOND.id]), 'VALIDATION_ERROR', `${P}.positionLookup`).message).toContain(
      'pledged twice',
    );
  });

  it('are not topped up when frozen by default (naming the top-up)', () => {
    expect(checkPledge(strategy(), BOND, pledge({ mintAsset: true, transferFrom: at }), P, []).units).toBe(2_000n);
    expectRefusal(() => checkPledge(strategy(), FROZEN, pledge({ transferFrom: at }), P, []), 'VALIDATION_ERROR', `${P}.transferFrom`);
    expectRefusal(() => checkPledge(strategy(), FROZEN, pledge({ mintAsset: true }), P, []), 'VALIDATION_ERROR', `${P}.mintAsset`);
  });

  it('are more than zero', () => {
    expectRefusal(() => checkPledge(strategy(), BOND, pledge({ value: { amount: '0' } }), P, []), 'VALIDATION_ERROR', `${P}.value`);
  });
});

describe('the quote the borrower accepted', () => {
  const quote = quoteFor([terms(BOND, [10], 1, 2), terms(FROZEN, [5], 1, 3)], 0, 'f');
  const E = 'itemData.protocolDetails.expectedLoanValues';
  it('must be the current one', () => {
    expect(() => checkExpectedValues(quote, { expectedApy: 10, expectedLqt: [2, 3] }, E)).not.toThrow();
    expect(expectRefusal(() => checkExpectedValues(quote, { expectedApy: 9, expectedLqt: [2, 3] }, E), 'CONFLICT', `${E}.expectedApy`).message).toBe(
      'the quote moved: the APY is now 10 cBPS, not 9',
    );
    expectRefusal(() => checkExpectedValues(quote, { expectedApy: 10, expectedLqt: [2] }, E), 'VALIDATION_ERROR', `${E}.expectedLqt`);
    expectRefusal(() => checkExpectedValues(quote, { expectedApy: 10, expectedLqt: [2, 4] }, E), 'CONFLICT', `${E}.expectedLqt[1]`);
  });
});

describe('the loan-to-value', () => {
  const quote = quoteFor([terms(BOND)], 0, 'f');
  it("may be the strategy's limit exactly, not 1 cBPS more", () => {
    expect(() => checkOpeningLoanToValue(600_000n, quote)).not.toThrow();
    const error = expectRefusal(() => checkOpeningLoanToValue(600_001n, quote), 'VALIDATION_ERROR', 'itemData.itemsToBorrow[0].value');
    expect(error.message).toContain("600001 cBPS, above the strategy's limit of 600000");
  });
});

describe('the record', () => {
  it('opens the loan at the quote for the duration, its term from the landing', () => {
    const quote = quoteFor([terms(BOND)], 1, 'f');
    expect(openedLoanTerms(quote, '100', 1, 60, START)).toEqual({
      principalDue: '100',
      principalRepaid: '0',
      interestOutstanding: '0',
      apy: 60_000,
      loanToValueRatio: 600_000,
      liquidationRatio: 800_000,
      durationIndex: 1,
      durationDays: 7,
      termStartAt: START,
      maturityAt: new Date(START.getTime() + 7 * 60 * 1000),
      lastInterestUpdateTime: START,
      status: 'OPEN',
    });
  });

  it('records the parties, each pledge at the escrow position of its instrument, the terms and the transaction', () => {
    const quote = quoteFor([terms(BOND)], 1, 'f');
    const opening = {
      escrow: 'Escrow',
      strategyId: 's',
      strategyAddress: 'Vault',
      borrower: { address: 'Carol', id: 'carol' },
      lender: { address: 'Lena', id: 'lena' },
      principal: { id: 'usd', mint: 'UsdMint', decimals: 6, units: '100' },
      pledged: [{ financialInstrumentId: 'bond', mintAddress: 'BondMint', amount: '2000' }],
      quote,
      durationIndex: 1,
      secondsPerDay: 60,
    };
    const positions = [
      { financialInstrumentId: 'usd', address: 'EscrowUsd' },
      { financialInstrumentId: 'bond', address: 'EscrowBond' },
    ];
    expect(openedLoanRecord(opening, 'escrow-id', positions, 'tx', START)).toEqual({
      strategyId: 's',
      strategyAddress: 'Vault',
      escrowAddress: 'Escrow',
      escrowAccountId: 'escrow-id',
      borrowerAddress: 'Carol',
      borrowerAccountId: 'carol',
      lenderAddress: 'Lena',
      lenderAccountId: 'lena',
      principalInstrumentId: 'usd',
      principalMint: 'UsdMint',
      principalDecimals: 6,
      pledged: [{ financialInstrumentId: 'bond', mintAddress: 'BondMint', amount: '2000', escrowPosition: 'EscrowBond' }],
      collateralMints: ['BondMint'],
      collateralInstrumentIds: ['bond'],
      ...openedLoanTerms(quote, '100', 1, 60, START),
      creationTransactionId: 'tx',
      lastTransactionId: 'tx',
      createdAt: START,
      updatedAt: START,
    });
  });
});
