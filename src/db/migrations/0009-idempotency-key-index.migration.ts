import { Migration } from '@mikro-orm/migrations';

/** An idempotency key names one write per organization, whatever its operation: looked up by key alone. */
export class Migration0009IdempotencyKeyIndex extends Migration {
  override name = '0009-idempotency-key-index';

  override up(): void {
    this.addSql(`create index ledger_transaction_idempotency_key on ledger_transaction (organization_id, idempotency_key) where idempotency_key is not null;`);
  }
}
