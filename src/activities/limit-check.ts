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
import { checkDebits, defaultDebitLimits, governs, type DebitLimit } from '../domain/debit-limits';
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
  const wallets = (await em.find(Account, { id: { $in: [...new Set(debited.map((d) => d.accountId!))] } })).filter((a) => walletTypes.includes(a.type as AccountType));
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
      groups.set(key, { account, asset: assetKey(debit), debits: [], limits: configured ?? defaultDebitLimits, decimals: instrument?.decimals ?? NETWORK_CURRENCY_DECIMALS, mintAuthority, windows: [] });
    }
    groups.get(key)!.debits.push(debit);
  }
  for (const group of groups.values()) {
    group.windows = group.limits.filter((l) => l.maxAllowedDebit.limitType === 'DURATION' && group.debits.some((d) => governs(l, d, group.mintAuthority)));
  }
  return [...groups.values()];
}

/**
 * Throws LIMIT_EXCEEDED naming the limit that fired. Holds every wallet debit of a transaction that
 * passes, so a window configured later counts what went out before it; only a check against a window
 * takes the account's lock.
 */
export async function enforceDebitLimits(em: EntityManager, request: WriteRequest, debits: Debit[], now: Date): Promise<void> {
  const groups = await groupsOf(em, debits);
  if (groups.length === 0) return;
  const windowed = groups.filter((g) => g.windows.length > 0);
  for (const group of groups.filter((g) => g.windows.length === 0)) checkDebits(group.limits, group.debits, group.decimals, () => 0n, group.mintAuthority);
  const transactionIdOf = (debit: Debit) => partTransactionId(request.transactionId, debit.part ?? 0);
  const own = [...new Set(debits.map(transactionIdOf))];
  await em.transactional(async (tx) => {
    if (windowed.length) await lockAccounts(tx, windowed.map((g) => g.account.id));
    for (const group of windowed) {
      const recent = new Map<DebitLimit, bigint>();
      for (const limit of group.windows) recent.set(limit, await debitedInWindow(tx, group.account.id, group.asset, limit, own, now, group.mintAuthority));
      checkDebits(group.limits, group.debits, group.decimals, (limit) => recent.get(limit) ?? 0n, group.mintAuthority);
    }
    // A write resting at SIGNED holds its debits too: Submit Transaction may send it (they are given back when it expires).
    await reserveDebits(tx, transactionIdOf, groups.flatMap((g) => g.debits), now);
  });
}
