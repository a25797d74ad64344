import { PrioritizationFeeCache } from '../../dev/local-node/prioritization-fees';

const key = (n: number) => new Uint8Array(32).fill(n);
const [a, b, c] = [key(1), key(2), key(3)];

describe("the local node's prioritization fee cache (getRecentPrioritizationFees like Agave)", () => {
  it("answers a slot's lowest price, raised to the highest lowest among the asked accounts' write locks", () => {
    const cache = new PrioritizationFeeCache();
    cache.record(10, 500n, [a, b]);
    cache.record(10, 100n, [c]);
    cache.record(10, 700n, [a]);
    expect(cache.feeAt(10, [])).toBe(100n);
    expect(cache.feeAt(10, [c])).toBe(100n);
    expect(cache.feeAt(10, [a])).toBe(500n);
    expect(cache.feeAt(10, [b, c])).toBe(500n);
    expect(cache.feeAt(10, [key(9)])).toBe(100n);
  });

  it('answers 0 for a slot without transactions, and forgets slots older than its capacity', () => {
    const cache = new PrioritizationFeeCache(3);
    cache.record(1, 50n, [a]);
    expect(cache.feeAt(2, [a])).toBe(0n);
    cache.record(4, 60n, [a]);
    expect(cache.feeAt(1, [a])).toBe(0n);
    expect(cache.feeAt(4, [a])).toBe(60n);
  });
});
