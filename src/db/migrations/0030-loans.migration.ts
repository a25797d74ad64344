import { Migration } from '@mikro-orm/migrations';

/** Loan strategies (lender vaults) and loans (docs/loans.md). */
export class Migration0030Loans extends Migration {
  override name = '0030-loans';

  override up(): void {
    this.addSql(`create table loan_strategy (
      id uuid primary key,
      organization_id uuid not null,
      cluster text not null,
      vault_address text not null,
      lender_address text not null,
      lender_account_id uuid not null,
      principal_instrument_id uuid not null,
      principal_mint text not null,
      collateral jsonb not null,
      collateral_mints text[] not null,
      originations_enabled boolean not null,
      origination_cap numeric(20,0),
      liquidity_buffer numeric(20,0),
      rollover boolean not null,
      creation_transaction_id uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (organization_id, cluster, vault_address)
    );`);
    this.addSql(`create table loan (
      id uuid primary key,
      organization_id uuid not null,
      cluster text not null,
      strategy_id uuid not null references loan_strategy (id),
      strategy_address text not null,
      escrow_address text not null,
      escrow_account_id uuid not null,
      borrower_address text not null,
      borrower_account_id uuid not null,
      lender_address text not null,
      lender_account_id uuid not null,
      principal_instrument_id uuid not null,
      principal_mint text not null,
      principal_decimals integer not null,
      pledged jsonb not null,
      collateral_mints text[] not null,
      collateral_instrument_ids text[] not null,
      principal_due numeric(20,0) not null,
      principal_repaid numeric(20,0) not null,
      interest_outstanding numeric(20,0) not null,
      apy integer not null,
      loan_to_value_ratio integer not null,
      liquidation_ratio integer not null,
      duration_index integer not null,
      duration_days integer not null,
      term_start_at timestamptz not null,
      maturity_at timestamptz not null,
      last_interest_update_time timestamptz not null,
      status text not null,
      creation_transaction_id uuid,
      last_transaction_id uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (organization_id, cluster, escrow_address)
    );`);
    this.addSql(`create index loan_strategy_loans on loan (strategy_id, status);`);
  }
}
