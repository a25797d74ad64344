import { Migration } from '@mikro-orm/migrations';

/**
 * Reconciliation's drift findings (docs/reconciliation.md): a difference between a record's balance
 * and the chain that no recorded transaction explains. Values are exact integers (lamports or token
 * base units; u64 fits numeric(20,0), a difference numeric(21,0)). At most one OPEN finding per
 * record, so a pass repeated (or two passes at once) never lists the same drift twice.
 */
export class Migration0054DriftFinding extends Migration {
  override name = '0054-drift-finding';

  override up(): void {
    this.addSql(`create table drift_finding (
      id uuid primary key,
      organization_id uuid not null,
      cluster text not null,
      kind text not null check (kind in ('account', 'position')),
      record_id uuid not null,
      address text not null,
      subscribed boolean not null,
      recorded_value numeric(20,0) not null,
      chain_value numeric(20,0) not null,
      difference numeric(21,0) not null,
      slot bigint not null,
      status text not null check (status in ('OPEN', 'REPAIRED', 'RESOLVED')),
      found_at timestamptz not null,
      last_seen_at timestamptz not null,
      repaired_at timestamptz null,
      repair_signatures text[] not null default '{}',
      resolved_at timestamptz null
    );`);
    this.addSql(`create unique index drift_finding_open_record on drift_finding (organization_id, cluster, kind, record_id) where status = 'OPEN';`);
    this.addSql(`create index drift_finding_cluster_status on drift_finding (cluster, status, found_at);`);
    // The writes a pass asks about (in flight, or landed and not final yet): few at any time, found without a scan of every record.
    this.addSql(
      `create index ledger_transaction_unsettled on ledger_transaction (cluster, slot)
         where serialized_message is not null and status in ('BUILT', 'AWAITING_SIGNATURES', 'SIGNED', 'SUBMITTED', 'CONFIRMED');`,
    );
  }
}
