/**
 * Keyset paging through the API: the cursor of a bulk answer continues exactly after its page, so
 * records written meanwhile before the position neither shift nor repeat a page (skip pages do), and
 * walking the pages yields every record once. Every bulk read answers with a cursor.
 */
import { Client } from 'pg';
import { fillReadData } from '../../bench/read-data';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
const seeded = 250;

beforeAll(async () => {
  stack = await startStack();
  // Older records, written straight into the database (dated 2026-01-01): every write of the test lands before them, newest first.
  const pg = new Client({ connectionString: stack.config.databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ id: string }>('select id from organization where external_id = $1', [stack.organizationExternalId]);
    await fillReadData(pg, rows[0]!.id, 'LOCAL', { accounts: seeded, positions: seeded, transactions: seeded, instruments: 5 });
  } finally {
    await pg.end();
  }
});
afterAll(async () => {
  await stack?.close();
});

interface Page {
  count: number;
  items: { offchain?: { id: string }; offchainId?: string; id?: string }[];
  cursor?: string;
}

const transactions = async (itemQuery: Record<string, unknown>): Promise<Page> => {
  const answer = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', { itemQuery });
  expect(answer.status).toBe(200);
  return answer.body as Page;
};
const idOf = (item: Page['items'][number]) => item.offchain?.id ?? item.offchainId ?? item.id!;
const createAccount = () => stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } });

it('pages newest first with a cursor do not shift when records are written before them, while skip pages do; the walk yields every record once', async () => {
  const before = (await transactions({ limit: 1000 })).items.map(idOf);
  expect(before.length).toBeGreaterThanOrEqual(seeded);

  const first = await transactions({ limit: 100 });
  expect(first.items.map(idOf)).toEqual(before.slice(0, 100));
  expect(first.cursor).toEqual(expect.any(String));

  // Three writes land at the front of the order (newest first) between the first and the second page.
  const written = await Promise.all([createAccount(), createAccount(), createAccount()]);
  written.forEach((w) => expect(w.status).toBe(201));

  const byCursor = await transactions({ limit: 100, cursor: first.cursor });
  const bySkip = await transactions({ limit: 100, skip: 100 });
  expect(byCursor.items.map(idOf)).toEqual(before.slice(100, 200));
  // skip counts from the new front: the last records of the first page come again.
  expect(first.items.map(idOf)).toContain(bySkip.items.map(idOf)[0]);
  expect(bySkip.items.map(idOf)).not.toEqual(before.slice(100, 200));

  // The rest of the walk, with another write in flight.
  const seen = [...first.items.map(idOf), ...byCursor.items.map(idOf)];
  const inFlight = createAccount();
  let cursor = byCursor.cursor;
  for (let page = 0; page < 100 && cursor; page++) {
    const next = await transactions({ limit: 100, cursor });
    seen.push(...next.items.map(idOf));
    cursor = next.items.length < 100 ? undefined : next.cursor;
  }
  expect((await inFlight).status).toBe(201);
  expect(seen).toEqual(before);
  expect(new Set(seen).size).toBe(seen.length);
});

it('a cursor continues only its own query, and not beside a skip (400 naming the field)', async () => {
  const { cursor } = await transactions({ limit: 10 });
  const otherSort = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', { itemQuery: { limit: 10, cursor, sort: [{ fieldName: 'slot' }] } });
  expect(otherSort.status).toBe(400);
  expect(otherSort.body.errors[0].field).toBe('itemQuery.cursor');
  const otherResource = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', { itemQuery: { limit: 10, cursor } });
  expect(otherResource.status).toBe(400);
  expect(otherResource.body.errors[0].field).toBe('itemQuery.cursor');
  const garbage = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', { itemQuery: { cursor: 'bm90IGEgY3Vyc29y' } });
  expect(garbage.status).toBe(400);
  expect(garbage.body.errors[0].field).toBe('itemQuery.cursor');
  const withSkip = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', { itemQuery: { limit: 10, cursor, skip: 10 } });
  expect(withSkip.status).toBe(400);
  expect(withSkip.body.errors[0].field).toBe('itemQuery.skip');
});

it('walks accounts and positions in a sort of their own with a cursor, every record once', async () => {
  for (const [route, sort] of [
    ['/api/v1/accounts/bulk/compact', [{ fieldName: 'lamportsBalance', sortDirection: 'DESC' }]],
    ['/api/v1/positions/bulk/compact', [{ fieldName: 'name', sortDirection: 'ASC' }]],
  ] as const) {
    const all = (await stack.call('POST', route, { itemQuery: { limit: 1000, sort } })).body as Page;
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const next = (await stack.call('POST', route, { itemQuery: { limit: 30, sort, ...(cursor ? { cursor } : {}) } })).body as Page;
      seen.push(...next.items.map(idOf));
      if (next.items.length < 30) break;
      cursor = next.cursor;
    }
    expect(seen).toEqual(all.items.map(idOf));
    expect(new Set(seen).size).toBe(all.count);
  }
});

it('every bulk read answers with a cursor when its page has records, and takes it back', async () => {
  const reads = [
    '/api/v1/accounts/bulk/identifiers',
    '/api/v1/financial-instruments/bulk/identifiers',
    '/api/v1/positions/bulk/identifiers',
    '/api/v1/transactions/bulk/identifiers',
    '/api/v1/loans/bulk/identifiers',
    '/api/v1/loans/strategies/bulk',
    '/api/v1/approvals/bulk',
    '/api/v1/durable-nonce-accounts/bulk',
    '/api/v1/address-lookup-tables/bulk',
    '/api/v1/market-data/onchain-data-source/bulk',
  ];
  for (const route of reads) {
    const first = await stack.call('POST', route, { itemQuery: { limit: 1 } });
    expect([route, first.status]).toEqual([route, 200]);
    if (first.body.items.length === 0) {
      expect([route, first.body.cursor]).toEqual([route, undefined]);
      continue;
    }
    expect([route, first.body.cursor]).toEqual([route, expect.any(String)]);
    const next = await stack.call('POST', route, { itemQuery: { limit: 1, cursor: first.body.cursor } });
    expect([route, next.status]).toEqual([route, 200]);
    if (first.body.count > 1) expect(next.body.items).toHaveLength(1);
    expect(next.body.items).not.toEqual(first.body.items);
  }
});

it('sorts by a list field by its first element, both directions: empty lists as NULLs, ties by id, every record once across cursor pages (API.md section 10)', async () => {
  /** PostgreSQL's order of the keys: NULL after every value; UUIDs and these names compare as their text. */
  const compare = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  const cases = [
    ['/api/v1/transactions/bulk', 'accountOffchainId', (item: Record<string, string[]>) => item.accountOffchainIds!],
    ['/api/v1/accounts/bulk', 'privateKeyLocation', (item: Record<string, string[]>) => item.privateKeyLocation!],
  ] as const;
  for (const [route, fieldName, list] of cases) {
    for (const sortDirection of ['ASC', 'DESC'] as const) {
      const sort = [{ fieldName, sortDirection }];
      const all = await stack.call('POST', `${route}/detailed`, { itemQuery: { limit: 1000, sort } });
      expect([fieldName, all.status]).toEqual([fieldName, 200]);
      expect(all.body.count).toBe(all.body.items.length);
      const keyed = (all.body.items as Record<string, string[]>[]).map((item) => ({ id: idOf(item as never), first: list(item)[0] ?? null }));
      expect(new Set(keyed.map((k) => k.first)).size).toBeGreaterThan(1);
      const sign = sortDirection === 'ASC' ? 1 : -1;
      expect(keyed).toEqual([...keyed].sort((a, b) => sign * (compare(a.first, b.first) || compare(a.id, b.id))));
      // The page after a cursor, at the level that loads some columns only.
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 100; page++) {
        const next = (await stack.call('POST', `${route}/identifiers`, { itemQuery: { limit: 40, sort, ...(cursor ? { cursor } : {}) } })).body as Page;
        seen.push(...next.items.map(idOf));
        if (next.items.length < 40) break;
        cursor = next.cursor;
      }
      expect(seen).toEqual(keyed.map((k) => k.id));
    }
  }
});
