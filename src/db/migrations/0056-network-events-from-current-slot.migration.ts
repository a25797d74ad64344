import { Migration } from '@mikro-orm/migrations';

/**
 * Turning `subscribe_to_network_events` on follows from the network's current slot (API.md section 9),
 * not from the slot after the tip the follower last saw (0052), which lags the chain by up to a
 * follower step, or by an outage: transactions made before the flag was turned on were recorded.
 * The write that turns it on reads the slot and sets `ledger.network_events_from_slot` for its
 * transaction (src/follower/network-events-from-slot.ts); a path that does not keeps 0052's fallback.
 * An account already following keeps its slot whatever an update sends.
 */
export class Migration0056NetworkEventsFromCurrentSlot extends Migration {
  override name = '0056-network-events-from-current-slot';

  override up(): void {
    this.addSql(`create or replace function account_network_events_from_slot() returns trigger language plpgsql as $$
    begin
      if new.subscribe_to_network_events and (tg_op = 'INSERT' or not old.subscribe_to_network_events) then
        new.network_events_from_slot := coalesce(
          nullif(current_setting('ledger.network_events_from_slot', true), '')::bigint,
          (select tip_slot + 1 from chain_cursor where cluster = new.cluster));
      elsif new.subscribe_to_network_events then
        new.network_events_from_slot := old.network_events_from_slot;
      else
        new.network_events_from_slot := null;
      end if;
      return new;
    end $$;`);
  }
}
