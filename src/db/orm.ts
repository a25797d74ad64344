/**
 * The ORM setup: PostgreSQL through MikroORM with the project's entities and migrations.
 * One MikroORM per process; request handlers and activities fork their own EntityManager.
 */
import { Client } from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { Migration0001Initial } from './migrations/0001-initial.migration';
import { Migration0002AddressReservation } from './migrations/0002-address-reservation.migration';
import { Migration0006Position } from './migrations/0006-position.migration';
import { Migration0005StoredFile } from './migrations/0005-stored-file.migration';
import { Migration0004FinancialInstrument } from './migrations/0004-financial-instrument.migration';
import { Migration0003AlIdSequence } from './migrations/0003-al-id-sequence.migration';
import { Migration0007DebitReservation } from './migrations/0007-debit-reservation.migration';
import { Migration0008TransactionRecordsIndex } from './migrations/0008-transaction-records-index.migration';
import { Migration0009IdempotencyKeyIndex } from './migrations/0009-idempotency-key-index.migration';
import { Migration0010RequestDigest } from './migrations/0010-request-digest.migration';
import { Migration0011WriteEngine } from './migrations/0011-write-engine.migration';
import { Migration0012ComputeBudget } from './migrations/0012-compute-budget.migration';
import { Migration0014AddressLookupTable } from './migrations/0014-address-lookup-table.migration';
import { Migration0013DurableNonceAccount } from './migrations/0013-durable-nonce-account.migration';
import { Migration0016ComputeUnitsConsumed } from './migrations/0016-compute-units-consumed.migration';
import { Migration0018CancelledMessage } from './migrations/0018-cancelled-message.migration';
import { Migration0021SecretsKeyLocation } from './migrations/0021-secrets-key-location.migration';
import { Migration0022ThresholdKeys } from './migrations/0022-threshold-keys.migration';
import { Migration0024DebitReservationWrite } from './migrations/0024-debit-reservation-write.migration';
import { Migration0019Approval } from './migrations/0019-approval.migration';
import { Migration0017WebhookDeliveries } from './migrations/0017-webhook-deliveries.migration';
import { Migration0015Signatures } from './migrations/0015-signatures.migration';
import { Migration0030Loans } from './migrations/0030-loans.migration';
import { Migration0031LoanInUse } from './migrations/0031-loan-in-use.migration';
import { Migration0040OracleDataSource } from './migrations/0040-oracle-data-source.migration';
import { Migration0041BulkReadIndexes } from './migrations/0041-bulk-read-indexes.migration';
import { Migration0050RateLimit } from './migrations/0050-rate-limit.migration';
import { Migration0051NonceAuthorityAutoSign } from './migrations/0051-nonce-authority-auto-sign.migration';
import { Migration0052ChainFollower } from './migrations/0052-chain-follower.migration';
import { Migration0053Finality } from './migrations/0053-finality.migration';
import { Migration0054DriftFinding } from './migrations/0054-drift-finding.migration';
import { Migration0055TransactionOriginIndexes } from './migrations/0055-transaction-origin-indexes.migration';
import { Migration0056NetworkEventsFromCurrentSlot } from './migrations/0056-network-events-from-current-slot.migration';
import { Migration0057WriteRestAnnouncements } from './migrations/0057-write-rest-announcements.migration';

/** Every migration, in the order they apply. */
const migrations = [
  { name: '0001-initial', class: Migration0001Initial },
  { name: '0002-address-reservation', class: Migration0002AddressReservation },
  { name: '0003-al-id-sequence', class: Migration0003AlIdSequence },
  { name: '0004-financial-instrument', class: Migration0004FinancialInstrument },
  { name: '0005-stored-file', class: Migration0005StoredFile },
  { name: '0006-position', class: Migration0006Position },
  { name: '0007-debit-reservation', class: Migration0007DebitReservation },
  { name: '0008-transaction-records-index', class: Migration0008TransactionRecordsIndex },
  { name: '0009-idempotency-key-index', class: Migration0009IdempotencyKeyIndex },
  { name: '0010-request-digest', class: Migration0010RequestDigest },
  { name: '0011-write-engine', class: Migration0011WriteEngine },
  { name: '0012-compute-budget', class: Migration0012ComputeBudget },
  { name: '0013-durable-nonce-account', class: Migration0013DurableNonceAccount },
  { name: '0014-address-lookup-table', class: Migration0014AddressLookupTable },
  { name: '0015-signatures', class: Migration0015Signatures },
  { name: '0016-compute-units-consumed', class: Migration0016ComputeUnitsConsumed },
  { name: '0017-webhook-deliveries', class: Migration0017WebhookDeliveries },
  { name: '0018-cancelled-message', class: Migration0018CancelledMessage },
  { name: '0019-approval', class: Migration0019Approval },
  { name: '0021-secrets-key-location', class: Migration0021SecretsKeyLocation },
  { name: '0022-threshold-keys', class: Migration0022ThresholdKeys },
  { name: '0024-debit-reservation-write', class: Migration0024DebitReservationWrite },
  { name: '0030-loans', class: Migration0030Loans },
  { name: '0031-loan-in-use', class: Migration0031LoanInUse },
  { name: '0040-oracle-data-source', class: Migration0040OracleDataSource },
  { name: '0041-bulk-read-indexes', class: Migration0041BulkReadIndexes },
  { name: '0050-rate-limit', class: Migration0050RateLimit },
  { name: '0051-nonce-authority-auto-sign', class: Migration0051NonceAuthorityAutoSign },
  { name: '0052-chain-follower', class: Migration0052ChainFollower },
  { name: '0053-finality', class: Migration0053Finality },
  { name: '0054-drift-finding', class: Migration0054DriftFinding },
  { name: '0055-transaction-origin-indexes', class: Migration0055TransactionOriginIndexes },
  { name: '0056-network-events-from-current-slot', class: Migration0056NetworkEventsFromCurrentSlot },
  { name: '0057-write-rest-announcements', class: Migration0057WriteRestAnnouncements },
];

/** The names of every migration, in order (what a first `migrate` applies). */
export const migrationNames = migrations.map((m) => m.name);

export interface OrmOptions {
  databaseUrl: string;
  poolSize?: number;
  debug?: boolean;
}

export type Orm = MikroORM;

export async function createOrm(options: OrmOptions): Promise<Orm> {
  return MikroORM.init({
    clientUrl: options.databaseUrl,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolSize ?? 10 },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    migrations: { migrationsList: migrations, tableName: 'schema_migration', silent: true, snapshot: false },
  });
}

/** Applies pending migrations; idempotent. Returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}

/**
 * The migrations not applied yet, read without changing anything: the migrator's own listing would
 * create its bookkeeping table (and the database), which a read-only command must not do.
 */
export async function pendingMigrations(orm: Orm): Promise<string[]> {
  const connection = orm.em.getConnection();
  const [table] = await connection.execute<{ present: boolean }[]>(`select to_regclass('schema_migration') is not null as present`);
  if (!table.present) return [...migrationNames];
  const applied = new Set((await connection.execute<{ name: string }[]>('select name from schema_migration')).map((row) => row.name));
  return migrationNames.filter((name) => !applied.has(name));
}

/** Readiness: resolves when PostgreSQL answers a trivial query; rejects with the driver's error otherwise. */
export async function pingDatabase(orm: Orm): Promise<void> {
  await orm.em.getConnection().execute('select 1');
}

/** Creates the database named in the URL when it does not exist (through the server's `postgres` database). Idempotent. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
