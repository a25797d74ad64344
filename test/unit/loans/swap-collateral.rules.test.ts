/** Swap Collateral's rules: a loan whose collateral changes, something to do, deposits the strategy accepts, the limit after. */
import {
  checkSwapLoanToValue,
  depositUnits,
  requireCollateralChangeable,
  requireDepositOrWithdraw,
  swappedCollateralFields,
} from '../../../src/domain/operations/loans/swap-collateral.rules';
import { BOND, expectRefusal, FROZEN, loan, OTHER, strategy } from './fixtures';

const at = { position: { offchainId: 'p' } };
const P = 'itemData.itemsToDeposit[0]';

describe('what Swap Collateral takes', () => {
  it('an OPEN or OVERDUE loan', () => {
    expect(() => requireCollateralChangeable(loan())).not.toThrow();
    expect(expectRefusal(() => requireCollateralChangeable(loan({ status: 'LIQUIDATED' })), 'CONFLICT', 'itemData.escrow').message).toBe(
      'the loan is LIQUIDATED: its collateral no longer changes',
    );
  });

  it('something to deposit or withdraw', () => {
    expect(() => requireDepositOrWithdraw([{ positionLookup: at }], [])).not.toThrow();
    expectRefusal(() => requireDepositOrWithdraw([], []), 'VALIDATION_ERROR', 'itemData');
  });
});

describe('depositUnits', () => {
  it('answers the value and its units', () => {
    expect(depositUnits(strategy(), BOND, { positionLookup: at, value: { amount: '1.5' }, mintAsset: true }, P)).toEqual({
      value: { amount: '1.5' },
      units: 150n,
    });
  });

  it('refuses a collateral the strategy does not accept', () => {
    expectRefusal(() => depositUnits(strategy(), OTHER, { positionLookup: at, value: { amount: '1' } }, P), 'VALIDATION_ERROR', `${P}.positionLookup`);
  });

  it('refuses repayAll, and a deposit without a value', () => {
    expectRefusal(() => depositUnits(strategy(), BOND, { positionLookup: at, value: { amount: '1' }, repayAll: true }, P), 'VALIDATION_ERROR', `${P}.repayAll`);
    expectRefusal(() => depositUnits(strategy(), BOND, { positionLookup: at }, P), 'VALIDATION_ERROR', `${P}.value`);
  });

  it('refuses topping up a frozen-by-default collateral, naming the top-up', () => {
    expect(depositUnits(strategy(), FROZEN, { positionLookup: at, value: { amount: '1' } }, P).units).toBe(1n);
    expectRefusal(
      () => depositUnits(strategy(), FROZEN, { positionLookup: at, value: { amount: '1' }, transferFrom: at }, P),
      'VALIDATION_ERROR',
      `${P}.transferFrom`,
    );
    expectRefusal(
      () => depositUnits(strategy(), FROZEN, { positionLookup: at, value: { amount: '1' }, mintAsset: true }, P),
      'VALIDATION_ERROR',
      `${P}.mintAsset`,
    );
  });

  it('refuses zero', () => {
    expectRefusal(() => depositUnits(strategy(), BOND, { positionLookup: at, value: { amount: '0' } }, P), 'VALIDATION_ERROR', `${P}.value`);
  });
});

describe('checkSwapLoanToValue', () => {
  it('leaves the loan at its limit exactly, not 1 cBPS above', () => {
    expect(() => checkSwapLoanToValue(loan(), 600_000n)).not.toThrow();
    expectRefusal(() => checkSwapLoanToValue(loan(), 600_001n), 'VALIDATION_ERROR', 'itemData.itemsToWithdraw');
  });
});

describe('swappedCollateralFields', () => {
  it("adds and takes units, and a new instrument becomes an item held in the escrow's position of it", () => {
    const changes = [
      { financialInstrumentId: BOND.id, mintAddress: BOND.mintAddress, amount: '-500' },
      { financialInstrumentId: FROZEN.id, mintAddress: FROZEN.mintAddress, amount: '3' },
    ];
    const pledged = loan().pledged;
    expect(swappedCollateralFields(pledged, changes, [{ financialInstrumentId: FROZEN.id, address: 'EscrowFrozen' }])).toEqual({
      pledged: [
        { ...pledged[0], amount: '19500' },
        { financialInstrumentId: FROZEN.id, mintAddress: FROZEN.mintAddress, amount: '3', escrowPosition: 'EscrowFrozen' },
      ],
      collateralMints: [BOND.mintAddress, FROZEN.mintAddress],
      collateralInstrumentIds: [BOND.id, FROZEN.id],
    });
    expect(pledged[0].amount).toBe('20000');
  });
});
