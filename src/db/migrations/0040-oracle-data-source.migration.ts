import { Migration } from '@mikro-orm/migrations';

/** Onchain data sources (spec 2.7): one record per feed mint; several per instrument. */
export class Migration0040OracleDataSource extends Migration {
  override name = '0040-oracle-data-source';

  override up(): void {
    this.addSql(`
      create table oracle_data_source (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        cluster text not null,
        defi_protocol text not null,
        address text not null,
        account_id uuid not null references account(id),
        financial_instrument_id uuid not null,
        financial_instrument_address text not null,
        authority_address text not null,
        authority_account_id uuid references account(id),
        kind text not null,
        rating_provider text,
        provider_kind text not null,
        job_definition text not null,
        feed_hash text not null,
        refresh_every_seconds integer,
        latest_value text,
        latest_value_at timestamptz,
        latest_slot text,
        last_refresh_error text,
        last_refresh_error_at timestamptz,
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
      create unique index oracle_data_source_address_unique on oracle_data_source (organization_id, cluster, address);
      create index oracle_data_source_instrument on oracle_data_source (financial_instrument_id, kind, created_at);
    `);
  }
}
