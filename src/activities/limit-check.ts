/**
 * The limit-check step (spec 8): every debited wallet's debits of one asset are checked against its
 * limits (configured, else the defaults), per transaction and over rolling windows. Wallet debits
 * are held in `debit_reservation`; a check against a window runs under a lock per account, so
 * concurrent checks take turns.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, FinancialInstrument } from '../db/entities';
import { assetKey, debitedInWindow, lockAccounts, reserveDebits } from '../db/repositories/debit-reservations.repository';
import { walletTypes, type AccountType } from '../domain/account-types';
import { checkDebits, defaultDebitLimits, governs, type DebitLimit, type OverrideNeeded } from '../domain/debit-limits';
import { NETWORK_CURRENCY_DECIMALS } from '../domain/money';
import { partTransactionId } from '../domain/ids';
import type { Debit, WriteRequest } from '../domain/write';

interface Group {
  account: Account;
  asset: string;
  debits: Debit[];
  limits: DebitLimit[];
  decimals: number;
  mintAuthority: string | null;
  /** The limits with a window that govern some of these debits. */
  windows: DebitLimit[];
}

async function groupsOf(em: EntityManager, debits: Debit[]): Promise<Group[]> {
  const debited = debits.filter((d) => d.accountId);
  if (debited.length === 0) return [];
  const wallets = (await em.find(Account, { id: { $in: [...new Set(debited.map((d) => d.accountId!))] } })).filter((a) =>
    walletTypes.includes(a.type as AccountType),
  );
  const held = debited.filter((d) => wallets.some((w) => w.id === d.accountId));
  const instrumentIds = [...new Set(held.flatMap((d) => (d.asset === 'NETWORK_CURRENCY' ? [] : [d.asset.financialInstrumentId])))];
  const instruments = instrumentIds.length ? await em.find(FinancialInstrument, { id: { $in: instrumentIds } }) : [];
  const groups = new Map<string, Group>();
  for (const debit of held) {
    const key = `${debit.accountId} ${assetKey(debit)}`;
    if (!groups.has(key)) {
      const account = wallets.find((w) => w.id === debit.accountId)!;
      const instrument = instruments.find((i) => i.id === assetKey(debit));
      const configured = (instrument ? account.tokenDebitLimits : account.networkCurrencyDebitLimits) as DebitLimit[] | null;
      const mintAuthority = instrument?.authorities.mintAuthority?.address ?? null;
      groups.set(key, {
        account,
        asset: assetKey(debit),
        debits: [],
        limits: configured ?? defaultDebitLimits,
        decimals: instrument?.decimals ?? NETWORK_CURRENCY_DECIMALS,
        mintAuthority,
        windows: [],
      });
    }
    groups.get(key)!.debits.push(debit);
  }
  for (const group of groups.values()) {
    group.windows = group.limits.filter((l) => l.maxAllowedDebit.limitType === 'DURATION' && group.debits.some((d) => governs(l, d, group.mintAuthority)));
  }
  return [...groups.values()];
}

/** A debit over a limit that names approvers: the write waits for the approval `approvalId`. */
export interface ApprovalNeeded {
  approvalId: string;
  /** How long the workflow waits for the decision before the approval EXPIRES. */
  timeoutMs: number;
}

/**
 * Throws LIMIT_EXCEEDED naming the limit that fired. Holds every wallet debit of a transaction that
 * passes, so a window configured later counts what went out before it; only a check against a window
 * takes the account's lock. A limit exceeded that names approvers holds the debits too (racing
 * debits count them while approvers decide) and opens the write's approval (one per transaction).
 */
export async function enforceDebitLimits(em: EntityManager, request: WriteRequest, debits: Debit[], now: Date): Promise<{ approvalId: string } | undefined> {
  const groups = await groupsOf(em, debits);
  if (groups.length === 0) return;
  const windowed = groups.filter((g) => g.windows.length > 0);
  let override: { group: Group; needed: OverrideNeeded } | undefined;
  const check = (group: Group, recent: (limit: DebitLimit) => bigint) => {
    const needed = checkDebits(group.limits, group.debits, group.decimals, recent, group.mintAuthority);
    if (needed && !override) override = { group, needed };
  };
  for (const group of groups.filter((g) => g.windows.length === 0)) check(group, () => 0n);
  const transactionIdOf = (debit: Debit) => partTransactionId(request.transactionId, debit.part ?? 0);
  const own = [...new Set(debits.map(transactionIdOf))];
  const held = groups.flatMap((g) => g.debits);
  // No window to count and nothing to approve: holding the debits is one statement, no transaction around it.
  if (!windowed.length && !override) {
    await reserveDebits(em, request.transactionId, transactionIdOf, held, now);
    return undefined;
  }
  return em.transactional(async (tx): Promise<{ approvalId: string } | undefined> => {
    if (windowed.length)
      await lockAccounts(
        tx,
        windowed.map((g) => g.account.id),
      );
    for (const group of windowed) {
      const recent = new Map<DebitLimit, bigint>();
      for (const limit of group.windows) recent.set(limit, await debitedInWindow(tx, group.account.id, group.asset, limit, own, now, group.mintAuthority));
      check(group, (limit) => recent.get(limit) ?? 0n);
    }
    // A write resting at SIGNED holds its debits too: Submit Transaction may send it (they are given back when it expires).
    await reserveDebits(tx, request.transactionId, transactionIdOf, held, now);
    if (!override) return undefined;
    const approval = await openApproval(tx, request, override.group.account, override.needed, now);
    // A run that continued as new after its approval (a long signature wait) goes on without waiting again.
    return approval.status === 'APPROVED' ? undefined : { approvalId: approval.id };
  });
}

/** Inserts the write's PENDING approval, or finds the one a replayed check (or an earlier run) made. */
async function openApproval(
  tx: EntityManager,
  request: WriteRequest,
  account: Account,
  needed: OverrideNeeded,
  now: Date,
): Promise<{ id: string; status: string }> {
  const { approversForOverride = [], requiredApproversCount } = needed.limit.maxAllowedDebit;
  const required = Math.min(Math.max(requiredApproversCount ?? 1, 1), approversForOverride.length);
  const rows: { id: string; status: string }[] = await tx.getConnection().execute(
    `insert into approval (organization_id, transaction_id, account_id, required_approvers_count, approvers_for_override, rule, status, created_at, updated_at)
     values (?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?::jsonb, 'PENDING', ?, ?)
     on conflict (transaction_id) do update set updated_at = approval.updated_at returning id, status`,
    [request.organizationId, request.transactionId, account.id, required, JSON.stringify(approversForOverride), JSON.stringify(needed), now, now],
    'all',
    // In the limit check's transaction: a connection of its own would wait for the pool while racing checks hold it all waiting for this one's lock.
    tx.getTransactionContext(),
  );
  return rows[0];
}
