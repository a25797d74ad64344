import { Migration } from '@mikro-orm/migrations';

/** Positions: token accounts holding one instrument for one owner. */
export class Migration0006Position extends Migration {
  override name = '0006-position';

  override up(): void {
    this.addSql(`
      create table position (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        cluster text not null,
        address text not null,
        owner_address text not null,
        owner_account_id uuid references account(id),
        financial_instrument_id uuid not null references financial_instrument(id),
        mint_address text not null,
        associated boolean not null,
        status text not null,
        frozen boolean not null default false,
        balance numeric(20, 0) not null default 0,
        comments text,
        code text,
        name text,
        last_transaction_id uuid,
        last_transaction_at timestamptz,
        creation_transaction_id uuid,
        creation_transaction_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index position_address_unique on position (organization_id, cluster, address);
      create index position_owner_index on position (organization_id, owner_address, mint_address);
    `);
  }
}
