import { estimateComputeUnitPrice } from '../../src/domain/fees';

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
