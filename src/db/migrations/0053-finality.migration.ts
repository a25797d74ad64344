import { Migration } from '@mikro-orm/migrations';

/**
 * Following landed transactions to finality (docs/finality.md): `balance_moves` keeps what the
 * record step moved (filled in memory, written with the record's own update), so a transaction that
 * leaves the chain before finalization has exactly those moves undone; the partial index holds only
 * the records still followed (landed, not yet final), so each follower tick reads them directly.
 */
export class Migration0053Finality extends Migration {
  override name = '0053-finality';

  override up(): void {
    this.addSql(`alter table ledger_transaction add column balance_moves jsonb null;`);
    this.addSql(
      `create index ledger_transaction_followed_idx on ledger_transaction (cluster, created_at) where status in ('SUBMITTED', 'CONFIRMED') and signature is not null;`,
    );
  }
}
