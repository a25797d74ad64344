/**
 * Fills one organization's records for bulk-read measurements in a few statements of SQL
 * (generate_series, never through the API, so a million rows take seconds, not hours): accounts,
 * financial instruments, positions (one per account, spread over the instruments) and transaction
 * records (each touching two of the accounts). Values are spread as a real ledger spreads them:
 * most transactions FINALIZED, a few operations dominant, timestamps at millisecond precision as the
 * service writes them, some NULLs where a field is nullable. Ends with ANALYZE so the planner knows.
 *
 * Ids are derived from the organization and the row number (md5 → uuid), so a second fill of the
 * same organization collides instead of doubling the data.
 */
import type { Client } from 'pg';

export interface ReadDataSize {
  accounts: number;
  positions: number;
  transactions: number;
  /** Financial instruments the positions hold (default 100). */
  instruments?: number;
}

export interface ReadData {
  /** Offchain ids of the first accounts (for filters). */
  accountIds: string[];
  /** Offchain ids and mint addresses of the instruments. */
  instruments: { id: string; mintAddress: string }[];
}

/** Inserts the rows; returns a few ids to filter by. Not idempotent (a second run collides on the ids). */
export async function fillReadData(pg: Client, organizationId: string, cluster: string, size: ReadDataSize): Promise<ReadData> {
  const instruments = size.instruments ?? 100;
  const org = organizationId;
  // uuid of (kind, n) for this organization; text addresses of the same shape as the network's (base58-ish length).
  const id = (kind: string, n: string) => `md5('${org}:${kind}:' || ${n})::uuid`;
  const address = (kind: string, n: string) =>
    `'${kind.slice(0, 2)}' || substr(md5('${org}:${kind}:addr:' || ${n}), 1, 30) || substr(md5('${org}:${kind}:' || ${n} || ':b'), 1, 12)`;
  const at = (n: string, step: string) => `(timestamptz '2026-01-01T00:00:00Z' + (${n}) * interval '${step}')`;
  await pg.query('begin');
  try {
    // Building an index once over all rows is many times faster than keeping ~40 indexes up to date row
    // by row: set the tables' secondary indexes aside and build them again after the inserts.
    const indexes = (
      await pg.query<{ name: string; definition: string }>(
        `select i.indexname as name, i.indexdef as definition from pg_indexes i
         where i.schemaname = current_schema() and i.tablename in ('account', 'financial_instrument', 'position', 'ledger_transaction')
           and not exists (select 1 from pg_constraint c where c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)`,
      )
    ).rows;
    for (const index of indexes) await pg.query(`drop index "${index.name}"`);
    await pg.query(
      `insert into account (id, organization_id, cluster, address, type, code, al_id, account_number, name, reference_organization_external_id,
         managed, status, private_key_location, comments, was_onchain_already, can_pay_fees, shared_across_tenants, global_fee_payer_for_orgs,
         orgs_allowed_to_sign_with_private_key, sol_debit_api_keys, token_debit_api_keys, lamports_balance, last_transaction_at, creation_transaction_at, created_at, updated_at)
       select ${id('account', 'n')}, $1, $2, ${address('account', 'n')},
         (array['WALLET','WALLET','WALLET','ASSETS_WALLET','CURRENCIES_WALLET','DEFI_SETTLEMENT_WALLET','ASSET_TOKEN_ACCOUNT','FUNDS_TOKEN_ACCOUNT'])[1 + n % 8],
         'A-' || n, case when n % 4 = 0 then null else 'AL' || lpad(n::text, 10, '0') end, 'ACC-' || (n % 50000), 'Account ' || n,
         case when n % 10 = 0 then null else 'EXT-' || (n % 1000) end,
         n % 3 <> 0, case when n % 50 = 0 then 'CLOSED' else 'ACTIVE' end,
         case when n % 3 <> 0 then array['DATABASE'] else '{}'::text[] end, case when n % 7 = 0 then 'note ' || n else null end,
         n % 5 = 0, n % 20 = 0, n % 100 = 0, case when n % 1000 = 0 then array['org-' || (n % 7)] else '{}'::text[] end,
         case when n % 700 = 0 then array['org-' || (n % 5)] else '{}'::text[] end,
         case when n % 500 = 0 then array['key-' || (n % 11)] else '{}'::text[] end,
         case when n % 600 = 0 then array['key-' || (n % 13)] else '{}'::text[] end,
         (n * 7919) % 100000000000, case when n % 9 = 0 then null else ${at('n', '17 second')} end, ${at('n', '3 second')}, ${at('n', '3 second')}, ${at('n', '3 second')}
       from generate_series(0::bigint, $3::bigint - 1) n`,
      [org, cluster, size.accounts],
    );
    await pg.query(
      `insert into financial_instrument (id, organization_id, cluster, mint_account_id, mint_address, version, al_id, decimals, status, managed, created_at, updated_at)
       select ${id('instrument', 'n')}, $1, $2, ${id('account', 'n')}, ${address('instrument', 'n')}, case when n % 2 = 0 then 'SPL' else 'TOKEN_2022' end,
         'FI' || lpad(n::text, 10, '0'), 6, 'ACTIVE', true, ${at('n', '1 hour')}, ${at('n', '1 hour')}
       from generate_series(0::bigint, $3::bigint - 1) n`,
      [org, cluster, instruments],
    );
    await pg.query(
      `insert into "position" (id, organization_id, cluster, address, owner_address, owner_account_id, financial_instrument_id, mint_address,
         associated, status, frozen, balance, code, name, comments, last_transaction_at, creation_transaction_at, created_at, updated_at)
       select ${id('position', 'n')}, $1, $2, ${address('position', 'n')}, ${address('account', 'n % $4')}, ${id('account', 'n % $4')},
         ${id('instrument', 'n % $5')}, ${address('instrument', 'n % $5')}, n % 10 <> 0, case when n % 40 = 0 then 'INACTIVE' else 'ACTIVE' end,
         n % 25 = 0, (n * 104729) % 1000000000000, 'P-' || n, case when n % 3 = 0 then null else 'Position ' || n end, case when n % 13 = 0 then 'memo ' || n end,
         case when n % 11 = 0 then null else ${at('n', '13 second')} end, ${at('n', '3 second')}, ${at('n', '3 second')}, ${at('n', '3 second')}
       from generate_series(0::bigint, $3::bigint - 1) n`,
      [org, cluster, size.positions, size.accounts, instruments],
    );
    // Two transactions per 10 ms share a created_at (ties the offchain id breaks).
    await pg.query(
      `insert into ledger_transaction (id, organization_id, operation, cluster, status, workflow_id, signature, fee_payer, success, slot, fee,
         txn_timestamp, account_ids, idempotency_key, created_at, updated_at)
       select ${id('transaction', 'n')}, $1,
         (array['TRANSFER','TRANSFER','TRANSFER','TRANSFER','MINT','MINT','BURN','TRADE','CREATE_ACCOUNT','INITIALIZE_POSITION'])[1 + n % 10],
         $2, s.status, 'bench-' || n,
         case when s.status in ('CONFIRMED','FINALIZED','FAILED') then substr(md5('sig' || n), 1, 32) || substr(md5('sig2' || n), 1, 32) || substr(md5('sig3' || n), 1, 24) end,
         ${address('account', '(n % 100)')}, case when s.status in ('CONFIRMED','FINALIZED') then true when s.status = 'FAILED' then false end,
         case when s.status in ('CONFIRMED','FINALIZED','FAILED') then 1000 + n end, 5000,
         case when s.status in ('CONFIRMED','FINALIZED','FAILED') then ${at('n / 2', '10 millisecond')} end,
         array[(${id('account', '(n % $4)')})::text, (${id('account', '((n * 7) % $4)')})::text],
         case when n % 3 = 0 then 'idem-' || n end, ${at('n / 2', '10 millisecond')}, ${at('n / 2', '10 millisecond')}
       from generate_series(0::bigint, $3::bigint - 1) n,
         lateral (select case when n % 100 < 85 then 'FINALIZED' when n % 100 < 93 then 'CONFIRMED' when n % 100 < 97 then 'FAILED'
                              when n % 100 < 98 then 'EXPIRED' when n % 100 < 99 then 'SUBMITTED' else 'BUILT' end as status) s`,
      [org, cluster, size.transactions, size.accounts],
    );
    await pg.query("set local maintenance_work_mem = '256MB'");
    for (const index of indexes) await pg.query(index.definition);
    await pg.query('commit');
  } catch (error) {
    await pg.query('rollback');
    throw error;
  }
  // VACUUM too: the visibility map lets counts read the indexes alone.
  await pg.query('vacuum analyze account, financial_instrument, "position", ledger_transaction');
  const accountIds = (await pg.query<{ id: string }>(`select ${id('account', 'n')}::text as id from generate_series(0, 9) n`)).rows.map((r) => r.id);
  const rows = (
    await pg.query<{ id: string; mint_address: string }>(
      'select id::text, mint_address from financial_instrument where organization_id = $1 and cluster = $2 order by created_at',
      [org, cluster],
    )
  ).rows;
  return { accountIds, instruments: rows.map((r) => ({ id: r.id, mintAddress: r.mint_address })) };
}
