import { Migration } from '@mikro-orm/migrations';

/** Address lookup tables (spec 2.9): one record per table, its addresses in table order. */
export class Migration0014AddressLookupTable extends Migration {
  override name = '0014-address-lookup-table';

  override up(): void {
    this.addSql(`
      create table address_lookup_table (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        cluster text not null,
        address text not null,
        authority_address text not null,
        authority_account_id uuid references account(id),
        managed boolean not null,
        component_addresses text[] not null default '{}',
        component_account_ids text[] not null default '{}',
        was_onchain_already boolean not null default false,
        frozen boolean not null default false,
        deactivated boolean not null default false,
        deactivation_slot text,
        closed boolean not null default false,
        code text,
        name text,
        comments text,
        last_transaction_id uuid,
        last_transaction_at timestamptz,
        creation_transaction_id uuid,
        creation_transaction_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index address_lookup_table_address_unique on address_lookup_table (organization_id, cluster, address);
      create index address_lookup_table_active on address_lookup_table (organization_id, cluster) where not deactivated and not closed;
    `);
  }
}
