import { translateItemQuery, type ItemQuery, type QueryResource } from '../../src/domain/item-query';
import type { RowBound } from '../../src/domain/keyset';
import { refusal } from '../support/expectations';

/** Records with a nullable text, a boolean, a number, a nullable timestamp and a list; many ties and NULLs (empty lists). */
const things: QueryResource = {
  fields: {
    name: { property: 'name', kind: 'TEXT', dataTypes: ['TEXT'], nullable: true },
    active: { property: 'active', kind: 'BOOLEAN', dataTypes: ['BOOLEAN'] },
    weight: { property: 'weight', kind: 'NUMBER', dataTypes: ['NUMBER'], integer: true },
    seenAt: { property: 'seenAt', kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'], nullable: true },
    tags: { property: 'tags', kind: 'TEXT', dataTypes: ['TEXT'], array: true, nullable: true },
  },
  defaultSort: [['active', 'DESC']],
  idProperty: 'id',
};

type Value = string | boolean | bigint | Date | null;

interface Thing {
  id: string;
  name: string | null;
  active: boolean;
  weight: bigint;
  seenAt: Date | null;
  tags: string[];
}

const rows: Thing[] = Array.from({ length: 60 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String((i * 7919) % 1000).padStart(12, '0')}`,
  name: i % 5 === 0 ? null : ['b', 'a', 'c'][i % 3]!,
  active: i % 2 === 0,
  weight: BigInt(i % 4),
  seenAt: i % 6 === 0 ? null : new Date(Date.UTC(2026, 0, 1 + (i % 3))),
  tags: i % 4 === 0 ? [] : [['y', 'x', 'z'][i % 3]!, 'a'],
}));

/** A property of the row as the database reads it: `<list>[1]` is the list's first element, NULL when empty. */
function valueOf(row: Thing, property: string): Value {
  const list = /^(.+)\[1\]$/.exec(property)?.[1];
  if (list) return (row[list as keyof Thing] as string[])[0] ?? null;
  return row[property as keyof Thing] as Value;
}

const comparable = (v: unknown) =>
  v instanceof Date ? v.getTime() : typeof v === 'bigint' ? Number(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;

/** PostgreSQL's comparison with NULLs greater than every value. */
function compare(a: Value, b: Value): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const [x, y] = [comparable(a), comparable(b)] as [number | string | boolean, number | string | boolean];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Evaluates the filter objects the translation produces ($and, $or, comparisons, NULL tests) against one row. */
function matches(row: Thing, condition: Record<string, unknown>): boolean {
  return Object.entries(condition).every(([key, value]) => {
    if (key === '$and') return (value as Record<string, unknown>[]).every((c) => matches(row, c));
    if (key === '$or') return (value as Record<string, unknown>[]).some((c) => matches(row, c));
    if (key === 'organizationId') return true;
    const actual = valueOf(row, key);
    if (value === null) return actual === null;
    return Object.entries(value as Record<string, unknown>).every(([op, operand]) => {
      if (op === '$ne' && operand === null) return actual !== null;
      if (op === '$in') return (operand as unknown[]).some((v) => actual !== null && compare(actual, v as Value) === 0);
      if (actual === null) return false;
      const c = compare(actual, operand as Value);
      return { $eq: c === 0, $ne: c !== 0, $gt: c > 0, $gte: c >= 0, $lt: c < 0, $lte: c <= 0 }[op as '$eq'];
    });
  });
}

/** The rows in the query's order (as the database sorts them). */
function ordered(query: ReturnType<typeof translateItemQuery>, from: Thing[]): Thing[] {
  const keys = query.orderBy.map((o) => Object.entries(o)[0] as [string, 'asc' | 'desc']);
  return [...from].sort((a, b) => {
    for (const [key, direction] of keys) {
      const c = compare(valueOf(a, key), valueOf(b, key));
      if (c !== 0) return direction === 'asc' ? c : -c;
    }
    return 0;
  });
}

/** PostgreSQL's row comparison `(a1, …) < (b1, …)`: the first pair that differs decides; a NULL in it makes it unknown (no row). */
function rowCompares(row: Thing, bound: RowBound): boolean {
  for (const [i, property] of bound.properties.entries()) {
    const [actual, value] = [valueOf(row, property), bound.values[i] as Value];
    if (actual === null || value === null) return false;
    const c = compare(actual, value);
    if (c !== 0) return bound.operator === '<' ? c < 0 : c > 0;
  }
  return false;
}

/** One page as the database would answer it: the row comparison when the translation gives one (findPage prefers it). */
function page(query: ReturnType<typeof translateItemQuery>, from: Thing[]): Thing[] {
  const after = (r: Thing) => (query.afterRow ? rowCompares(r, query.afterRow) : query.after ? matches(r, query.after) : true);
  return ordered(
    query,
    from.filter((r) => matches(r, query.where) && after(r)),
  ).slice(query.offset, query.offset + query.limit);
}

/** Walks every page with cursors; `between` may change the table before each next page. */
function walk(base: ItemQuery, table: Thing[], between: (pageIndex: number) => void = () => {}): Thing[] {
  const seen: Thing[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const query = translateItemQuery(things, { ...base, ...(cursor ? { cursor } : {}) }, { organizationId: 'org' });
    const items = page(query, table);
    seen.push(...items);
    if (items.length < query.limit) return seen;
    cursor = query.cursorAfter(items[items.length - 1]!);
    between(i);
  }
  throw new Error('paging did not end');
}

const sorts: [string, ItemQuery['sort']][] = [
  ['the default sort', undefined],
  ['a nullable text ascending (NULLs last)', [{ fieldName: 'name', sortDirection: 'ASC' }]],
  ['a nullable text descending (NULLs first)', [{ fieldName: 'name', sortDirection: 'DESC' }]],
  [
    'a nullable timestamp, then a number the other way',
    [
      { fieldName: 'seenAt', sortDirection: 'DESC' },
      { fieldName: 'weight', sortDirection: 'ASC' },
    ],
  ],
  ['three fields in mixed directions', [{ fieldName: 'active' }, { fieldName: 'name', sortDirection: 'DESC' }, { fieldName: 'seenAt' }]],
  ['a list by its first element ascending (empty lists last)', [{ fieldName: 'tags', sortDirection: 'ASC' }]],
  ['a list by its first element descending (empty lists first)', [{ fieldName: 'tags', sortDirection: 'DESC' }]],
  [
    'a list, then a number the other way',
    [
      { fieldName: 'tags', sortDirection: 'DESC' },
      { fieldName: 'weight', sortDirection: 'ASC' },
    ],
  ],
];

describe('keyset paging', () => {
  it.each(sorts)('walking the pages of %s yields every row once, in the order of one big page', (_, sort) => {
    const all = page(translateItemQuery(things, { sort, limit: 1000 }, { organizationId: 'org' }), rows);
    expect(walk({ sort, limit: 7 }, rows).map((r) => r.id)).toEqual(all.map((r) => r.id));
  });

  it('pages with a cursor do not shift when rows are written before the position, while skip pages repeat rows', () => {
    const sort: ItemQuery['sort'] = [{ fieldName: 'weight' }];
    const table = [...rows];
    // Before every next page, a new row lands at the very front of the order.
    let n = 0;
    const before = () =>
      table.push({ id: `ffffffff-0000-4000-8000-${String(n++).padStart(12, '0')}`, name: 'new', active: true, weight: -1n, seenAt: null, tags: [] });
    const walked = walk({ sort, limit: 10 }, table, before);
    expect(walked.map((r) => r.id)).toEqual(page(translateItemQuery(things, { sort, limit: 1000 }, { organizationId: 'org' }), rows).map((r) => r.id));

    const skipTable = [...rows];
    n = 0;
    const skipped: Thing[] = [];
    for (let skip = 0; skip < rows.length; skip += 10) {
      skipped.push(...page(translateItemQuery(things, { sort, limit: 10, skip }, { organizationId: 'org' }), skipTable));
      skipTable.push({ id: `ffffffff-0000-4000-8000-${String(n++).padStart(12, '0')}`, name: 'new', active: true, weight: -1n, seenAt: null, tags: [] });
    }
    expect(new Set(skipped.map((r) => r.id)).size).toBeLessThan(skipped.length);
  });

  it.each(sorts)('walking %s with the OR form only (no row comparison) yields the same rows', (_, sort) => {
    const all = page(translateItemQuery(things, { sort, limit: 1000 }, { organizationId: 'org' }), rows);
    const seen: Thing[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 100 && seen.length < all.length; i++) {
      const { afterRow: _, ...query } = translateItemQuery(things, { sort, limit: 7, ...(cursor ? { cursor } : {}) }, { organizationId: 'org' });
      const items = page(query, rows);
      seen.push(...items);
      if (items.length < 7) break;
      cursor = query.cursorAfter(items[items.length - 1]!);
    }
    expect(seen.map((r) => r.id)).toEqual(all.map((r) => r.id));
  });

  it('gives one row comparison where it means the same as the OR form, and none where NULLs or mixed directions would change it', () => {
    const after = (sort: ItemQuery['sort'], row: Thing) => {
      const cursor = translateItemQuery(things, { sort }, { organizationId: 'org' }).cursorAfter(row);
      return translateItemQuery(things, { sort, cursor }, { organizationId: 'org' }).afterRow;
    };
    const named = rows.find((r) => r.name !== null && r.seenAt !== null)!;
    // The default sort (managed-like boolean, DESC): the case that read every earlier row of its value again.
    expect(after(undefined, named)).toEqual({ properties: ['active', 'id'], operator: '<', values: [named.active, named.id] });
    expect(after([{ fieldName: 'weight', sortDirection: 'ASC' }], named)).toEqual({
      properties: ['weight', 'id'],
      operator: '>',
      values: [String(named.weight), named.id],
    });
    // Descending over a nullable field: NULLs come first, so a non-NULL position never has them after it.
    expect(after([{ fieldName: 'name', sortDirection: 'DESC' }], named)?.operator).toBe('<');
    // Ascending over a nullable field: NULLs come after every value, and a comparison with NULL selects nothing.
    expect(after([{ fieldName: 'name', sortDirection: 'ASC' }], named)).toBeUndefined();
    expect(
      after(
        [{ fieldName: 'name', sortDirection: 'DESC' }],
        rows.find((r) => r.name === null)!,
      ),
    ).toBeUndefined();
    expect(
      after(
        [
          { fieldName: 'seenAt', sortDirection: 'DESC' },
          { fieldName: 'weight', sortDirection: 'ASC' },
        ],
        named,
      ),
    ).toBeUndefined();
  });

  it('leads with a bound on the first sort field that the index can start from', () => {
    const first = translateItemQuery(things, { sort: [{ fieldName: 'weight', sortDirection: 'DESC' }], limit: 5 }, { organizationId: 'org' });
    const cursor = first.cursorAfter(rows[3]!);
    const next = translateItemQuery(things, { sort: [{ fieldName: 'weight', sortDirection: 'DESC' }], limit: 5, cursor }, { organizationId: 'org' });
    expect(next.after).toEqual({
      $and: [{ weight: { $lte: '3' } }, { $or: [{ weight: { $lt: '3' } }, { $and: [{ weight: { $eq: '3' } }, { id: { $lt: rows[3]!.id } }] }] }],
    });
  });

  it('refuses a cursor of another query, naming itemQuery.cursor', () => {
    const query = translateItemQuery(things, { sort: [{ fieldName: 'weight' }] }, { organizationId: 'org' });
    const cursor = query.cursorAfter(rows[0]!);
    const error = refusal(() => translateItemQuery(things, { sort: [{ fieldName: 'weight', sortDirection: 'DESC' }], cursor }, { organizationId: 'org' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.cursor');
    const filtered = refusal(() =>
      translateItemQuery(
        things,
        { sort: [{ fieldName: 'weight' }], cursor, filter: [{ fieldName: 'active', filterValues: [{ filterType: 'EQUALS', valueBoolean: true }] }] },
        { organizationId: 'org' },
      ),
    );
    expect(filtered.field).toBe('itemQuery.cursor');
  });

  it('refuses a cursor that is not one, and a skip beside a cursor', () => {
    expect(refusal(() => translateItemQuery(things, { cursor: 'not-a-cursor' }, { organizationId: 'org' })).field).toBe('itemQuery.cursor');
    const forged = Buffer.from(JSON.stringify({ v: 1, q: 'x', k: [{}] })).toString('base64url');
    expect(refusal(() => translateItemQuery(things, { cursor: forged }, { organizationId: 'org' })).field).toBe('itemQuery.cursor');
    const cursor = translateItemQuery(things, {}, { organizationId: 'org' }).cursorAfter(rows[0]!);
    expect(refusal(() => translateItemQuery(things, { cursor, skip: 10 }, { organizationId: 'org' })).field).toBe('itemQuery.skip');
    expect(translateItemQuery(things, { cursor, skip: 0 }, { organizationId: 'org' }).after).toBeDefined();
  });

  it('refuses a cursor whose key value does not fit the field', () => {
    const cursor = translateItemQuery(things, { sort: [{ fieldName: 'weight' }] }, { organizationId: 'org' }).cursorAfter(rows[0]!);
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { k: unknown[] };
    decoded.k[0] = 'heavy';
    const forged = Buffer.from(JSON.stringify(decoded)).toString('base64url');
    expect(refusal(() => translateItemQuery(things, { sort: [{ fieldName: 'weight' }], cursor: forged }, { organizationId: 'org' })).field).toBe(
      'itemQuery.cursor',
    );
    decoded.k[0] = '1';
    decoded.k[1] = "x' or 1=1";
    const notAnId = Buffer.from(JSON.stringify(decoded)).toString('base64url');
    expect(refusal(() => translateItemQuery(things, { sort: [{ fieldName: 'weight' }], cursor: notAnId }, { organizationId: 'org' })).field).toBe(
      'itemQuery.cursor',
    );
  });
});

describe('a list field sorts by its first element (API.md section 10)', () => {
  it('orders by the first element, ties by id, and keeps only the list in the cursor', () => {
    const query = translateItemQuery(things, { sort: [{ fieldName: 'tags', sortDirection: 'DESC' }] }, { organizationId: 'org' });
    expect(query.orderBy).toEqual([{ 'tags[1]': 'desc' }, { id: 'desc' }]);
    expect(query.keyProperties).toEqual(['tags', 'id']);
    const tagged = rows.find((r) => r.tags.length > 0)!;
    const empty = rows.find((r) => r.tags.length === 0)!;
    const after = (row: Thing) =>
      translateItemQuery(things, { sort: [{ fieldName: 'tags', sortDirection: 'DESC' }], cursor: query.cursorAfter(row) }, { organizationId: 'org' });
    // An expression no index of the keys serves: the OR form, never a row comparison.
    expect(after(tagged).afterRow).toBeUndefined();
    expect(after(tagged).after).toEqual({
      $and: [
        { 'tags[1]': { $lte: tagged.tags[0] } },
        { $or: [{ 'tags[1]': { $lt: tagged.tags[0] } }, { $and: [{ 'tags[1]': { $eq: tagged.tags[0] } }, { id: { $lt: tagged.id } }] }] },
      ],
    });
    // An empty list's position is NULL: descending, every listed row comes after it.
    expect(after(empty).after).toMatchObject({ $or: [{ 'tags[1]': { $ne: null } }, { $and: [{ 'tags[1]': null }, { id: { $lt: empty.id } }] }] });
  });
});
