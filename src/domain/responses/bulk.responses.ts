/**
 * Bulk answers `{count, items}` (spec 4.1). One operation serves the three detail levels, so
 * `items` is one of the three record shapes, named after the level (AccountIdentifiers is
 * RecordIdentifiers, AccountCompact, AccountDetailed): each refuses the others' properties, so
 * exactly one matches an item. A test decodes real answers with the level's own codec.
 */
import * as t from 'io-ts';
import { integer, listOf, oneOfShapes, pageCursor, countIsLowerBound, strictObject } from './building-blocks';

export interface BulkLevels {
  identifiers: t.Mixed;
  compact: t.Mixed;
  detailed: t.Mixed;
}

/** What `present` returns at any level. */
export type LevelRecord<L extends BulkLevels> = t.TypeOf<L['identifiers']> | t.TypeOf<L['compact']> | t.TypeOf<L['detailed']>;

/** `{count, items}` of one page of records (with cursor and countIsLowerBound when they apply): the envelope of every bulk read. */
export function recordPage<C extends t.Mixed>(component: string, item: C, description: string) {
  return strictObject(component, { count: integer, items: listOf(item) }, { cursor: pageCursor, countIsLowerBound }, description);
}

const made = new WeakMap<BulkLevels, t.Mixed>();

/** `{count, items}` with the items of the detail level in the path. */
export function bulkResponse<L extends BulkLevels>(levels: L) {
  const existing = made.get(levels);
  if (existing) return existing as ReturnType<typeof build<L>>;
  const codec = build(levels);
  made.set(levels, codec);
  return codec;
}

function build<L extends BulkLevels>(levels: L) {
  const detailed = levels.detailed.name;
  const name = detailed.replace(/Detailed$/, '');
  return recordPage(
    `${name}Page`,
    oneOfShapes(
      [levels.identifiers, levels.compact, levels.detailed],
      `A ${name} record at the detail level of the path: identifiers → ${levels.identifiers.name}, compact → ${levels.compact.name}, detailed → ${detailed} (each refuses the others' properties, so exactly one matches).`,
    ) as t.Type<LevelRecord<L>, unknown, unknown>,
    `One page of ${name} records: count is the number of records that match the filter (all pages; exact up to 10,000, see countIsLowerBound); items are this page, at the detail level of the path; cursor continues after it.`,
  );
}
