import { Migration } from '@mikro-orm/migrations';

/**
 * Threshold (dkgKeys) accounts: the public package of each key (never a share: shares live in the
 * players' own stores) and the signatures it gave, so a replayed sign step reuses its signature
 * (FROST signing draws fresh nonces; a second signature over the same message would be a second
 * valid transaction).
 */
export class Migration0022ThresholdKeys extends Migration {
  override name = '0022-threshold-keys';

  override up(): void {
    this.addSql(`create table threshold_key (
      address text primary key,
      organization_id uuid not null,
      request_key text not null unique,
      threshold int not null,
      player_codes text[] not null,
      key_usage text,
      is_default boolean not null default false,
      public_package jsonb not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create table threshold_signature (
      address text not null references threshold_key (address),
      message_hash text not null,
      signature text not null,
      primary key (address, message_hash)
    );`);
  }
}
