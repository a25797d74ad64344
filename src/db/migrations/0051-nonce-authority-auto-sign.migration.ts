import { Migration } from '@mikro-orm/migrations';

/**
 * Whether the service signs with a durable nonce account's authority (docs/durable-nonces.md):
 * false when Create Durable Nonce Accounts looked the authority up with `autoSign: false`; such a
 * nonce is never reserved, exactly as one whose authority's key the service does not hold.
 */
export class Migration0051NonceAuthorityAutoSign extends Migration {
  override name = '0051-nonce-authority-auto-sign';

  override up(): void {
    this.addSql(`alter table durable_nonce_account add column authority_auto_sign boolean not null default true;`);
  }
}
