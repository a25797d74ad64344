import { Migration } from '@mikro-orm/migrations';

/**
 * Bulk reads at scale (docs/bulk-reads.md): every filter and sort field of accounts, positions and
 * transactions gets a btree index behind the tenancy scope (organization, cluster) and before the
 * offchain id that breaks ties, so an equality or range filter starts at its rows and a sort with a
 * limit (or a keyset cursor) reads the first rows of the index in either direction instead of
 * sorting the table. The tenancy scope's own order (tenantOrganizationId, offchainId) is (scope, id).
 *
 * Exceptions, by design: list fields (text[]) share one GIN index per table (contains, any-of, empty);
 * `comments` (free text up to 10,000 characters, beyond a btree entry's 2,704-byte limit) gets a hash
 * index for equality only; CONTAINS (a substring match) and NOT_EQUALS scan what the other conditions
 * leave. The transactions' status and operation, and the positions' instrument and owner, also carry
 * the default sort, since they are filtered far more often than they are sorted by.
 */
const btree: Record<string, (string | string[])[]> = {
  ledger_transaction: [
    'created_at',
    'id',
    'status',
    ['status', 'created_at'],
    'operation',
    ['operation', 'created_at'],
    'signature',
    'success',
    'fee_payer',
    'idempotency_key',
    'slot',
    'txn_timestamp',
  ],
  account: [
    'id',
    'managed',
    'type',
    'code',
    'al_id',
    'account_number',
    'reference_organization_external_id',
    'name',
    'status',
    'lamports_balance',
    'last_transaction_at',
    'creation_transaction_at',
    'was_onchain_already',
    'can_pay_fees',
    'shared_across_tenants',
  ],
  position: [
    'id',
    'creation_transaction_at',
    'status',
    'frozen',
    'associated',
    'address',
    ['owner_address', 'creation_transaction_at'],
    ['owner_account_id', 'creation_transaction_at'],
    ['mint_address', 'creation_transaction_at'],
    ['financial_instrument_id', 'creation_transaction_at'],
    'balance',
    'code',
    'name',
    'last_transaction_at',
  ],
};

const gin: Record<string, string[]> = {
  account: ['global_fee_payer_for_orgs', 'orgs_allowed_to_sign_with_private_key', 'private_key_location', 'sol_debit_api_keys', 'token_debit_api_keys'],
};

/** The index name of a btree on (organization_id, cluster, ...columns, id). */
export const bulkIndexName = (table: string, columns: string[]) => `${table}_bulk_${columns.join('_')}`.slice(0, 63);

export class Migration0041BulkReadIndexes extends Migration {
  override name = '0041-bulk-read-indexes';

  override up(): void {
    for (const [table, entries] of Object.entries(btree)) {
      for (const entry of entries) {
        const columns = [entry].flat();
        const key = columns[0] === 'id' ? ['organization_id', 'cluster', 'id'] : ['organization_id', 'cluster', ...columns, 'id'];
        this.addSql(`create index ${bulkIndexName(table, columns)} on "${table}" (${key.join(', ')});`);
      }
    }
    for (const table of ['account', 'position']) this.addSql(`create index ${table}_bulk_comments on "${table}" using hash (comments);`);
    for (const [table, columns] of Object.entries(gin)) this.addSql(`create index ${table}_bulk_lists on "${table}" using gin (${columns.join(', ')});`);
    // Superseded by the (organization_id, cluster, ...) indexes above.
    this.addSql('drop index if exists account_organization_managed_index;');
    this.addSql('drop index if exists ledger_transaction_organization_created_index;');
  }
}
