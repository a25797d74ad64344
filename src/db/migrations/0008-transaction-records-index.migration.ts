import { Migration } from '@mikro-orm/migrations';

/**
 * Finds the transactions of one record (Fetch Position History, Fetch Transactions by
 * accountOffchainId) without scanning the organization's whole history: `account_ids @> array[id]`.
 */
export class Migration0008TransactionRecordsIndex extends Migration {
  override name = '0008-transaction-records-index';

  override up(): void {
    this.addSql('create index ledger_transaction_account_ids_index on ledger_transaction using gin (account_ids);');
  }
}
