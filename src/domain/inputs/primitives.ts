/**
 * io-ts building blocks that carry their own OpenAPI (JSON Schema) description, so the document
 * served at /api/v1/openapi.json is built from the very codecs that validate requests.
 * Bodies are parsed losslessly: JSON numbers arrive as LosslessNumber and keep their exact text.
 */
import * as t from 'io-ts';
import { isLosslessNumber, type LosslessNumber } from 'lossless-json';

export type JsonSchema = Record<string, unknown>;

const schemas = new WeakMap<t.Mixed, JsonSchema>();

/** Attaches a JSON Schema to a codec (used where the io-ts structure alone says too little). */
export function describe<C extends t.Mixed>(codec: C, schema: JsonSchema): C {
  schemas.set(codec, { ...(schemas.get(codec) ?? {}), ...schema });
  return codec;
}

export function schemaOf(codec: t.Mixed): JsonSchema | undefined {
  return schemas.get(codec);
}

const numberText = (u: unknown): string | undefined =>
  isLosslessNumber(u) ? (u as LosslessNumber).value : typeof u === 'number' && Number.isFinite(u) ? String(u) : undefined;

/** A decimal amount, kept as its exact text ("123456789012345678.000001"). */
export const decimalText = describe(
  new t.Type<string, string, unknown>(
    'DecimalText',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      const text = numberText(u) ?? (typeof u === 'string' && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(u) ? u.trim() : undefined);
      return text === undefined ? t.failure(u, c, 'must be a decimal number') : t.success(text);
    },
    (a) => a,
  ),
  {
    type: ['number', 'string'],
    pattern: '^\\s*-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?\\s*$',
    description:
      'An exact decimal, never rounded: bodies are parsed losslessly, so a JSON number keeps its exact decimal text (123456789012345678.000001 stays as written). It may also be sent as a string of decimal text ("123456789012345678.000001").',
  },
);

/** A non-negative decimal amount (what a value moves), kept as its exact text; refused at the shape, before any lookup. */
export const amountText = describe(
  new t.Type<string, string, unknown>(
    'AmountText',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      const decoded = decimalText.validate(u, c);
      if (decoded._tag === 'Left') return decoded;
      return decoded.right.startsWith('-') && !/^-0*(\.0*)?([eE][+-]?\d+)?$/.test(decoded.right) ? t.failure(u, c, 'must not be negative') : decoded;
    },
    (a) => a,
  ),
  {
    ...schemaOf(decimalText),
    pattern: '^\\s*\\d+(\\.\\d+)?([eE][+-]?\\d+)?\\s*$',
    description: 'A non-negative exact decimal, never rounded: a JSON number keeps its exact decimal text, or send a string of decimal text.',
  },
);

/** A non-negative integer of base units (lamports), kept as its exact text; large values are fine. */
export const integerText = describe(
  new t.Type<string, string, unknown>(
    'IntegerText',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      const text = numberText(u) ?? (typeof u === 'string' ? u.trim() : undefined);
      return text !== undefined && /^\d+$/.test(text) ? t.success(text) : t.failure(u, c, 'must be a non-negative integer');
    },
    (a) => a,
  ),
  {
    type: ['integer', 'string'],
    minimum: 0,
    pattern: '^\\s*\\d+\\s*$',
    description:
      "Integer base units (lamports, or the token's smallest unit), up to 2^64 − 1: a JSON integer (parsed losslessly, never through a double) or a string of digits.",
  },
);

/** A safe integer within [min, max]. */
export function integer(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return describe(
    new t.Type<number, number, unknown>(
      'Integer',
      (u): u is number => typeof u === 'number' && Number.isInteger(u),
      (u, c) => {
        const text = numberText(u);
        const n = text !== undefined && /^-?\d+$/.test(text) ? Number(text) : NaN;
        if (!Number.isSafeInteger(n)) return t.failure(u, c, 'must be an integer');
        if (n < min || n > max) return t.failure(u, c, `must be between ${min} and ${max}`);
        return t.success(n);
      },
      (a) => a,
    ),
    { type: 'integer', ...(min > Number.MIN_SAFE_INTEGER ? { minimum: min } : {}), ...(max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {}) },
  );
}

/** A JSON number that fits a double (for non-money values such as multipliers and ratios). */
export const float = describe(
  new t.Type<number, number, unknown>(
    'Number',
    (u): u is number => typeof u === 'number',
    (u, c) => {
      const text = numberText(u);
      return text === undefined ? t.failure(u, c, 'must be a number') : t.success(Number(text));
    },
    (a) => a,
  ),
  { type: 'number' },
);

/** Any JSON value; lossless numbers become plain numbers (or exact text when a double cannot hold them). */
export const jsonValue: t.Type<unknown, unknown, unknown> = describe(
  new t.Type<unknown, unknown, unknown>(
    'JsonValue',
    (_u): _u is unknown => true,
    (u) => t.success(plainJson(u)),
    (a) => a,
  ),
  {},
);

export const jsonObject = describe(
  new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
    'JsonObject',
    (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
    (u, c) =>
      typeof u === 'object' && u !== null && !Array.isArray(u) && !isLosslessNumber(u)
        ? t.success(plainJson(u) as Record<string, unknown>)
        : t.failure(u, c, 'must be an object'),
    (a) => a,
  ),
  { type: 'object', additionalProperties: true },
);

export function plainJson(u: unknown): unknown {
  if (isLosslessNumber(u)) {
    const n = Number((u as LosslessNumber).value);
    return String(n) === (u as LosslessNumber).value || Number.isSafeInteger(n) ? n : (u as LosslessNumber).value;
  }
  if (Array.isArray(u)) return u.map(plainJson);
  if (typeof u === 'object' && u !== null) return Object.fromEntries(Object.entries(u).map(([k, v]) => [k, plainJson(v)]));
  return u;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const uuid = describe(
  new t.Type<string, string, unknown>(
    'Uuid',
    (u): u is string => typeof u === 'string' && UUID.test(u),
    (u, c) => (typeof u === 'string' && UUID.test(u) ? t.success(u.toLowerCase()) : t.failure(u, c, 'must be a UUID')),
    (a) => a,
  ),
  { type: 'string', format: 'uuid' },
);

/** Text that matches a pattern, kept as written; `mustBe` completes the refusal ("must be …"). */
export function patternText(name: string, pattern: RegExp, mustBe: string, description: string) {
  return describe(
    new t.Type<string, string, unknown>(
      name,
      (u): u is string => typeof u === 'string' && pattern.test(u),
      (u, c) => (typeof u === 'string' && pattern.test(u) ? t.success(u) : t.failure(u, c, `must be ${mustBe}`)),
      (a) => a,
    ),
    { type: 'string', pattern: pattern.source, description },
  );
}

/** A network address (base58 of 32 bytes). */
export const address = patternText('Address', /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 network address', 'Network address (base58).');

export function nonEmptyString(maxLength = 1000) {
  return describe(
    new t.Type<string, string, unknown>(
      'NonEmptyString',
      (u): u is string => typeof u === 'string',
      (u, c) =>
        typeof u === 'string' && u.length > 0 && u.length <= maxLength ? t.success(u) : t.failure(u, c, `must be a string of 1 to ${maxLength} characters`),
      (a) => a,
    ),
    { type: 'string', minLength: 1, maxLength },
  );
}

export const text = nonEmptyString(10000);

/** An absolute http(s) URL. */
export const httpUrl = describe(
  new t.Type<string, string, unknown>(
    'HttpUrl',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      if (typeof u !== 'string' || u.length > 2000) return t.failure(u, c, 'must be an http(s) URL of at most 2000 characters');
      try {
        const url = new URL(u);
        return url.protocol === 'http:' || url.protocol === 'https:' ? t.success(u) : t.failure(u, c, 'must be an http(s) URL');
      } catch {
        return t.failure(u, c, 'must be an http(s) URL');
      }
    },
    (a) => a,
  ),
  { type: 'string', format: 'uri', maxLength: 2000 },
);

export function oneOf<const V extends string>(values: readonly V[], name = 'Enum') {
  const set = new Set<string>(values);
  return describe(
    new t.Type<V, V, unknown>(
      name,
      (u): u is V => typeof u === 'string' && set.has(u),
      (u, c) => (typeof u === 'string' && set.has(u) ? t.success(u as V) : t.failure(u, c, `must be one of ${values.join(', ')}`)),
      (a) => a,
    ),
    { type: 'string', enum: [...values] },
  );
}

/** An array with a bounded length. */
export function arrayOf<C extends t.Mixed>(item: C, maxItems = 1000) {
  const base = t.array(item);
  const codec = new t.Type<t.TypeOf<C>[], t.OutputOf<C>[], unknown>(
    `Array<${item.name}>`,
    base.is,
    (u, c) => (Array.isArray(u) && u.length > maxItems ? t.failure(u, c, `must have at most ${maxItems} items`) : base.validate(u, c)),
    base.encode,
  );
  arrayItems.set(codec, item);
  return describe(codec, { maxItems });
}
export const arrayItems = new WeakMap<t.Mixed, t.Mixed>();

type Props = Record<string, t.Mixed>;
type StrictObjectOf<R extends Props, O extends Props> = { [K in keyof R]: t.TypeOf<R[K]> } & { [K in keyof O]?: t.TypeOf<O[K]> };
type StrictObject<R extends Props, O extends Props> = t.Type<StrictObjectOf<R, O>, unknown, unknown>;

export interface ObjectShape {
  required: Props;
  optional: Props;
}
export const objectShapes = new WeakMap<t.Mixed, ObjectShape>();

/**
 * An object with required and optional properties that refuses properties it does not know,
 * so a misspelt field is a 400 naming it rather than silently ignored.
 */
export function strictObject<R extends Props, O extends Props>(name: string, required: R, optional: O, description?: string): StrictObject<R, O> {
  const known = new Set([...Object.keys(required), ...Object.keys(optional)]);
  const codec: StrictObject<R, O> = new t.Type(
    name,
    (u): u is StrictObjectOf<R, O> => typeof u === 'object' && u !== null,
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u) || isLosslessNumber(u)) return t.failure(u, c, 'must be an object');
      const input = u as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const errors: t.Errors = [];
      for (const key of Object.keys(input)) {
        if (!known.has(key)) errors.push({ value: input[key], context: [...c, { key, type: t.never, actual: input[key] }], message: 'is not a known field' });
      }
      for (const [key, codec] of Object.entries(required)) {
        const result = codec.validate(input[key], [...c, { key, type: codec, actual: input[key] }]);
        if (result._tag === 'Left')
          errors.push(
            ...(input[key] === undefined
              ? [{ value: undefined, context: [...c, { key, type: codec, actual: undefined }], message: 'is required' }]
              : result.left),
          );
        else out[key] = result.right;
      }
      for (const [key, codec] of Object.entries(optional)) {
        if (input[key] === undefined || input[key] === null) continue;
        const result = codec.validate(input[key], [...c, { key, type: codec, actual: input[key] }]);
        if (result._tag === 'Left') errors.push(...result.left);
        else out[key] = result.right;
      }
      return errors.length ? t.failures(errors) : t.success(out as StrictObjectOf<R, O>);
    },
    (a) => a,
  );
  objectShapes.set(codec, { required, optional });
  if (description) describe(codec, { description });
  return codec;
}

export interface ValidationIssue {
  field: string;
  message: string;
}

/** Turns io-ts errors into `{field: "itemData.value.amount", message}` pairs, first error per field. */
export function reportErrors(errors: t.Errors): ValidationIssue[] {
  const seen = new Map<string, string>();
  for (const error of errors) {
    const path = error.context
      .map((entry) => entry.key)
      .filter((key) => key !== '')
      .join('.');
    const field = path || '(body)';
    if (!seen.has(field)) seen.set(field, error.message ?? `is invalid (expected ${error.context[error.context.length - 1]?.type.name})`);
  }
  return [...seen].map(([field, message]) => ({ field, message }));
}
