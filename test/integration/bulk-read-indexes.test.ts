/**
 * Every filter and sort of the bulk reads of accounts, positions and transactions is served by an
 * index: with tens of thousands of rows (analyzed), the plan PostgreSQL picks for the query the API
 * sends (MikroORM's SQL for the translated itemQuery, limit 100) scans no table sequentially, for an
 * equality filter, a range, a sort either way and the page after a cursor.
 */
import type { EntityName } from '@mikro-orm/core';
import { fillReadData } from '../../bench/read-data';
import { accountQuery, positionQuery, transactionQuery } from '../../src/api/routes/query-fields';
import { Account, LedgerTransaction, Position } from '../../src/db/entities';
import { createOrm, migrate, type Orm } from '../../src/db/orm';
import { findPage, pageWhere } from '../../src/db/repositories/bulk-pages.repository';
import { EXACT_COUNT_LIMIT, translateItemQuery, type FilterValue, type ItemQuery, type QueryResource } from '../../src/domain/item-query';
import { createTestDatabase } from '../support/database';
import { accountFields, presentAccount, type DetailLevel } from '../../src/api/presenters/account.presenter';
import { positionFields, presentPosition } from '../../src/api/presenters/position.presenter';
import { presentTransaction, transactionFields } from '../../src/api/presenters/transaction.presenter';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Orm;
let organizationId: string;
const cluster = 'LOCAL';

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url });
  await migrate(orm);
  const { Client } = await import('pg');
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  try {
    organizationId = (
      await pg.query<{ id: string }>(
        `insert into organization (id, external_id, webhook_signing_secret, created_at) values (gen_random_uuid(), 'indexes', 'x', now()) returning id`,
      )
    ).rows[0]!.id;
    await fillReadData(pg, organizationId, cluster, { accounts: 30_000, positions: 30_000, transactions: 60_000 });
  } finally {
    await pg.end();
  }
}, 300_000);

afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** The plan of the page query the API runs for `itemQuery` (the SQL MikroORM writes for it). */
async function planOf<E extends object>(entity: EntityName<E>, resource: QueryResource, itemQuery: ItemQuery): Promise<{ sql: string; plan: PlanNode }> {
  const em = orm.em.fork();
  const query = translateItemQuery(resource, itemQuery, { organizationId, cluster });
  const sql = em
    .createQueryBuilder(entity)
    .select('*')
    .where(pageWhere(em, entity, query) as never)
    .orderBy(query.orderBy as never)
    .limit(query.limit)
    .offset(query.offset)
    .getFormattedQuery();
  const [row] = await em.getConnection().execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (format json) ${sql}`);
  return { sql, plan: row!['QUERY PLAN'][0].Plan };
}

/** A cursor after the first page of `itemQuery`, read through the same translation. */
async function cursorAfterFirstPage<E extends object>(entity: EntityName<E>, resource: QueryResource, itemQuery: ItemQuery): Promise<string> {
  const query = translateItemQuery(resource, { ...itemQuery, limit: 100 }, { organizationId, cluster });
  const rows = await orm.em.fork().find(entity, query.where as never, { orderBy: query.orderBy as never, limit: 100 });
  return query.cursorAfter(rows[rows.length - 1]!);
}

/** An equality (or contains) filter value for `fieldName`, taken from a record that has one. */
async function sampleFilter<E extends object>(entity: EntityName<E>, resource: QueryResource, fieldName: string): Promise<FilterValue[]> {
  const field = resource.fields[fieldName]!;
  const property = field.property;
  const row = (await orm.em.fork().findOne(entity, { organizationId, cluster, [property]: field.array ? { $ne: [] } : { $ne: null } } as never, {
    orderBy: { id: 'asc' } as never,
  })) as Record<string, unknown> | null;
  const value = row?.[property];
  if (value === undefined || value === null) throw new Error(`no ${fieldName} in the data`);
  const equals: FilterValue =
    field.kind === 'BOOLEAN'
      ? { filterType: 'EQUALS', valueBoolean: value as boolean }
      : field.kind === 'NUMBER'
        ? { filterType: 'EQUALS', valueNumber: String(value) }
        : field.kind === 'TIMESTAMP'
          ? { filterType: 'EQUALS', valueString: (value as Date).toISOString() }
          : { filterType: 'EQUALS', valueString: field.array ? (value as string[])[0]! : String(value) };
  if (field.kind === 'NUMBER') return [equals, { filterType: 'RANGE', valueFromNumber: String(value), valueToNumber: String(BigInt(String(value)) + 1000n) }];
  if (field.kind === 'TIMESTAMP') {
    const from = value as Date;
    return [equals, { filterType: 'RANGE', valueFromString: from.toISOString(), valueToString: new Date(from.getTime() + 60_000).toISOString() }];
  }
  return [equals];
}

type Case = readonly [string, string, string, string, () => Promise<{ sql: string; plan: PlanNode }>];

/** The cases of one resource: every field's sorts (either way, and after a cursor) and filters. */
function casesOf<E extends object>(name: string, entity: EntityName<E>, resource: QueryResource, table: string): Case[] {
  // tenantOrganizationId equals the tenancy scope itself.
  return Object.entries(resource.fields)
    .filter(([fieldName]) => fieldName !== 'tenantOrganizationId')
    .flatMap(([fieldName, field]) => {
      const queries: [string, () => Promise<ItemQuery>][] = [];
      // comments is free text up to 10,000 characters, beyond what a btree entry holds: equality only (a hash index), no index for its sort.
      if (!field.array && fieldName !== 'comments') {
        for (const direction of ['ASC', 'DESC'] as const) {
          const sort = [{ fieldName, sortDirection: direction }];
          queries.push([`sort ${direction}`, async () => ({ sort, limit: 100 })]);
          queries.push([
            `sort ${direction}, page after a cursor`,
            async () => ({ sort, limit: 100, cursor: await cursorAfterFirstPage(entity, resource, { sort }) }),
          ]);
        }
      }
      queries.push([
        'equality filter, default sort',
        async () => ({ filter: [{ fieldName, filterValues: (await sampleFilter(entity, resource, fieldName)).slice(0, 1) }], limit: 100 }),
      ]);
      if (field.kind === 'NUMBER' || field.kind === 'TIMESTAMP') {
        queries.push([
          'range filter, default sort',
          async () => ({ filter: [{ fieldName, filterValues: (await sampleFilter(entity, resource, fieldName)).slice(1) }], limit: 100 }),
        ]);
      }
      return queries.map(([what, query]): Case => [name, fieldName, what, table, async () => planOf(entity, resource, await query())]);
    });
}

const cases: Case[] = [
  ...casesOf('accounts', Account, accountQuery, 'account'),
  ...casesOf('positions', Position, positionQuery, 'position'),
  ...casesOf('transactions', LedgerTransaction, transactionQuery, 'ledger_transaction'),
];

it.each(cases)('%s: %s, %s: no sequential scan', async (_name, _field, _what, table, explain) => {
  const { sql, plan } = await explain();
  const scans = nodes(plan).filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table);
  if (scans.length > 0) throw new Error(`sequential scan of ${table} for\n${sql}\n${JSON.stringify(plan, null, 1).slice(0, 3000)}`);
});

it('a page deep into a sort by a field of few values (accounts, managed first) starts at the cursor instead of reading the rows before it', async () => {
  // 50 pages in: 5,000 accounts of the same `managed` value come before the cursor.
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await findPage(
      orm.em.fork(),
      Account,
      translateItemQuery(accountQuery, { limit: 100, ...(cursor ? { cursor } : {}) }, { organizationId, cluster }),
    );
    cursor = page.cursor;
  }
  const em = orm.em.fork();
  const query = translateItemQuery(accountQuery, { limit: 100, cursor }, { organizationId, cluster });
  const sql = em
    .createQueryBuilder(Account)
    .select('*')
    .where(pageWhere(em, Account, query) as never)
    .orderBy(query.orderBy as never)
    .limit(100)
    .getFormattedQuery();
  const [row] = await em.getConnection().execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (analyze, buffers, format json) ${sql}`);
  const plan = nodes(row!['QUERY PLAN'][0].Plan);
  const removed = plan.reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0), 0);
  const blocks = plan[0]!['Shared Hit Blocks']! + plan[0]!['Shared Read Blocks']!;
  // Reading from the start of `managed = true` would remove ~5,000 rows and touch thousands of blocks.
  expect({ removed, fewBlocks: blocks < 400 }).toEqual({ removed: 0, fewBlocks: true });
});

/** The entity properties `present` reads of `record` (a Proxy records every read of a mapped property). */
function propertiesRead<E extends object>(entity: EntityName<E>, record: E, present: (record: E) => unknown): Set<string> {
  const mapped = new Set(Object.keys(orm.getMetadata().find(entity)!.properties));
  const read = new Set<string>();
  present(
    new Proxy(record, { get: (target, key, receiver) => (typeof key === 'string' && mapped.has(key) && read.add(key), Reflect.get(target, key, receiver)) }),
  );
  return read;
}

type LevelFields = [string, EntityName<object>, QueryResource, Partial<Record<DetailLevel, readonly string[]>>, (record: never, level: DetailLevel) => unknown];
const levelFields: LevelFields[] = [
  ['accounts', Account as never, accountQuery, accountFields, (record: Account, level) => presentAccount(record, level, organizationId)],
  ['positions', Position as never, positionQuery, positionFields, (record: Position, level) => presentPosition(record, level)],
  ['transactions', LedgerTransaction as never, transactionQuery, transactionFields, (record: LedgerTransaction, level) => presentTransaction(record, level)],
];

it.each(levelFields)(
  '%s: a bulk read below detailed loads every property its answer shows, and answers as with the whole record',
  async (_name, entity, resource, fields, present) => {
    const meta = orm.getMetadata().find(entity)!;
    const nullable = (Object.values(meta.properties) as { name: string; nullable?: boolean }[]).filter((p) => p.nullable).map((p) => p.name);
    for (const level of ['identifiers', 'compact'] as const) {
      const query = translateItemQuery(resource, { limit: 50 }, { organizationId, cluster });
      const whole = await findPage(orm.em.fork(), entity, query);
      const partial = await findPage(orm.em.fork(), entity, query, fields[level]);
      expect(partial.items.map((r) => present(r as never, level))).toEqual(whole.items.map((r) => present(r as never, level)));
      // Every branch: each record as read, and with its nullable properties NULL (`a ?? b` reads b only then).
      const read = new Set<string>();
      for (const record of whole.items) {
        propertiesRead(entity, record, (r) => present(r as never, level)).forEach((p) => read.add(p));
        const nulled = Object.assign(
          Object.create(Object.getPrototypeOf(record) as object) as object,
          record,
          Object.fromEntries(nullable.map((p) => [p, null])),
        );
        propertiesRead(entity, nulled, (r) => present(r as never, level)).forEach((p) => read.add(p));
      }
      expect([...read].filter((p) => !fields[level]!.includes(p))).toEqual([]);
    }
  },
);

it('walks every transaction once with cursors, newest first', async () => {
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const query = translateItemQuery(transactionQuery, { limit: 1000, ...(cursor ? { cursor } : {}) }, { organizationId, cluster });
    const em = orm.em.fork();
    const rows = await em.find(LedgerTransaction, pageWhere(em, LedgerTransaction, query) as never, {
      orderBy: query.orderBy as never,
      limit: query.limit,
      fields: ['id', 'createdAt'],
    });
    rows.forEach((row) => seen.add(row.id));
    pages++;
    if (rows.length < query.limit) break;
    cursor = query.cursorAfter(rows[rows.length - 1]!);
  }
  expect(seen.size).toBe(60_000);
  expect(pages).toBe(61);
});

it('counts exactly up to 10,000 matching records, and says when more match', async () => {
  const em = orm.em.fork();
  const all = await findPage(em, LedgerTransaction, translateItemQuery(transactionQuery, { limit: 5 }, { organizationId, cluster }));
  expect(all).toMatchObject({ count: EXACT_COUNT_LIMIT, countIsLowerBound: true });
  expect(all.items).toHaveLength(5);
  const mints = translateItemQuery(
    transactionQuery,
    {
      limit: 5,
      filter: [
        { fieldName: 'operation', filterValues: [{ filterType: 'EQUALS', valueString: 'BURN' }] },
        { fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: 'FAILED' }] },
      ],
    },
    { organizationId, cluster },
  );
  const exact = await em.count(LedgerTransaction, mints.where as never);
  expect(exact).toBeGreaterThan(0);
  expect(exact).toBeLessThan(EXACT_COUNT_LIMIT);
  expect(await findPage(em, LedgerTransaction, mints)).toMatchObject({ count: exact, countIsLowerBound: false });
});
