import { Migration } from '@mikro-orm/migrations';

/**
 * A cancelled write was never sent, so its message may be built again by a later write: with a
 * durable nonce it is the same bytes (same nonce, same instructions), which the one-message-per-record
 * index refused. Only records that may still reach the network hold their message exclusively.
 */
export class Migration0018CancelledMessage extends Migration {
  override name = '0018-cancelled-message';

  override up(): void {
    this.addSql(`drop index ledger_transaction_message;`);
    this.addSql(
      `create unique index ledger_transaction_message on ledger_transaction (md5(serialized_message)) where serialized_message is not null and status <> 'CANCELLED';`,
    );
  }
}
