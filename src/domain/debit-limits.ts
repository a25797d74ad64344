/**
 * Debit limits (spec 8): which limits govern a debit, and whether this transaction's debits, alone
 * (PER_TRANSACTION) or with what the window already holds (DURATION), stay within them. Network
 * currency and each instrument have their own table; tokens' defaults are the same table in the
 * token's units (docs/behaviour/limits.md). A limit that names `approversForOverride` does not refuse: the write
 * waits for approval (docs/approvals.md).
 */
import { LedgerError } from './errors';
import { fromBaseUnits, toBaseUnits } from './money';
import type { Debit, DestinationClass } from './write';

export type { DestinationClass };

export interface DebitLimit {
  destination: 'ANY' | DestinationClass;
  /** Token limits only: ANY, TRANSFER or BURN (a mint debits no one). */
  operationType?: string;
  /** Token limits only: ANY, or the mint authority's address (a lookup in the request is resolved to it when the limit is set). */
  mintAuthority?: string;
  maxAllowedDebit: {
    limitType: 'PER_TRANSACTION' | 'DURATION';
    limitAmount: string;
    duration?: { code: string; unit: number };
    /** API key ids that may approve a debit over this limit (the write waits in AWAITING_APPROVAL instead of failing). */
    approversForOverride?: string[];
    requiredApproversCount?: number;
  };
}

/** A limit exceeded that approvers may override: the rule that fired and the headroom it had left (base units). */
export interface OverrideNeeded {
  limit: DebitLimit;
  address: string;
  amount: string;
  alreadyInWindow: string;
  headroom: string;
  message: string;
}

/** Spec 8's defaults: OFF_PLATFORM 0 per transaction and 0 a day, NON_MANAGED 1 per transaction, MANAGED unlimited. */
export const defaultDebitLimits: DebitLimit[] = [
  { destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '0' } },
  { destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'DURATION', limitAmount: '0', duration: { code: 'DAYS', unit: 1 } } },
  { destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '1' } },
];
export const defaultNetworkCurrencyLimits = defaultDebitLimits;

/** A limit in the asset's base units; decimals finer than the asset has are dropped (a 0.5 limit on a whole-unit token is 0). */
export function limitInBaseUnits(limitAmount: string, decimals: number): bigint {
  const FINEST = 40;
  return toBaseUnits(limitAmount, Math.max(FINEST, decimals), 'limitAmount') / 10n ** BigInt(Math.max(FINEST, decimals) - decimals);
}

/** Whether `limit` governs `debit`: its destination class (burns have none: only ANY), operation type and mint authority. */
export function governs(limit: DebitLimit, debit: Pick<Debit, 'destination' | 'operationType'>, mintAuthority?: string | null): boolean {
  if (limit.destination !== 'ANY' && limit.destination !== debit.destination?.class) return false;
  if (limit.operationType && limit.operationType !== 'ANY' && limit.operationType !== (debit.operationType ?? 'TRANSFER')) return false;
  if (limit.mintAuthority && limit.mintAuthority !== 'ANY' && limit.mintAuthority !== mintAuthority) return false;
  return true;
}

const unitMs = { SECONDS: 1_000, MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 } as Record<string, number>;

/** The length of a DURATION limit's rolling window (default one day, spec 8's "last 24 hours"). */
export function windowMs(limit: DebitLimit): number {
  const duration = limit.maxAllowedDebit.duration ?? { code: 'DAYS', unit: 1 };
  return (unitMs[duration.code] ?? unitMs.DAYS) * duration.unit;
}

/**
 * Checks one account's debits of one asset in this transaction against `limits`. `recent(limit)` is
 * what the limit's window already holds (other transactions' debits it governs). Throws
 * LIMIT_EXCEEDED with the limit that fired, unless that limit names approvers: then the first such
 * limit exceeded is answered (a limit without approvers exceeded later still throws).
 */
export function checkDebits(
  limits: DebitLimit[],
  debits: Debit[],
  decimals: number,
  recent: (limit: DebitLimit) => bigint,
  mintAuthority?: string | null,
): OverrideNeeded | undefined {
  let override: OverrideNeeded | undefined;
  for (const limit of limits) {
    const governed = debits.filter((d) => governs(limit, d, mintAuthority));
    if (governed.length === 0) continue;
    const amount = governed.reduce((sum, d) => sum + BigInt(d.amount), 0n);
    const max = limitInBaseUnits(limit.maxAllowedDebit.limitAmount, decimals);
    const already = limit.maxAllowedDebit.limitType === 'DURATION' ? recent(limit) : 0n;
    if (amount + already <= max) continue;
    const first = governed[0];
    const where = first.destination ? `to a ${first.destination.class} destination` : `(${first.operationType ?? 'TRANSFER'})`;
    const which =
      limit.maxAllowedDebit.limitType === 'PER_TRANSACTION'
        ? `per-transaction limit of ${limit.maxAllowedDebit.limitAmount}`
        : `limit of ${limit.maxAllowedDebit.limitAmount} per ${windowMs(limit) / 1000} s, of which ${fromBaseUnits(already, decimals)} is already debited`;
    const message = `debit of ${fromBaseUnits(amount, decimals)} from ${first.address} ${where} exceeds the ${limit.destination} ${which}`;
    if (limit.maxAllowedDebit.approversForOverride?.length) {
      const headroom = max > already ? max - already : 0n;
      override ??= { limit, address: first.address, amount: amount.toString(), alreadyInWindow: already.toString(), headroom: headroom.toString(), message };
      continue;
    }
    throw new LedgerError('LIMIT_EXCEEDED', message, undefined, {
      limit,
      debit: { address: first.address, amount: amount.toString(), destination: first.destination, ...(already ? { alreadyInWindow: already.toString() } : {}) },
    });
  }
  return override;
}

/** The debit limit lists of Create / Update Account. */
type ApproverLimits = { maxAllowedDebit: { approversForOverride?: string[] } }[] | null;
export interface DebitLimitLists {
  networkCurrencyDebitLimits?: ApproverLimits;
  tokenDebitLimits?: ApproverLimits;
}

/** Every API key id the limits name in `approversForOverride`, with the field that names it. */
export function approversNamed(item: DebitLimitLists, f = 'itemData'): { id: string; field: string }[] {
  return (['networkCurrencyDebitLimits', 'tokenDebitLimits'] as const).flatMap((list) =>
    (item[list] ?? []).flatMap((limit, i) =>
      (limit.maxAllowedDebit.approversForOverride ?? []).map((id, j) => ({ id, field: `${f}.${list}.${i}.maxAllowedDebit.approversForOverride.${j}` })),
    ),
  );
}

/**
 * Approvers must be API keys of the account's organization that can still approve (`usable`: its
 * unrevoked key ids): any other id (another organization's key, a revoked or unknown one) could never
 * approve, so a debit held for it could only time out. VALIDATION_ERROR naming the first such entry.
 */
export function checkApprovers(item: DebitLimitLists, usable: ReadonlySet<string>, f = 'itemData'): void {
  const stranger = approversNamed(item, f).find(({ id }) => !usable.has(id));
  if (stranger)
    throw new LedgerError(
      'VALIDATION_ERROR',
      `${stranger.field}: "${stranger.id}" is not an API key id of this organization that may approve (approvers are the organization's own unrevoked API keys with role APPROVE)`,
      stranger.field,
    );
}
