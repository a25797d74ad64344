import { checkCanPayFees, checkComputeUnitConfig, computeBudgetEnabled, computeUnitLimitFor, estimateComputeUnitPrice } from '../../src/domain/fees';
import { refusal } from '../support/expectations';
import { LedgerError } from '../../src/domain/errors';

describe('estimateComputeUnitPrice: a compute-unit price from recent prioritization fees', () => {
  const recent = [500n, 0n, 100n, 300n, 200n, 400n, 1000n, 0n];

  it('pays nothing when the cluster reports no fees', () => {
    expect(estimateComputeUnitPrice([], 'HIGH')).toBe(0n);
  });

  it('picks the percentile of each priority level from the sorted fees', () => {
    expect(estimateComputeUnitPrice(recent, 'MIN')).toBe(0n);
    expect(estimateComputeUnitPrice(recent, 'LOW')).toBe(0n);
    expect(estimateComputeUnitPrice(recent, 'MEDIUM')).toBe(200n);
    expect(estimateComputeUnitPrice(recent, 'RECOMMENDED')).toBe(200n);
    expect(estimateComputeUnitPrice(recent, 'HIGH')).toBe(400n);
    expect(estimateComputeUnitPrice(recent, 'VERY_HIGH')).toBe(1000n);
    expect(estimateComputeUnitPrice(recent, 'UNSAFE_MAX')).toBe(1000n);
  });

  it('defaults to the recommended level and leaves the input untouched', () => {
    const copy = [...recent];
    expect(estimateComputeUnitPrice(recent)).toBe(200n);
    expect(recent).toEqual(copy);
  });
});

describe('estimateComputeUnitPrice with EXCLUDE_ZEROES: the percentile of the slots where a fee was paid', () => {
  // A quiet cluster: most slots paid nothing, three paid 100, 300, 200.
  const quiet = [0n, 0n, 100n, 0n, 300n, 0n, 0n, 200n, 0n, 0n];

  it('leaves the zeros out, where DEFAULT counts them', () => {
    expect(estimateComputeUnitPrice(quiet, 'MEDIUM', 'DEFAULT')).toBe(0n);
    expect(estimateComputeUnitPrice(quiet, 'MEDIUM', 'EXCLUDE_ZEROES')).toBe(200n);
    expect(estimateComputeUnitPrice(quiet, 'MIN', 'EXCLUDE_ZEROES')).toBe(100n);
    expect(estimateComputeUnitPrice(quiet, 'UNSAFE_MAX', 'EXCLUDE_ZEROES')).toBe(300n);
  });

  it('pays nothing when no slot paid a fee', () => {
    expect(estimateComputeUnitPrice([0n, 0n], 'HIGH', 'EXCLUDE_ZEROES')).toBe(0n);
  });
});

describe('computeUnitLimitFor: the limit from simulated units', () => {
  it('adds 10 %, rounded up', () => {
    expect(computeUnitLimitFor(50_000n)).toBe(55_000);
    expect(computeUnitLimitFor(100_001)).toBe(110_002);
  });

  it('adds at least 1,000 units to a small transaction', () => {
    expect(computeUnitLimitFor(300n)).toBe(1_300);
    expect(computeUnitLimitFor(9_999)).toBe(10_999);
    expect(computeUnitLimitFor(0)).toBe(1_000);
  });

  it('never asks for more than the network allows', () => {
    expect(computeUnitLimitFor(1_300_000)).toBe(1_400_000);
    expect(computeUnitLimitFor(1_400_000n)).toBe(1_400_000);
  });
});

describe('computeUnitConfig: when a budget applies and what is refused', () => {
  it('is on with enable true or any of limit, price, priceEstimate; off without them or with enable false', () => {
    expect(computeBudgetEnabled(undefined)).toBe(false);
    expect(computeBudgetEnabled({})).toBe(false);
    expect(computeBudgetEnabled({ enable: false })).toBe(false);
    expect(computeBudgetEnabled({ enable: true })).toBe(true);
    expect(computeBudgetEnabled({ limit: 1000 })).toBe(true);
    expect(computeBudgetEnabled({ price: 0 })).toBe(true);
    expect(computeBudgetEnabled({ priceEstimate: {} })).toBe(true);
  });

  const fieldOf = (computeUnitConfig: Parameters<typeof checkComputeUnitConfig>[0]) => {
    try {
      checkComputeUnitConfig(computeUnitConfig);
      return null;
    } catch (error) {
      return error instanceof LedgerError ? error.field : String(error);
    }
  };

  it('refuses what would be ignored, naming the field', () => {
    expect(fieldOf({ computeUnitConfig: { enable: true } })).toBeNull();
    expect(fieldOf({ computeUnitConfig: { enable: false, price: 1 } })).toBe('svmTransactionConfig.computeUnitConfig.price');
    expect(fieldOf({ computeUnitConfig: { price: 1, priceEstimate: {} } })).toBe('svmTransactionConfig.computeUnitConfig.priceEstimate');
  });
});

describe('checkCanPayFees: a named fee payer must be allowed to pay', () => {
  it('refuses an account with canPayFees false, naming the field, and takes one with it true', () => {
    expect(refusal(() => checkCanPayFees({ address: 'Payer1', canPayFees: false }, 'svmTransactionConfig.feePayer'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'svmTransactionConfig.feePayer',
    });
    expect(() => checkCanPayFees({ address: 'Payer1', canPayFees: true }, 'svmTransactionConfig.feePayer')).not.toThrow();
  });
});
