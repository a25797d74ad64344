import { Migration } from '@mikro-orm/migrations';

/**
 * Debits held against rolling-window limits (spec 8): written by the limit-check step under a lock
 * per debited account, so concurrent writes see each other; released when the transaction fails.
 */
export class Migration0007DebitReservation extends Migration {
  override name = '0007-debit-reservation';

  override up(): void {
    this.addSql(`
      create table debit_reservation (
        id bigserial primary key,
        transaction_id uuid not null,
        account_id uuid not null references account(id),
        asset text not null,
        operation_type text not null,
        destination_class text,
        amount numeric(39, 0) not null,
        created_at timestamptz not null,
        released_at timestamptz
      );
      create index debit_reservation_window on debit_reservation (account_id, asset, created_at) where released_at is null;
      create index debit_reservation_transaction on debit_reservation (transaction_id);
    `);
  }
}
