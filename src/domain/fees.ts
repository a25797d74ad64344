/** Compute-unit price from recent prioritization fees, by the spec's priority levels. */
export type PriorityLevel = 'MIN' | 'LOW' | 'MEDIUM' | 'HIGH' | 'VERY_HIGH' | 'UNSAFE_MAX' | 'RECOMMENDED';

const percentiles: Record<PriorityLevel, number> = { MIN: 0, LOW: 25, MEDIUM: 50, RECOMMENDED: 50, HIGH: 75, VERY_HIGH: 95, UNSAFE_MAX: 100 };

/** The fee at the level's percentile of the recent fees (0 when there are none). Pure. */
export function estimateComputeUnitPrice(recentFees: bigint[], level: PriorityLevel = 'RECOMMENDED'): bigint {
  if (recentFees.length === 0) return 0n;
  const sorted = [...recentFees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = Math.min(sorted.length - 1, Math.ceil((percentiles[level] / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}
