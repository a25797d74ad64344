/** The rules of svmTransactionConfig.computeUnitConfig: when a compute budget applies, its limit from a simulation, its price from recent prioritization fees. */
import { validationError } from './errors';

export const priorityLevels = ['MIN', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH', 'UNSAFE_MAX', 'RECOMMENDED'] as const;
export type PriorityLevel = (typeof priorityLevels)[number];

/** Fee-estimate providers: the cluster's own getRecentPrioritizationFees (the only one; the default). */
export const priceEstimateProviders = ['CLUSTER_RPC'] as const;
export type PriceEstimateProvider = (typeof priceEstimateProviders)[number];

/** DEFAULT: the percentile over every recent slot (quiet slots count as 0); EXCLUDE_ZEROES: over the slots where a fee was paid. */
export const calculationStrategies = ['DEFAULT', 'EXCLUDE_ZEROES'] as const;
export type CalculationStrategy = (typeof calculationStrategies)[number];

const percentiles: Record<PriorityLevel, number> = { MIN: 0, LOW: 25, MEDIUM: 50, RECOMMENDED: 50, HIGH: 75, VERY_HIGH: 95, UNSAFE_MAX: 100 };

/** The network's most compute units per transaction. */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
/** Margin over simulated units: 10 %, at least this many units (a small transaction's count varies by a few hundred with its accounts' state). */
export const MIN_COMPUTE_UNIT_MARGIN = 1_000;

/** The limit for a message whose simulation consumed `unitsConsumed`: +10 % (at least 1,000 units), capped at 1,400,000. Pure. */
export function computeUnitLimitFor(unitsConsumed: bigint | number): number {
  const units = Number(unitsConsumed);
  return Math.min(MAX_COMPUTE_UNIT_LIMIT, units + Math.max(Math.ceil(units / 10), MIN_COMPUTE_UNIT_MARGIN));
}

/** The fee at the level's percentile (nearest rank) of the recent fees, zeros left out with EXCLUDE_ZEROES (0 when none are left). Pure. */
export function estimateComputeUnitPrice(recentFees: bigint[], level: PriorityLevel = 'RECOMMENDED', strategy: CalculationStrategy = 'DEFAULT'): bigint {
  const fees = strategy === 'EXCLUDE_ZEROES' ? recentFees.filter((fee) => fee > 0n) : recentFees;
  if (fees.length === 0) return 0n;
  const sorted = [...fees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = Math.min(sorted.length - 1, Math.ceil((percentiles[level] / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export interface ComputeUnitConfigInput {
  enable?: boolean;
  limit?: number;
  price?: number;
  priceEstimate?: { provider?: PriceEstimateProvider; calculationStrategy?: CalculationStrategy; priorityLevel?: PriorityLevel };
}

/**
 * Whether the message gets compute budget instructions: `enable: true`, or any of `limit`, `price`,
 * `priceEstimate` (enable defaults to true with them).
 */
export function computeBudgetEnabled(cu: ComputeUnitConfigInput | undefined): boolean {
  if (!cu || cu.enable === false) return false;
  return cu.enable === true || cu.limit !== undefined || cu.price !== undefined || cu.priceEstimate !== undefined;
}

/**
 * svmTransactionConfig.computeUnitConfig (spec 2.1): `enable: false` with limit, price or
 * priceEstimate, and both `price` and `priceEstimate`, are refused with VALIDATION_ERROR naming the field.
 */
export function checkComputeUnitConfig(config: { computeUnitConfig?: ComputeUnitConfigInput } | undefined): void {
  const cu = config?.computeUnitConfig;
  if (!cu) return;
  const f = 'svmTransactionConfig.computeUnitConfig';
  const given = (['limit', 'price', 'priceEstimate'] as const).filter((k) => cu[k] !== undefined);
  if (cu.enable === false && given.length)
    throw validationError(`${f}.${given[0]}`, `${given[0]} is set but enable is false (no compute budget); drop ${given[0]} or set enable to true`);
  if (cu.price !== undefined && cu.priceEstimate !== undefined) throw validationError(`${f}.priceEstimate`, 'give price or priceEstimate, not both');
}

/** What a transaction's compute budget was built with, as its record keeps it (Fetch Transaction Details). */
export interface ComputeBudgetRecord {
  /** Compute unit limit (SetComputeUnitLimit), or null when not set. */
  limit: number | null;
  /** Where the limit came from: given in the request, or simulated units plus the margin (null when no limit is set). */
  limitSource?: 'GIVEN' | 'SIMULATED' | null;
  /** Units the simulation consumed, when the limit came from it. */
  simulatedUnits?: number | null;
  /** Compute unit price in micro-lamports (SetComputeUnitPrice): given, or estimated; null when not set. */
  price: string | null;
  /** The estimate asked for: the price comes from the cluster's getRecentPrioritizationFees for the message's writable accounts. */
  priceEstimate: { provider: string | null; calculationStrategy: string; priorityLevel: PriorityLevel; source: 'CLUSTER_RPC' } | null;
}

/** A fee payer named by the request must be allowed to pay fees. VALIDATION_ERROR naming the field. */
export function checkCanPayFees(account: { address: string; canPayFees: boolean }, field: string): void {
  if (!account.canPayFees) throw validationError(field, `account ${account.address} is not allowed to pay fees (canPayFees is false)`);
}
