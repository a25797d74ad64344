import { Migration } from '@mikro-orm/migrations';

/** The signatures a transaction's message has so far (null where a signer has not signed yet): a write waiting in AWAITING_SIGNATURES keeps them. */
export class Migration0015Signatures extends Migration {
  override name = '0015-signatures';

  override up(): void {
    this.addSql(`alter table ledger_transaction add column signatures jsonb;`);
  }
}
