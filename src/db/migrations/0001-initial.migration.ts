import { Migration } from '@mikro-orm/migrations';

/** Organizations, API keys, custody keys, accounts and transaction records. */
export class Migration0001Initial extends Migration {
  override name = '0001-initial';

  override up(): void {
    this.addSql(`
      create table organization (
        id uuid primary key,
        external_id text not null unique,
        name text,
        webhook_signing_secret text not null,
        created_at timestamptz not null
      );
      create table api_key (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        key_hash text not null unique,
        key_prefix text not null,
        roles text[] not null,
        created_at timestamptz not null,
        revoked_at timestamptz
      );
      create index api_key_organization_id_index on api_key (organization_id);
      create table custody_key (
        address text primary key,
        organization_id uuid not null references organization(id),
        location text not null,
        sealed_secret text not null,
        request_key text unique,
        created_at timestamptz not null
      );
      create index custody_key_organization_id_index on custody_key (organization_id);
      create table account (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        cluster text not null,
        address text not null,
        type text not null,
        code text,
        al_id text,
        account_number text,
        name text,
        reference_organization_external_id text,
        managed boolean not null,
        status text not null,
        private_key_location text[] not null default '{}',
        is_derived boolean not null default false,
        is_genesis boolean not null default false,
        comments text,
        subscribe_to_network_events boolean not null default false,
        shared_across_tenants boolean not null default false,
        was_onchain_already boolean not null default false,
        can_pay_fees boolean not null default false,
        global_fee_payer_for_orgs text[] not null default '{}',
        orgs_allowed_to_sign_with_private_key text[] not null default '{}',
        sol_debit_api_keys text[] not null default '{}',
        token_debit_api_keys text[] not null default '{}',
        network_currency_debit_limits jsonb,
        token_debit_limits jsonb,
        missing_signature_webhooks jsonb not null default '[]',
        pre_transaction_submit_webhooks jsonb not null default '[]',
        post_transaction_submit_webhooks jsonb not null default '[]',
        domain text,
        data_length integer not null default 0,
        token_version text,
        lamports_balance bigint not null default 0,
        token_decimals integer not null default 9,
        last_transaction_id uuid,
        last_transaction_signature text,
        last_transaction_at timestamptz,
        creation_transaction_id uuid,
        creation_transaction_signature text,
        creation_transaction_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      -- One record per address, cluster and tenant: a second onboarding is a 409.
      create unique index account_address_unique on account (organization_id, cluster, address);
      create index account_organization_managed_index on account (organization_id, managed desc, id);
      create index account_address_index on account (address);
      create table ledger_transaction (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        operation text not null,
        cluster text not null,
        status text not null,
        status_history jsonb not null default '[]',
        idempotency_key text,
        workflow_id text not null,
        signature text,
        serialized_message text,
        fee_payer text,
        signers text[] not null default '{}',
        last_valid_block_height bigint,
        success boolean,
        error_code text,
        error_message text,
        slot bigint,
        fee bigint,
        confirmations_count integer,
        txn_timestamp timestamptz,
        account_ids text[] not null default '{}',
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index ledger_transaction_idempotency_unique on ledger_transaction (organization_id, operation, idempotency_key);
      create index ledger_transaction_signature_index on ledger_transaction (signature);
      create index ledger_transaction_organization_created_index on ledger_transaction (organization_id, created_at desc, id);
    `);
  }
}
