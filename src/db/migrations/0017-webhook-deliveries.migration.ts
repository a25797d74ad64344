import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks as the spec means them: every delivery attempt of every webhook (Fetch / replay webhook
 * deliveries), and the pre-submit failures that did not stop a transaction, shown on its record.
 */
export class Migration0017WebhookDeliveries extends Migration {
  override name = '0017-webhook-deliveries';

  override up(): void {
    this.addSql(`alter table ledger_transaction add column webhook_failures jsonb;`);
    this.addSql(`create table webhook_delivery (
      id uuid primary key,
      organization_id uuid not null,
      transaction_id uuid not null,
      event_id text not null,
      event_type text not null,
      webhook_name text,
      endpoint_url text not null,
      attempt integer not null,
      at timestamptz not null,
      http_status integer,
      error text
    );`);
    this.addSql(`create index webhook_delivery_transaction_idx on webhook_delivery (organization_id, transaction_id, at);`);
    this.addSql(`create index webhook_delivery_event_idx on webhook_delivery (organization_id, event_id);`);
  }
}
