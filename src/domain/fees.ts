/** Compute-unit price from recent prioritization fees, by the spec's priority levels; the rules of computeUnitConfig. */
import { validationError } from './errors';

export type PriorityLevel = 'MIN' | 'LOW' | 'MEDIUM' | 'HIGH' | 'VERY_HIGH' | 'UNSAFE_MAX' | 'RECOMMENDED';

const percentiles: Record<PriorityLevel, number> = { MIN: 0, LOW: 25, MEDIUM: 50, RECOMMENDED: 50, HIGH: 75, VERY_HIGH: 95, UNSAFE_MAX: 100 };

/** The fee at the level's percentile of the recent fees (0 when there are none). Pure. */
export function estimateComputeUnitPrice(recentFees: bigint[], level: PriorityLevel = 'RECOMMENDED'): bigint {
  if (recentFees.length === 0) return 0n;
  const sorted = [...recentFees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = Math.min(sorted.length - 1, Math.ceil((percentiles[level] / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export interface ComputeUnitConfigInput {
  enable?: boolean;
  limit?: number;
  price?: number;
  priceEstimate?: { provider?: string; calculationStrategy?: string; priorityLevel?: PriorityLevel };
}

/**
 * svmTransactionConfig.computeUnitConfig (spec 2.1): `limit`, `price` and `priceEstimate` act when
 * given (`enable` defaults to true with them); `enable: false` with one of them, `enable: true` with
 * none, and both `price` and `priceEstimate` are refused with VALIDATION_ERROR naming the field.
 */
export function checkComputeUnitConfig(config: { computeUnitConfig?: ComputeUnitConfigInput } | undefined): void {
  const cu = config?.computeUnitConfig;
  if (!cu) return;
  const f = 'svmTransactionConfig.computeUnitConfig';
  const given = (['limit', 'price', 'priceEstimate'] as const).filter((k) => cu[k] !== undefined);
  if (cu.enable === false && given.length) throw validationError(`${f}.${given[0]}`, `${given[0]} is set but enable is false (no compute budget); drop ${given[0]} or set enable to true`);
  if (cu.enable === true && !given.length) throw validationError(`${f}.enable`, 'enable needs what to set: limit, price or priceEstimate');
  if (cu.price !== undefined && cu.priceEstimate !== undefined) throw validationError(`${f}.priceEstimate`, 'give price or priceEstimate, not both');
}

/** What a transaction's compute budget was built with, as its record keeps it (Fetch Transaction Details). */
export interface ComputeBudgetRecord {
  /** Compute unit limit (SetComputeUnitLimit), or null when not set. */
  limit: number | null;
  /** Compute unit price in micro-lamports (SetComputeUnitPrice): given, or estimated; null when not set. */
  price: string | null;
  /** The estimate asked for: the provider is recorded; the price comes from the cluster's getRecentPrioritizationFees. */
  priceEstimate: { provider: string | null; calculationStrategy: string; priorityLevel: PriorityLevel; source: 'CLUSTER_RPC' } | null;
}
