import { Migration } from '@mikro-orm/migrations';

/**
 * The shared rate limit's counters (src/api/rate-limits.ts): rate-limiter-flexible's PostgreSQL
 * columns, one row per key and window. UNLOGGED: written on every request, so no WAL; a crash only
 * resets the counters.
 */
export class Migration0050RateLimit extends Migration {
  override name = '0050-rate-limit';

  override up(): void {
    this.addSql(`
      create unlogged table rate_limit (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );
    `);
  }
}
