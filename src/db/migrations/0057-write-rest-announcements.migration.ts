import { Migration } from '@mikro-orm/migrations';

/**
 * A write that comes to rest (waiting for approval or signatures, or SIGNED: resting when it was
 * asked not to submit) is announced on WRITE_REST_CHANNEL (src/client/write-rests.ts) as
 * `<transaction id> <status>`, delivered at commit to every API process listening, which answers the
 * write's waiting request from it instead of polling the record. The WHEN clauses keep every other
 * insert and update free of the trigger's function call.
 */
export class Migration0057WriteRestAnnouncements extends Migration {
  override name = '0057-write-rest-announcements';

  override up(): void {
    this.addSql(`create or replace function announce_write_rest() returns trigger language plpgsql as $$
    begin
      perform pg_notify('ledger_write_rests', new.id::text || ' ' || new.status);
      return null;
    end $$;`);
    this.addSql(`create trigger ledger_transaction_rest_insert after insert on ledger_transaction for each row
      when (new.status in ('AWAITING_APPROVAL', 'AWAITING_SIGNATURES', 'SIGNED'))
      execute function announce_write_rest();`);
    this.addSql(`create trigger ledger_transaction_rest_update after update of status on ledger_transaction for each row
      when (new.status in ('AWAITING_APPROVAL', 'AWAITING_SIGNATURES', 'SIGNED') and new.status is distinct from old.status)
      execute function announce_write_rest();`);
  }
}
