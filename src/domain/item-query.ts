/**
 * The itemQuery grammar (spec 2.1, docs/behaviour/conventions.md) translated into a database filter and order, against a
 * whitelist of fields per resource. Pure: the output is a MikroORM-style filter object (plain data).
 * Any field, filter type or value kind that does not fit the field is a VALIDATION_ERROR naming it.
 */
import { validationError } from './errors';
import {
  afterCursor,
  atPath,
  decodeCursor,
  encodeCursor,
  firstElementOf,
  listOfFirstElement,
  queryFingerprint,
  rowAfterCursor,
  type RowBound,
  type SortKey,
} from './keyset';

export type FieldKind = 'TEXT' | 'BOOLEAN' | 'NUMBER' | 'TIMESTAMP' | 'UUID';

export interface QueryField {
  /** Entity property the field maps to. */
  property: string;
  kind: FieldKind;
  /** The spec's dataType names accepted for the field (`TEXT`, `OFFCHAIN_REFRENCE_TYPE`, ...). */
  dataTypes: readonly string[];
  nullable?: boolean;
  /** A text[] column: EQUALS means "contains the value", IN "contains any", IS_NULL "is empty". */
  array?: boolean;
  /** Allowed values for enumerated text fields. */
  values?: readonly string[];
  /** A NUMBER field stored as a 64-bit integer: values must be whole and fit it. */
  integer?: boolean;
}

export interface QueryResource {
  fields: Record<string, QueryField>;
  /** Default sort when none is given, e.g. [['managed', 'DESC']]. */
  defaultSort: [string, 'ASC' | 'DESC'][];
  /** Property that breaks ties so paging is stable. */
  idProperty: string;
}

export interface FilterValue {
  dataType?: string;
  filterType: 'EQUALS' | 'NOT_EQUALS' | 'IN' | 'RANGE' | 'CONTAINS' | 'IS_NULL' | 'IS_NOT_NULL';
  valueString?: string;
  valueNumber?: string;
  valueBoolean?: boolean;
  valuesString?: string[];
  valueFromString?: string;
  valueToString?: string;
  valueFromNumber?: string;
  valueToNumber?: string;
}

export interface ItemQuery {
  limit?: number;
  skip?: number;
  filter?: { fieldName: string; operator?: 'AND' | 'OR'; filterValues: FilterValue[] }[];
  sort?: { fieldName: string; sortDirection?: 'ASC' | 'DESC' }[];
  /** Continues after the page that gave it (keyset paging; see keyset.ts). */
  cursor?: string;
}

export type Condition = Record<string, unknown>;

export interface TranslatedQuery {
  /** The filter: what `count` counts (every page). */
  where: Condition;
  /** With a cursor: the rows strictly after it, ANDed to `where` for the page. */
  after?: Condition;
  /** The same rows as `after` as one row comparison, when one says the same (rowAfterCursor); preferred for the page. */
  afterRow?: RowBound;
  orderBy: Condition[];
  /** The top-level properties the order reads (the cursor's keys): a page that loads some fields only must load these. */
  keyProperties: string[];
  limit: number;
  offset: number;
  /** The cursor that continues after `row` (the page's last row). */
  cursorAfter(row: object): string;
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** `count` is exact up to this many matching records; above it the answer says countIsLowerBound (docs/bulk-reads.md). */
export const EXACT_COUNT_LIMIT = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^-?\d+(\.\d+)?$/;
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
/** Timestamps the database can compare: years 1 to 9999. */
const EARLIEST = new Date('0001-01-01T00:00:00Z').getTime();
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Checks one number's text against the field: a decimal, and for integer fields a whole 64-bit value. */
function checkNumber(field: QueryField, text: string, at: string): string {
  if (!NUMBER.test(text)) throw validationError(at, `${at} must be a number`);
  if (field.integer) {
    if (!/^-?\d+$/.test(text)) throw validationError(at, `${at} must be a whole number`);
    const n = BigInt(text);
    if (n < INT64.min || n > INT64.max) throw validationError(at, `${at} is out of range`);
  }
  return text;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Reads the one scalar a filter value carries for the field's kind, checking its form. */
function scalar(field: QueryField, value: FilterValue, at: string, which: 'value' | 'from' | 'to', partial = false): unknown {
  const key = which === 'value' ? '' : which === 'from' ? 'From' : 'To';
  switch (field.kind) {
    case 'BOOLEAN': {
      if (which !== 'value' || typeof value.valueBoolean !== 'boolean')
        throw validationError(`${at}.valueBoolean`, `${at}.valueBoolean is required for a BOOLEAN field`);
      return value.valueBoolean;
    }
    case 'NUMBER': {
      const text = value[`value${key}Number` as 'valueNumber'] ?? value[`value${key}String` as 'valueString'];
      if (text === undefined) throw validationError(`${at}.value${key}Number`, `${at}.value${key}Number must be a number`);
      return checkNumber(field, String(text), `${at}.value${key}Number`);
    }
    case 'TIMESTAMP': {
      const text = value[`value${key}String` as 'valueString'];
      const date = text === undefined ? undefined : new Date(text);
      const time = date?.getTime() ?? NaN;
      if (Number.isNaN(time) || time < EARLIEST || time > LATEST)
        throw validationError(`${at}.value${key}String`, `${at}.value${key}String must be an ISO 8601 timestamp between years 1 and 9999`);
      return date;
    }
    default: {
      const text = value[`value${key}String` as 'valueString'];
      if (text === undefined) throw validationError(`${at}.value${key}String`, `${at}.value${key}String is required`);
      checkText(field, text, `${at}.value${key}String`, partial);
      return text;
    }
  }
}

function checkText(field: QueryField, text: string, at: string, partial = false): void {
  if (partial) return;
  if (field.kind === 'UUID' && !UUID.test(text)) throw validationError(at, `${at} must be a UUID`);
  if (field.values && !field.values.includes(text)) throw validationError(at, `${at} must be one of ${field.values.join(', ')}`);
}

function condition(name: string, field: QueryField, value: FilterValue, at: string): Condition {
  const p = field.property;
  if (value.dataType !== undefined && !field.dataTypes.includes(value.dataType)) {
    throw validationError(`${at}.dataType`, `${name} is of type ${field.dataTypes.join(' or ')}, not ${value.dataType}`);
  }
  switch (value.filterType) {
    case 'IS_NULL':
    case 'IS_NOT_NULL': {
      if (!field.nullable) throw validationError(`${at}.filterType`, `${name} is not nullable: ${value.filterType} does not apply`);
      const empty = field.array ? atPath(p, { $eq: [] }) : atPath(p, null);
      return value.filterType === 'IS_NULL' ? empty : { $not: empty };
    }
    case 'EQUALS':
    case 'NOT_EQUALS': {
      const v = scalar(field, value, at, 'value');
      const eq = field.array ? atPath(p, { $contains: [v] }) : atPath(p, { $eq: v });
      if (value.filterType === 'EQUALS') return eq;
      if (field.array) return { $not: eq };
      // "not X" includes the records that have no value at all (SQL's <> alone would drop them).
      return field.nullable ? { $or: [atPath(p, { $ne: v }), atPath(p, null)] } : atPath(p, { $ne: v });
    }
    case 'IN': {
      if (field.kind === 'BOOLEAN' || field.kind === 'TIMESTAMP') throw validationError(`${at}.filterType`, `IN does not apply to ${field.kind} field ${name}`);
      const values = value.valuesString;
      if (!values || values.length === 0) throw validationError(`${at}.valuesString`, `${at}.valuesString needs at least one value for IN`);
      values.forEach((v, i) => (field.kind === 'NUMBER' ? checkNumber(field, v, `${at}.valuesString.${i}`) : checkText(field, v, `${at}.valuesString.${i}`)));
      return field.array ? atPath(p, { $overlap: values }) : atPath(p, { $in: values });
    }
    case 'RANGE': {
      if (field.kind !== 'NUMBER' && field.kind !== 'TIMESTAMP')
        throw validationError(`${at}.filterType`, `RANGE applies to NUMBER and TIMESTAMP fields, not ${name}`);
      const hasFrom = value.valueFromNumber !== undefined || value.valueFromString !== undefined;
      const hasTo = value.valueToNumber !== undefined || value.valueToString !== undefined;
      if (!hasFrom && !hasTo) throw validationError(at, `RANGE on ${name} needs a valueFrom or a valueTo`);
      const range: Record<string, unknown> = {};
      if (hasFrom) range.$gte = scalar(field, value, at, 'from');
      if (hasTo) range.$lte = scalar(field, value, at, 'to');
      return atPath(p, range);
    }
    case 'CONTAINS': {
      if (field.kind !== 'TEXT' || field.array) throw validationError(`${at}.filterType`, `CONTAINS applies to TEXT fields, not ${name}`);
      const v = scalar(field, value, at, 'value', true) as string;
      return atPath(p, { $ilike: `%${escapeLike(v)}%` });
    }
  }
}

/** Translates an itemQuery for one resource; `scope` (tenancy) is ANDed in front. */
export function translateItemQuery(resource: QueryResource, query: ItemQuery | undefined, scope: Condition, base = 'itemQuery'): TranslatedQuery {
  const limit = query?.limit ?? DEFAULT_LIMIT;
  if (limit > MAX_LIMIT) throw validationError(`${base}.limit`, `${base}.limit must be at most ${MAX_LIMIT}`);
  const and: Condition[] = [scope];
  (query?.filter ?? []).forEach((entry, i) => {
    const at = `${base}.filter.${i}`;
    const field = Object.hasOwn(resource.fields, entry.fieldName) ? resource.fields[entry.fieldName] : undefined;
    if (!field) throw validationError(`${at}.fieldName`, `unknown field "${entry.fieldName}"; fields are ${Object.keys(resource.fields).join(', ')}`);
    if (entry.filterValues.length === 0) throw validationError(`${at}.filterValues`, `${at}.filterValues needs at least one value`);
    const conditions = entry.filterValues.map((v, j) => condition(entry.fieldName, field, v, `${at}.filterValues.${j}`));
    and.push(conditions.length === 1 ? conditions[0] : entry.operator === 'OR' ? { $or: conditions } : { $and: conditions });
  });
  const sorts = query?.sort?.length ? query.sort.map((s) => [s.fieldName, s.sortDirection ?? 'ASC'] as const) : resource.defaultSort;
  const keys: SortKey[] = sorts.map(([name, direction], i) => {
    const field = Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined;
    if (!field) throw validationError(`${base}.sort.${i}.fieldName`, `unknown sort field "${name}"`);
    // A list sorts by its first element; an empty list has none (NULL).
    if (field.array) return { property: firstElementOf(field.property), kind: field.kind, nullable: true, direction };
    return { property: field.property, kind: field.kind, nullable: field.nullable ?? false, integer: field.integer ?? false, direction };
  });
  // Ties go by offchain id in the direction of the last sort field, so one index (field, id) serves the
  // field's sort both ways (read backwards for DESC) and the keyset bound can start from it.
  keys.push({ property: resource.idProperty, kind: 'UUID', nullable: false, direction: keys[keys.length - 1]?.direction ?? 'ASC' });
  const orderBy = keys.map((key) => atPath(key.property, key.direction === 'DESC' ? 'desc' : 'asc'));
  const fingerprint = queryFingerprint({ fields: Object.keys(resource.fields), filter: query?.filter ?? [], sort: sorts });
  let after: Condition | undefined;
  let afterRow: RowBound | undefined;
  if (query?.cursor !== undefined) {
    if (query.skip)
      throw validationError(`${base}.skip`, `${base}.skip cannot be combined with ${base}.cursor: the cursor already names where the page starts`);
    const values = decodeCursor(query.cursor, fingerprint, keys, `${base}.cursor`);
    after = afterCursor(keys, values);
    afterRow = rowAfterCursor(keys, values);
  }
  return {
    where: and.length === 1 ? and[0] : { $and: and },
    ...(after ? { after } : {}),
    ...(afterRow ? { afterRow } : {}),
    orderBy,
    keyProperties: [...new Set(keys.map((key) => (listOfFirstElement(key.property) ?? key.property).split('.')[0]!))],
    limit,
    offset: query?.skip ?? 0,
    cursorAfter: (row) => encodeCursor(fingerprint, keys, row),
  };
}
