/**
 * One movement of a loan at a time: the write that moves a loan holds it from its lookup to its
 * record (or refusal), keyed by its transaction record's id, so a replayed lookup finds its own hold
 * and a second write on the same loan is refused while the first runs (two Repay All both paying).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Holds the loan for this transaction; false when another write holds it. Idempotent per transaction. */
export async function holdLoan(em: EntityManager, loanId: string, transactionId: string): Promise<boolean> {
  const held = await em
    .getConnection()
    .execute(
      'update loan set in_use_by_transaction_id = ? where id = ? and (in_use_by_transaction_id is null or in_use_by_transaction_id = ?) returning id',
      [transactionId, loanId, transactionId],
      'all',
      em.getTransactionContext(),
    );
  return held.length > 0;
}

/** Lets go of whatever loan this transaction holds (it landed, failed, expired, was refused or cancelled). */
export async function releaseLoan(em: EntityManager, transactionId: string): Promise<void> {
  await em
    .getConnection()
    .execute('update loan set in_use_by_transaction_id = null where in_use_by_transaction_id = ?', [transactionId], 'all', em.getTransactionContext());
}
