/**
 * io-ts building blocks for response bodies. Each carries its JSON Schema, so the response schemas
 * of the OpenAPI document come from the same codecs that type the presenters (`t.TypeOf`) and that
 * decode real answers in the tests: the document cannot drift from what the service answers.
 *
 * A codec's type is what a presenter holds before the body is written: amounts as LosslessNumber
 * (written as JSON numbers with their exact decimal text), base units as bigint, times as Date (or
 * ISO text). Decoding accepts those and their JSON form, so a test can decode a parsed answer.
 * This is the one place the response codecs import the request primitives from.
 */
import * as t from 'io-ts';
import { isLosslessNumber, LosslessNumber } from 'lossless-json';
import { address, describe, objectShapes, patternText, reportErrors, schemaOf as ownSchema, strictObject, uuid, type JsonSchema } from '../inputs/primitives';

export { address, describe, reportErrors, strictObject, uuid, type JsonSchema };

/** How the document turns a codec into a schema; given to composite codecs for their members. */
export type SchemaOf = (codec: t.Mixed) => JsonSchema;

/** Schemas of codecs made of other codecs (nullable, one of several), built from their members' schemas. */
export const composedSchemas = new WeakMap<t.Mixed, (schemaOf: SchemaOf) => JsonSchema>();

function composed<C extends t.Mixed>(codec: C, schema: (schemaOf: SchemaOf) => JsonSchema): C {
  composedSchemas.set(codec, schema);
  return codec;
}

/** An object shown in place rather than as a named component (small parts of one schema). */
export function inline<C extends t.Mixed>(codec: C): C {
  const shape = objectShapes.get(codec);
  if (!shape) throw new Error(`${codec.name} is not a strictObject`);
  return composed(codec, (schemaOf) => ({
    type: 'object',
    ...ownSchema(codec),
    properties: Object.fromEntries([...Object.entries(shape.required), ...Object.entries(shape.optional)].map(([key, c]) => [key, schemaOf(c)])),
    ...(Object.keys(shape.required).length ? { required: Object.keys(shape.required) } : {}),
    additionalProperties: false,
  }));
}

/** The value, or null. */
export function nullable<C extends t.Mixed>(codec: C) {
  return composed(t.union([codec, t.null]), (schemaOf) => {
    const inner = schemaOf(codec);
    if (typeof inner.type === 'string') return { ...inner, type: [inner.type, 'null'], ...(Array.isArray(inner.enum) ? { enum: [...inner.enum, null] } : {}) };
    return { oneOf: [inner, { type: 'null' }] };
  });
}

/**
 * One of several shapes. Their objects refuse unknown properties, so exactly one matches a value;
 * documented as anyOf because linters cannot prove that exclusivity through nested objects.
 */
export function oneOfShapes<A extends t.Mixed, B extends t.Mixed, R extends t.Mixed[]>(members: [A, B, ...R], description?: string) {
  return composed(t.union(members), (schemaOf) => ({ anyOf: members.map(schemaOf), ...(description ? { description } : {}) }));
}

/** A list of items of one shape. */
export function listOf<C extends t.Mixed>(item: C, description?: string) {
  return composed(t.array(item), (schemaOf) => ({ type: 'array', items: schemaOf(item), ...(description ? { description } : {}) }));
}

/** An object whose keys are free and whose values have one shape. */
export function mapOf<C extends t.Mixed>(value: C, description?: string) {
  return composed(t.record(t.string, value), (schemaOf) => ({
    type: 'object',
    additionalProperties: schemaOf(value),
    ...(description ? { description } : {}),
  }));
}

/** Text from a documented set. Typed as string (records keep text columns); decoding checks the set. */
export function textEnum(values: readonly string[], description?: string) {
  const set = new Set(values);
  return describe(
    new t.Type<string, string, unknown>(
      'TextEnum',
      (u): u is string => typeof u === 'string' && set.has(u),
      (u, c) => (typeof u === 'string' && set.has(u) ? t.success(u) : t.failure(u, c, `must be one of ${values.join(', ')}`)),
      (a) => a,
    ),
    { type: 'string', enum: [...values], ...(description ? { description } : {}) },
  );
}

/** One fixed text. */
export function constant<const V extends string>(value: V, description?: string) {
  return describe(
    new t.Type<V, V, unknown>(
      `Constant<${value}>`,
      (u): u is V => u === value,
      (u, c) => (u === value ? t.success(value) : t.failure(u, c, `must be ${value}`)),
      (a) => a,
    ),
    { type: 'string', const: value, ...(description ? { description } : {}) },
  );
}

export function textWith(description: string) {
  return describe(new t.Type<string, string, unknown>('Text', t.string.is, t.string.validate, (a) => a), { type: 'string', description });
}

export const boolean = t.boolean;

/** A safe integer (sizes, counts, decimals). */
export const integer = describe(
  new t.Type<number, number, unknown>(
    'Integer',
    (u): u is number => Number.isSafeInteger(u),
    (u, c) => {
      const n = isLosslessNumber(u) ? Number((u as LosslessNumber).value) : u;
      return Number.isSafeInteger(n) ? t.success(n as number) : t.failure(u, c, 'must be an integer');
    },
    (a) => a,
  ),
  { type: 'integer' },
);

export const EXACT_DECIMAL =
  'An exact decimal in UI units, written as a JSON number with its exact decimal text (never rounded through a binary float): read it with a lossless JSON parser or as a decimal to keep every digit.';

/** A decimal amount: a JSON number whose text is exact. */
export const exactAmount = describe(
  new t.Type<LosslessNumber, LosslessNumber, unknown>(
    'ExactAmount',
    (u): u is LosslessNumber => isLosslessNumber(u),
    (u, c) =>
      isLosslessNumber(u)
        ? t.success(u as LosslessNumber)
        : typeof u === 'number' && Number.isFinite(u)
          ? t.success(new LosslessNumber(String(u)))
          : t.failure(u, c, 'must be a decimal number'),
    (a) => a,
  ),
  { type: 'number', description: EXACT_DECIMAL },
);

/** A decimal kept as text in a stored setting (debit limits keep the text they were given). */
export const decimalString = describe(
  new t.Type<string, string, unknown>(
    'DecimalString',
    (u): u is string => typeof u === 'string',
    (u, c) => (typeof u === 'string' && /^-?\d+(\.\d+)?$/.test(u) ? t.success(u) : t.failure(u, c, 'must be decimal text')),
    (a) => a,
  ),
  { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'An exact decimal as text, as it was given.' },
);

export const BASE_UNITS =
  "Integer base units (lamports, or the token's smallest unit), up to 2^64 − 1: read it with a lossless JSON parser or as a big integer, a double loses digits above 2^53.";

/** Base units (u64), written as a JSON integer. */
export const baseUnits = describe(
  new t.Type<bigint, bigint, unknown>(
    'BaseUnits',
    (u): u is bigint => typeof u === 'bigint',
    (u, c) => {
      const text =
        typeof u === 'bigint'
          ? String(u)
          : isLosslessNumber(u)
            ? (u as LosslessNumber).value
            : typeof u === 'number' && Number.isInteger(u)
              ? String(u)
              : undefined;
      return text !== undefined && /^\d+$/.test(text) ? t.success(BigInt(text)) : t.failure(u, c, 'must be a non-negative integer');
    },
    (a) => a,
  ),
  { type: 'integer', minimum: 0, description: BASE_UNITS },
);

/** A point in time, written as ISO 8601 text with milliseconds (UTC). */
export const timestamp = describe(
  new t.Type<Date | string, string, unknown>(
    'Timestamp',
    (u): u is Date | string => u instanceof Date || typeof u === 'string',
    (u, c) =>
      u instanceof Date
        ? t.success(u)
        : typeof u === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(u) && !Number.isNaN(Date.parse(u))
          ? t.success(u)
          : t.failure(u, c, 'must be an ISO 8601 timestamp'),
    (a) => (a instanceof Date ? a.toISOString() : a),
  ),
  { type: 'string', format: 'date-time' },
);

/** A transaction signature (base58 of 64 bytes): the transaction's onchain id. */
export const signature = patternText(
  'Signature',
  /^[1-9A-HJ-NP-Za-km-z]{64,88}$/,
  'a base58 transaction signature',
  "Transaction signature (base58), the transaction's onchain id.",
);

/** Any JSON object (free-form metadata). */
export const freeObject = describe(
  new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
    'FreeObject',
    (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
    (u, c) => (typeof u === 'object' && u !== null && !Array.isArray(u) ? t.success(u as Record<string, unknown>) : t.failure(u, c, 'must be an object')),
    (a) => a,
  ),
  { type: 'object', additionalProperties: true },
);

/** A free-form object with its own description. */
export function freeObjectWith(description: string) {
  return describe(new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>('FreeObject', freeObject.is, freeObject.validate, (a) => a), {
    type: 'object',
    additionalProperties: true,
    description,
  });
}

/** A string map (onchain custom metadata). */
export const stringMap = mapOf(t.string);

/** The `cursor` of a bulk answer (keyset paging; see domain/keyset.ts). */
export const pageCursor = textWith(
  "Present when the page has records: send it back as itemQuery.cursor (same filter and sort) for the records after this page's last one. A page with fewer records than limit is the last one for now.",
);

/** A bulk answer's `countIsLowerBound` (count is exact up to 10,000 matching records). */
export const countIsLowerBound = describe(
  new t.Type<true, true, unknown>(
    'CountIsLowerBound',
    (u): u is true => u === true,
    (u, c) => (u === true ? t.success(true) : t.failure(u, c, 'must be true')),
    (a) => a,
  ),
  {
    type: 'boolean',
    const: true,
    description:
      'Present (true) when more than 10,000 records match: count then stops at 10,000 and is a lower bound, so that every page answers in the same few milliseconds however many records match. Absent: count is exact.',
  },
);
