import { Migration } from '@mikro-orm/migrations';

/**
 * One counter per AL ID prefix (spec 2.4): allocating an AL ID bumps its prefix's row in a single
 * upsert, so concurrent allocations for the same type never share a sequence value.
 */
export class Migration0003AlIdSequence extends Migration {
  override name = '0003-al-id-sequence';

  override up(): void {
    this.addSql(`
      create table al_id_sequence (
        prefix text primary key,
        last_value bigint not null
      );
    `);
  }
}
