import { Migration } from '@mikro-orm/migrations';

/**
 * The write each held debit belongs to (its parts' rows too), so an approval can count the write's
 * debits in the windows from the moment it was approved (docs/approvals.md).
 */
export class Migration0024DebitReservationWrite extends Migration {
  override name = '0024-debit-reservation-write';

  override up(): void {
    this.addSql(`alter table debit_reservation add column write_transaction_id uuid;`);
    this.addSql(`create index debit_reservation_write on debit_reservation (write_transaction_id) where released_at is null;`);
  }
}
