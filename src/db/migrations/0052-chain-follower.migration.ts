import { Migration } from '@mikro-orm/migrations';

/**
 * The chain follower (docs/chain-follower.md):
 * - `ledger_transaction.origin`: SERVICE (the service's own writes) or NETWORK (a network transaction
 *   that touched a subscribed account, recorded by the follower), unique per organization, cluster
 *   and signature among NETWORK records so a replayed batch records nothing twice;
 * - `chain_cursor`: per cluster, the last slot whose blocks are recorded (advanced in the same
 *   database transaction as the records), the confirmed tip last seen, and the slot up to which the
 *   records' webhook deliveries are started (a crash between the two starts them on the next call);
 * - `account.network_events_from_slot`: where following an account begins. A trigger sets it when
 *   `subscribe_to_network_events` turns on (Create Account, Update Account, any path) to the slot after
 *   the tip the follower last saw, and clears it when the flag turns off, so turning the flag on
 *   follows from the current slot and never reaches back into the account's history.
 */
export class Migration0052ChainFollower extends Migration {
  override name = '0052-chain-follower';

  override up(): void {
    this.addSql(`alter table ledger_transaction add column origin text not null default 'SERVICE';`);
    this.addSql(
      `create unique index ledger_transaction_network_signature_unique on ledger_transaction (organization_id, cluster, signature) where origin = 'NETWORK';`,
    );
    this.addSql(`create index ledger_transaction_cluster_signature_idx on ledger_transaction (cluster, signature) where signature is not null;`);
    this.addSql(`create index ledger_transaction_origin_idx on ledger_transaction (organization_id, origin);`);
    this.addSql(`create table chain_cursor (
      cluster text primary key,
      slot bigint not null,
      tip_slot bigint not null,
      delivered_slot bigint not null,
      updated_at timestamptz not null
    );`);
    this.addSql(`alter table account add column network_events_from_slot bigint null;`);
    this.addSql(`create index account_subscribed_idx on account (cluster) where subscribe_to_network_events;`);
    this.addSql(`create function account_network_events_from_slot() returns trigger language plpgsql as $$
    begin
      if new.subscribe_to_network_events and (tg_op = 'INSERT' or not old.subscribe_to_network_events) then
        new.network_events_from_slot := (select tip_slot + 1 from chain_cursor where cluster = new.cluster);
      elsif not new.subscribe_to_network_events then
        new.network_events_from_slot := null;
      end if;
      return new;
    end $$;`);
    this.addSql(`create trigger account_network_events_from_slot before insert or update of subscribe_to_network_events on account
      for each row execute function account_network_events_from_slot();`);
  }
}
