/**
 * Allocation of AL IDs (spec 2.4) from the per-prefix counter table `al_id_sequence`.
 * One atomic upsert per allocation: the row lock it takes serializes concurrent callers, so no two
 * share a value. Called inside a transaction, the prefix's row stays locked until that transaction
 * ends (other allocations of the same prefix wait), and a rollback gives the value back to the sequence.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { alIdPrefix, formatAlId, type FinancialInstrumentType } from '../../domain/al-id';

const ALLOCATE = `insert into al_id_sequence (prefix, last_value) values (?, 1)
  on conflict (prefix) do update set last_value = al_id_sequence.last_value + 1
  returning last_value`;

/** The next AL ID for `type`, e.g. `ALFICBD00000001` for the first corporate bond. */
export async function allocateAlId(em: EntityManager, type: FinancialInstrumentType): Promise<string> {
  const rows = await em.getConnection().execute<{ last_value: string | number | bigint }[]>(ALLOCATE, [alIdPrefix(type)], 'all', em.getTransactionContext());
  const row = rows[0];
  if (!row) throw new Error(`al_id_sequence upsert for ${type} returned no row`);
  return formatAlId(type, BigInt(row.last_value));
}
