import { Migration } from '@mikro-orm/migrations';

/** Financial instruments (token mints) beside their mint account records. */
export class Migration0004FinancialInstrument extends Migration {
  override name = '0004-financial-instrument';

  override up(): void {
    this.addSql(`
      create table financial_instrument (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        cluster text not null,
        mint_account_id uuid not null references account(id),
        mint_address text not null,
        version text not null,
        al_id text not null,
        financial_instrument_type text,
        decimals integer not null,
        symbol text,
        name text,
        uri text,
        onchain_custom_metadata jsonb not null default '{}',
        offchain_data jsonb not null default '{}',
        extensions text[] not null default '{}',
        authorities jsonb not null default '{}',
        default_position_state text,
        paused boolean,
        scaled_ui_amount_multiplier text,
        status text not null,
        managed boolean not null,
        was_onchain_already boolean not null default false,
        shared_across_tenants boolean not null default false,
        comments text,
        offchain_reference_name text,
        last_transaction_id uuid,
        last_transaction_at timestamptz,
        creation_transaction_id uuid,
        creation_transaction_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      -- AL IDs are unique across the service; a mint is onboarded once per tenant and cluster.
      create unique index financial_instrument_al_id_unique on financial_instrument (al_id);
      create unique index financial_instrument_mint_unique on financial_instrument (organization_id, cluster, mint_address);
      create index financial_instrument_organization_index on financial_instrument (organization_id, cluster, id);
    `);
  }
}
