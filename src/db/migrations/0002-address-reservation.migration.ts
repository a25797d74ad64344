import { Migration } from '@mikro-orm/migrations';

/**
 * A live transaction that creates the record of an address reserves that address, so two
 * concurrent creates of the same address cannot both reach the network: the second build is refused.
 */
export class Migration0002AddressReservation extends Migration {
  override name = '0002-address-reservation';

  override up(): void {
    this.addSql(`
      alter table ledger_transaction add column reserved_address text;
      create unique index ledger_transaction_reserved_address_unique on ledger_transaction (organization_id, cluster, reserved_address)
        where reserved_address is not null and status not in ('FAILED', 'REJECTED', 'EXPIRED', 'CANCELLED');
    `);
  }
}
