import { Migration } from '@mikro-orm/migrations';

/**
 * What a replayed write step reads back (docs/write-engine.md, "Exactly once"): the lookup's resolution and the
 * message's lifetime; the parts of a write that needs several network transactions; one message per record.
 */
export class Migration0011WriteEngine extends Migration {
  override name = '0011-write-engine';

  override up(): void {
    this.addSql(
      `alter table ledger_transaction add column resolved jsonb, add column lifetime jsonb, add column write_transaction_id uuid, add column part integer not null default 0;`,
    );
    this.addSql(`create index ledger_transaction_write on ledger_transaction (write_transaction_id, part) where write_transaction_id is not null;`);
    // Two writes must never hold the same message: identical bytes are one transaction to the
    // network, so the second write would be answered with the first one's landing.
    this.addSql(`create unique index ledger_transaction_message on ledger_transaction (md5(serialized_message)) where serialized_message is not null;`);
  }
}
