/**
 * Durable nonce reservations (table `durable_nonce_account`): a transaction record holds at most one
 * nonce account and a nonce account at most one transaction. Reserving takes a free row with
 * `FOR UPDATE SKIP LOCKED`, so racing builds never wait for each other nor get the same one.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DurableNonceAccount } from '../entities';

type Exec = <T>(sql: string, params: unknown[]) => Promise<T>;
const exec =
  (em: EntityManager): Exec =>
  (sql, params) =>
    em.getConnection().execute(sql, params, 'all', em.getTransactionContext()) as never;

export interface NonceReservation {
  id: string;
  address: string;
  authorityAddress: string;
}

export interface NonceScope {
  organizationId: string;
  organizationExternalId: string;
  cluster: string;
}

const columns = `id, address, authority_address as "authorityAddress"`;

/**
 * The nonce account reserved by `transactionId` (a replayed build finds its own), else a free one of
 * the organization on the cluster whose authority is a managed, active account the organization may
 * sign with (and was not looked up with `autoSign: false`), now reserved by it; null when none is. Idempotent per transaction.
 */
export async function reserveNonceAccount(em: EntityManager, scope: NonceScope, transactionId: string, at: Date): Promise<NonceReservation | null> {
  const [own] = await exec(em)<NonceReservation[]>(`select ${columns} from durable_nonce_account where in_use_by_transaction_id = ?`, [transactionId]);
  if (own) return own;
  const [taken] = await exec(em)<NonceReservation[]>(
    `update durable_nonce_account set is_in_use = true, in_use_by_transaction_id = ?, in_use_at = ?
      where id = (select n.id from durable_nonce_account n join account a on a.id = n.authority_account_id
                  where n.organization_id = ? and n.cluster = ? and not n.is_in_use and n.authority_auto_sign
                    and a.managed and a.status = 'ACTIVE' and (a.organization_id = ? or ? = any(a.orgs_allowed_to_sign_with_private_key))
                  order by n.created_at, n.id limit 1 for update of n skip locked)
      returning ${columns}`,
    [transactionId, at, scope.organizationId, scope.cluster, scope.organizationId, scope.organizationExternalId],
  );
  return taken ?? null;
}

/** How many nonce accounts of the organization on the cluster are free, whatever their authority. */
export async function countFreeNonceAccounts(em: EntityManager, scope: NonceScope): Promise<number> {
  const [row] = await exec(em)<{ n: string }[]>(
    `select count(*)::text as n from durable_nonce_account where organization_id = ? and cluster = ? and not is_in_use`,
    [scope.organizationId, scope.cluster],
  );
  return Number(row?.n ?? 0);
}

/** Gives back the nonce account `transactionId` holds, if any. Idempotent. */
export async function releaseNonceAccount(em: EntityManager, transactionId: string): Promise<void> {
  await exec(em)(`update durable_nonce_account set is_in_use = false, in_use_by_transaction_id = null, in_use_at = null where in_use_by_transaction_id = ?`, [
    transactionId,
  ]);
}

/** Keeps the nonce value last read from the chain (bulk filters and sorts on it). */
export async function storeNonceHash(em: EntityManager, address: string, cluster: string, nonceHash: string): Promise<void> {
  await exec(em)(`update durable_nonce_account set nonce_hash = ? where address = ? and cluster = ?`, [nonceHash, address, cluster]);
}

export { DurableNonceAccount };
