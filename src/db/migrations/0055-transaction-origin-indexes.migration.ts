import { Migration } from '@mikro-orm/migrations';
import { bulkIndexName } from './0041-bulk-read-indexes.migration';

/**
 * `origin` (0052) is a filter and sort field of Fetch Transactions like `status`, so it gets the same
 * two bulk-read indexes behind the tenancy scope (docs/bulk-reads.md): `(…, origin, id)` for a sort by
 * it and `(…, origin, created_at, id)` for the common filter with the default sort (NETWORK records
 * are few beside the service's own). They supersede 0052's `(organization_id, origin)`. 0052's
 * `(cluster, signature)` goes too: 0001's `(signature)` serves the follower's lookup of the service's
 * own signatures, and each index is maintained on every write's insert and updates.
 */
export class Migration0055TransactionOriginIndexes extends Migration {
  override name = '0055-transaction-origin-indexes';

  override up(): void {
    for (const columns of [['origin'], ['origin', 'created_at']]) {
      this.addSql(`create index ${bulkIndexName('ledger_transaction', columns)} on ledger_transaction (organization_id, cluster, ${columns.join(', ')}, id);`);
    }
    this.addSql('drop index if exists ledger_transaction_origin_idx;');
    this.addSql('drop index if exists ledger_transaction_cluster_signature_idx;');
  }
}
