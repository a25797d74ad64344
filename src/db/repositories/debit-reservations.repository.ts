/**
 * The debits rolling-window limits count (table `debit_reservation`). `reserveDebits` runs in one
 * database transaction holding an advisory lock per debited account: a concurrent check of the same
 * account waits, then sees these rows, so together they cannot overrun a window.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DebitLimit } from '../../domain/debit-limits';
import { governs, windowMs } from '../../domain/debit-limits';
import type { Debit } from '../../domain/write';

export const assetKey = (debit: Debit) => (debit.asset === 'NETWORK_CURRENCY' ? 'NETWORK_CURRENCY' : debit.asset.financialInstrumentId);

type Exec = <T>(sql: string, params: unknown[]) => Promise<T>;
const exec =
  (em: EntityManager): Exec =>
  (sql, params) =>
    em.getConnection().execute(sql, params, 'all', em.getTransactionContext()) as never;

/** Serializes limit checks per account until the surrounding transaction ends (sorted: no deadlocks). */
export async function lockAccounts(em: EntityManager, accountIds: string[]): Promise<void> {
  for (const id of [...new Set(accountIds)].sort()) await exec(em)(`select pg_advisory_xact_lock(hashtextextended(?, 7))`, [id]);
}

/** What `limit`'s window already holds for one account and asset, other than this write's own rows. */
export async function debitedInWindow(
  em: EntityManager,
  accountId: string,
  asset: string,
  limit: DebitLimit,
  ownTransactionIds: string[],
  now: Date,
  mintAuthority?: string | null,
): Promise<bigint> {
  const since = new Date(now.getTime() - windowMs(limit));
  const rows = await exec(em)<{ operation_type: string; destination_class: string | null; amount: string }[]>(
    `select operation_type, destination_class, sum(amount)::text as amount from debit_reservation
      where account_id = ? and asset = ? and created_at > ? and released_at is null and transaction_id not in (?)
      group by operation_type, destination_class`,
    [accountId, asset, since, ownTransactionIds],
  );
  return rows
    .filter((r) =>
      governs(
        limit,
        {
          operationType: r.operation_type as Debit['operationType'],
          destination: r.destination_class ? { address: '', class: r.destination_class as never } : null,
        },
        mintAuthority,
      ),
    )
    .reduce((sum, r) => sum + BigInt(r.amount), 0n);
}

/**
 * Holds a write's debits, each under the id of the transaction that moves it, replacing any an
 * earlier attempt held: one statement (the delete and the insert are atomic together, no
 * begin/commit needed), so a replay holds each debit once.
 */
export async function reserveDebits(
  em: EntityManager,
  writeTransactionId: string,
  transactionIdOf: (debit: Debit) => string,
  debits: Debit[],
  now: Date,
): Promise<void> {
  if (!debits.length) return;
  const ids = [...new Set(debits.map(transactionIdOf))];
  await exec(em)(
    `with replaced as (delete from debit_reservation where transaction_id in (?))
     insert into debit_reservation (write_transaction_id, transaction_id, account_id, asset, operation_type, destination_class, amount, created_at)
     values ${debits.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    [
      ids,
      ...debits.flatMap((d) => [
        writeTransactionId,
        transactionIdOf(d),
        d.accountId,
        assetKey(d),
        d.operationType ?? 'TRANSFER',
        d.destination?.class ?? null,
        d.amount,
        now,
      ]),
    ],
  );
}

/** A transaction that did not move anything gives its debits back to the windows. */
export async function releaseDebits(em: EntityManager, transactionId: string, now: Date): Promise<void> {
  await exec(em)(`update debit_reservation set released_at = ? where transaction_id = ? and released_at is null`, [now, transactionId]);
}

/**
 * An approved write's held debits count in the windows from `at` (the approval), not from when they
 * were held: they move after it, so a window must not let them out before its length has passed since.
 */
export async function countFromApproval(em: EntityManager, writeTransactionId: string, at: Date): Promise<void> {
  await exec(em)(`update debit_reservation set created_at = ? where write_transaction_id = ? and released_at is null`, [at, writeTransactionId]);
}
