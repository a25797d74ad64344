import { Migration } from '@mikro-orm/migrations';

/** What a write asked for (a digest of its itemData and config), so a reused idempotency key with another request is told apart. */
export class Migration0010RequestDigest extends Migration {
  override name = '0010-request-digest';

  override up(): void {
    this.addSql(`alter table ledger_transaction add column request_digest text;`);
  }
}
