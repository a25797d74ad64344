/** One page of a bulk read: the records, how many match, and the cursor after the page (every bulk read pages this way). */
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { EXACT_COUNT_LIMIT, type Condition, type TranslatedQuery } from '../../domain/item-query';
import { listOfFirstElement, type RowBound } from '../../domain/keyset';

export interface Page<E> {
  items: E[];
  /** How many records match the filter (all pages), exact up to EXACT_COUNT_LIMIT. */
  count: number;
  /** More records match than `count` says (counting stopped at EXACT_COUNT_LIMIT). */
  countIsLowerBound: boolean;
  /** Continues after the page's last record; absent on an empty page. */
  cursor?: string;
}

/**
 * Counts the records that match `where`, stopping after EXACT_COUNT_LIMIT + 1: an exact count of a
 * million rows reads a million index entries (hundreds of milliseconds), a capped one at most the
 * limit's worth, so every page answers in the same few milliseconds however many records match.
 */
async function countUpTo<E extends object>(em: EntityManager, entity: EntityName<E>, where: unknown): Promise<{ count: number; countIsLowerBound: boolean }> {
  const matching = em
    .createQueryBuilder(entity)
    .select(raw('1'))
    .where(where as never)
    .limit(EXACT_COUNT_LIMIT + 1);
  const [row] = await em
    .getConnection()
    .execute<{ n: number }[]>(`select count(*)::int as n from (${matching.getQuery()}) as matching`, [...matching.getParams()]);
  const n = row?.n ?? 0;
  return n > EXACT_COUNT_LIMIT ? { count: EXACT_COUNT_LIMIT, countIsLowerBound: true } : { count: n, countIsLowerBound: false };
}

const columnOf = <E extends object>(em: EntityManager, entity: EntityName<E>, property: string): string =>
  (em.getMetadata().find(entity)!.properties as Record<string, { fieldNames: string[] }>)[property]!.fieldNames[0]!;

/**
 * The query with each list's first element (`<list>[1]`, a list field's sort key) written as the SQL
 * `"alias"."column"[1]`, which MikroORM has no property for; the rest as it is.
 */
function withFirstElements<E extends object, T>(em: EntityManager, entity: EntityName<E>, part: T): T {
  if (Array.isArray(part)) return part.map((item: unknown) => withFirstElements(em, entity, item)) as T;
  if (!part || typeof part !== 'object' || part instanceof Date) return part;
  return Object.fromEntries(
    Object.entries(part).map(([key, value]) => {
      const list = listOfFirstElement(key);
      if (!list) return [key, withFirstElements(em, entity, value)];
      const column = columnOf(em, entity, list);
      return [raw((alias: string) => `"${alias}"."${column}"[1]`), value];
    }),
  ) as T;
}

/** `(c1, …, cn) < (?, …, ?)` over the properties' columns: PostgreSQL starts a btree index scan at it. */
function rowCondition<E extends object>(em: EntityManager, entity: EntityName<E>, bound: RowBound): Condition {
  const columns = bound.properties.map((property) => columnOf(em, entity, property));
  const placeholders = columns.map(() => '?').join(', ');
  const fragment = raw(
    (alias: string) => `(${columns.map((column) => `"${alias}"."${column}"`).join(', ')}) ${bound.operator} (${placeholders})`,
    bound.values,
  );
  return { [fragment]: [] };
}

/** The page's filter: the query's, and with a cursor the rows after it (as a row comparison where one says the same). */
export function pageWhere<E extends object>(em: EntityManager, entity: EntityName<E>, query: TranslatedQuery): Condition {
  const after = query.afterRow ? rowCondition(em, entity, query.afterRow) : query.after && withFirstElements(em, entity, query.after);
  return after ? { $and: [query.where, after] } : query.where;
}

/**
 * Reads one page and the count at the same time, on two pooled connections. Read-only.
 * `fields`: the properties the answer shows (a detail level's), when not all. Then only those (and
 * the order's keys) are selected, and the rows come back as plain records of those properties, not
 * entities: hydrating 100 entities allocated three times what the rows do, and the garbage
 * collections it caused were most of the slowest pages (docs/bulk-reads.md). Columns keep the
 * driver's types (a bigint as its decimal text), which the presenters of those levels accept.
 */
export async function findPage<E extends object>(
  em: EntityManager,
  entity: EntityName<E>,
  query: TranslatedQuery,
  fields?: readonly string[],
): Promise<Page<E>> {
  const where = pageWhere(em, entity, query);
  const orderBy = withFirstElements(em, entity, query.orderBy);
  const page = fields
    ? (em
        .createQueryBuilder(entity)
        .select([...new Set([...fields, ...query.keyProperties])] as never)
        .where(where as never)
        .orderBy(orderBy as never)
        .limit(query.limit)
        .offset(query.offset)
        .execute('all', true) as Promise<E[]>)
    : // Read-only records: kept out of the identity map, which would track each of them for a flush that never comes.
      (em.find(entity, where as never, { orderBy: orderBy as never, limit: query.limit, offset: query.offset, disableIdentityMap: true }) as Promise<E[]>);
  const [items, counted] = await Promise.all([page, countUpTo(em, entity, query.where)]);
  const last = items[items.length - 1];
  return { items, ...counted, ...(last ? { cursor: query.cursorAfter(last) } : {}) };
}

/** The page's envelope fields beside `items`: count, and countIsLowerBound and cursor when they apply. */
export function pageFields(page: Page<unknown>): { count: number; countIsLowerBound?: true; cursor?: string } {
  return { count: page.count, ...(page.countIsLowerBound ? { countIsLowerBound: true as const } : {}), ...(page.cursor ? { cursor: page.cursor } : {}) };
}
