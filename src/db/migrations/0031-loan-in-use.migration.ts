import { Migration } from '@mikro-orm/migrations';

/** The write that holds a loan: its movements (repay, swap, refinance, close, liquidation) go one at a time. */
export class Migration0031LoanInUse extends Migration {
  override name = '0031-loan-in-use';

  override up(): void {
    this.addSql('alter table loan add column in_use_by_transaction_id uuid');
    this.addSql('create index loan_in_use_by_transaction_id on loan (in_use_by_transaction_id) where in_use_by_transaction_id is not null');
  }
}
