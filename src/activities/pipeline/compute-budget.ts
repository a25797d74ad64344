/**
 * The compute budget of a message (svmTransactionConfig.computeUnitConfig, checked at the API): the
 * price given or estimated from the cluster's recent prioritization fees for the message's writable
 * accounts, and the limit given or simulated. Runs inside build, whose record keeps the result
 * before sign: a replayed build answers the recorded message and never asks the network again.
 */
import { isWritableRole, type Instruction } from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { computeBudgetEnabled, computeUnitLimitFor, estimateComputeUnitPrice, MAX_COMPUTE_UNIT_LIMIT, type ComputeBudgetRecord } from '../../domain/fees';
import type { WriteRequest } from '../../domain/write';
import type { SvmNetwork } from '../../network/svm-network';

/** getRecentPrioritizationFees takes at most 128 addresses. */
const MAX_FEE_ADDRESSES = 128;

/** The budget before its limit is known: the price settled, the limit given or still to simulate. */
export interface PendingBudget {
  limit: number | undefined;
  price: bigint | undefined;
  record: Omit<ComputeBudgetRecord, 'limit' | 'limitSource' | 'simulatedUnits'>;
}

/** The instructions of a budget: the limit (when known) and the price (when set). */
export function budgetInstructions(limit: number | undefined, price: bigint | undefined): Instruction[] {
  return [
    ...(limit === undefined ? [] : [getSetComputeUnitLimitInstruction({ units: limit })]),
    ...(price === undefined ? [] : [getSetComputeUnitPriceInstruction({ microLamports: price })]),
  ];
}

/** null: no compute budget instructions. Asks the network for recent fees when a priceEstimate is asked for. */
export async function pendingBudget(
  request: WriteRequest,
  feePayer: string,
  instructions: readonly Instruction[],
  network: SvmNetwork,
): Promise<PendingBudget | null> {
  const cu = request.svmTransactionConfig?.computeUnitConfig;
  if (!cu || !computeBudgetEnabled(cu)) return null;
  const estimate = cu.priceEstimate;
  const strategy = estimate?.calculationStrategy ?? 'DEFAULT';
  const level = estimate?.priorityLevel ?? 'RECOMMENDED';
  const price =
    cu.price !== undefined
      ? BigInt(cu.price)
      : estimate
        ? estimateComputeUnitPrice(await network.getRecentPrioritizationFees(writableAccounts(feePayer, instructions)), level, strategy)
        : undefined;
  return {
    limit: cu.limit,
    price,
    record: {
      price: price === undefined ? null : price.toString(),
      priceEstimate: estimate
        ? { provider: estimate.provider ?? 'CLUSTER_RPC', calculationStrategy: strategy, priorityLevel: level, source: 'CLUSTER_RPC' }
        : null,
    },
  };
}

/**
 * The limit for a message without a given one: its simulation (at the most units, so nothing runs
 * out) plus the margin. A simulation that fails gets the most units: the network then judges the
 * transaction as it would any other (preflight refuses it with its own error).
 */
export async function simulatedLimit(network: SvmNetwork, wireWithMaxLimit: string): Promise<{ limit: number; simulatedUnits: number | null }> {
  const { unitsConsumed, err } = await network.simulateTransaction(wireWithMaxLimit);
  if (err || unitsConsumed === null) return { limit: MAX_COMPUTE_UNIT_LIMIT, simulatedUnits: unitsConsumed === null ? null : Number(unitsConsumed) };
  return { limit: computeUnitLimitFor(unitsConsumed), simulatedUnits: Number(unitsConsumed) };
}

/** The fee payer and every account an instruction writes, once each: the accounts whose write locks a priority fee competes for. */
export function writableAccounts(feePayer: string, instructions: readonly Instruction[]): string[] {
  const writable = new Set<string>([feePayer]);
  for (const instruction of instructions) for (const account of instruction.accounts ?? []) if (isWritableRole(account.role)) writable.add(account.address);
  return [...writable].slice(0, MAX_FEE_ADDRESSES);
}
