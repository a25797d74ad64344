import { Migration } from '@mikro-orm/migrations';

/** What a transaction's compute budget was built with (svmTransactionConfig.computeUnitConfig), shown by Fetch Transaction Details. */
export class Migration0012ComputeBudget extends Migration {
  override name = '0012-compute-budget';

  override up(): void {
    this.addSql(`alter table ledger_transaction add column compute_budget jsonb;`);
  }
}
