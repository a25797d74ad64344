import { Migration } from '@mikro-orm/migrations';

/**
 * Approvals for override (docs/approvals.md): one per write whose debit exceeded a limit that names
 * approvers. One per transaction (a replayed limit check finds it); decisions are appended.
 */
export class Migration0019Approval extends Migration {
  override name = '0019-approval';

  override up(): void {
    this.addSql(`create table approval (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null,
      transaction_id uuid not null unique,
      account_id uuid not null,
      required_approvers_count integer not null,
      approvers_for_override text[] not null,
      decisions jsonb not null default '[]',
      rule jsonb not null,
      status text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );`);
    this.addSql(`create index approval_organization_created on approval (organization_id, created_at desc);`);
  }
}
