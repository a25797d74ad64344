import { Migration } from '@mikro-orm/migrations';

/**
 * Durable nonce accounts (spec 2.8) and their reservations: a transaction holds at most one nonce
 * (unique in_use_by_transaction_id), and a free one is found by organization and cluster.
 */
export class Migration0013DurableNonceAccount extends Migration {
  override name = '0013-durable-nonce-account';

  override up(): void {
    this.addSql(`create table durable_nonce_account (
      id uuid primary key,
      organization_id uuid not null,
      cluster text not null,
      address text not null,
      code text,
      authority_address text not null,
      authority_account_id uuid,
      nonce_hash text,
      is_in_use boolean not null default false,
      in_use_by_transaction_id uuid unique,
      in_use_at timestamptz,
      created_at timestamptz not null default now(),
      unique (organization_id, cluster, address),
      check (is_in_use = (in_use_by_transaction_id is not null))
    );`);
    this.addSql(`create index durable_nonce_account_free on durable_nonce_account (organization_id, cluster) where not is_in_use;`);
  }
}
