/** The OpenAPI 3.1 document, built from the route declarations and their io-ts codecs. */
import * as t from 'io-ts';
import { errorCodes } from '../domain/errors';
import { arrayItems, objectShapes, schemaOf, type JsonSchema } from '../domain/inputs/primitives';
import type { RouteSpec } from './route';
import { composedSchemas } from '../domain/responses/building-blocks';
import { codesOf, errorBody } from '../domain/responses/error.responses';
import { acceptedWrite } from '../domain/responses/write.responses';
import { operationExamples } from '../domain/examples/operation-examples';

/** Which codec each component name was made from: two codecs of one name would silently share a schema. */
const componentOwners = new WeakMap<Record<string, JsonSchema>, Map<string, t.Mixed>>();

export function codecSchema(codec: t.Mixed, components: Record<string, JsonSchema>): JsonSchema {
  const composed = composedSchemas.get(codec);
  if (composed) return composed((c) => codecSchema(c, components));
  const shape = objectShapes.get(codec);
  if (shape) {
    const name = codec.name;
    const owners = componentOwners.get(components) ?? new Map<string, t.Mixed>();
    componentOwners.set(components, owners);
    const owner = owners.get(name);
    if (owner && owner !== codec) throw new Error(`two codecs are named ${name}: give one another name`);
    if (!owner) {
      owners.set(name, codec);
      components[name] = {};
      const properties: Record<string, JsonSchema> = {};
      for (const [key, c] of [...Object.entries(shape.required), ...Object.entries(shape.optional)]) properties[key] = codecSchema(c, components);
      components[name] = {
        type: 'object',
        ...schemaOf(codec),
        properties,
        ...(Object.keys(shape.required).length ? { required: Object.keys(shape.required) } : {}),
        additionalProperties: false,
      };
    }
    return { $ref: `#/components/schemas/${name}` };
  }
  const items = arrayItems.get(codec);
  if (items) return { type: 'array', items: codecSchema(items, components), ...schemaOf(codec) };
  const own = schemaOf(codec);
  if (own) return own;
  if (codec instanceof t.StringType) return { type: 'string' };
  if (codec instanceof t.BooleanType) return { type: 'boolean' };
  if (codec instanceof t.NumberType) return { type: 'number' };
  if (codec instanceof t.ArrayType) return { type: 'array', items: codecSchema(codec.type, components) };
  return {};
}

/** What each error status means, beside the codes the one code→status table gives it. */
const errorMeanings: Record<number, { name: string; meaning: string; example: { code: string; message: string; field?: string } }> = {
  400: {
    name: 'BadRequest',
    meaning: 'Invalid request (the field at fault in errors[0].field), or a write refused before anything was signed.',
    example: { code: 'VALIDATION_ERROR', message: 'itemData.value.amount must be a decimal number', field: 'itemData.value.amount' },
  },
  401: {
    name: 'Unauthenticated',
    meaning: 'No Authorization: Bearer <api key>, or an unknown key.',
    example: { code: 'UNAUTHENTICATED', message: 'send Authorization: Bearer <api key>' },
  },
  403: {
    name: 'Forbidden',
    meaning: 'The API key lacks the role, or acts outside its tenant.',
    example: { code: 'FORBIDDEN', message: 'this API key lacks the role LEDGER_WRITE' },
  },
  404: {
    name: 'NotFound',
    meaning: 'A looked-up object (or the organization of tenancyConfig) does not exist for this tenant.',
    example: { code: 'NOT_FOUND', message: 'no account matches itemData.account', field: 'itemData.account' },
  },
  409: {
    name: 'Conflict',
    meaning: 'The object exists already, or the idempotency key was used for another request.',
    example: { code: 'CONFLICT', message: 'itemData.idempotencyId was already used for another MINT request; use a new one', field: 'itemData.idempotencyId' },
  },
  413: { name: 'PayloadTooLarge', meaning: 'The body is over 1 MiB.', example: { code: 'PAYLOAD_TOO_LARGE', message: 'the body is over 1048576 bytes' } },
  415: {
    name: 'UnsupportedMediaType',
    meaning: 'The body was declared as something other than JSON (Content-Type).',
    example: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'the body must be application/json, not text/plain', field: '(body)' },
  },
  429: {
    name: 'RateLimited',
    meaning:
      "Over the API key's rate (default 100 requests/s, bursts of 200, shared by all API processes), or too many requests without a valid key from this address (default 20 a minute); retry after Retry-After seconds.",
    example: { code: 'RATE_LIMITED', message: 'over 100 requests per second for this API key' },
  },
  500: {
    name: 'InternalError',
    meaning: 'A fault of the service; the message never holds a stack trace or a secret.',
    example: { code: 'INTERNAL', message: 'internal error' },
  },
  502: { name: 'NetworkError', meaning: 'The network (RPC) failed the request.', example: { code: 'NETWORK_ERROR', message: 'the network did not answer' } },
  503: {
    name: 'Unavailable',
    meaning: 'A service the write needs (PostgreSQL, Temporal, the network) did not answer in time; nothing was sent.',
    example: { code: 'UNAVAILABLE', message: 'a service the write needs did not answer: fetch failed' },
  },
};

const requestIdHeader = { description: 'The request id: x-request-id as sent, or one generated.', schema: { type: 'string' } };
/** draft-ietf-httpapi-ratelimit-headers-08, on every answer to an authenticated route (docs/rate-limits.md). */
const rateLimitPolicyHeader = {
  description: 'The limit that applies: `"api-key";q=<requests>;w=<seconds>` (a valid key), or `"unknown-keys";…` (failed authentications from this address).',
  schema: { type: 'string' },
};
const rateLimitHeader = {
  description: 'What is left of it: `"api-key";r=<requests remaining>;t=<seconds until the window ends>`.',
  schema: { type: 'string' },
};
/** The headers of every answer of a route: the request id, and the RateLimit fields where a key is needed. */
const answerHeaders = (authenticated: boolean) => ({
  'x-request-id': { $ref: '#/components/headers/XRequestId' },
  ...(authenticated ? { 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' }, RateLimit: { $ref: '#/components/headers/RateLimit' } } : {}),
});

function errorResponses(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(errorMeanings).map(([status, { name, meaning, example }]) => [
      name,
      {
        description: `${meaning} Codes: ${codesOf(Number(status)).join(', ')}.`,
        headers: {
          ...answerHeaders(status === '429'),
          ...(status === '429' ? { 'Retry-After': { description: 'Seconds to wait before the next request.', schema: { type: 'integer', minimum: 1 } } } : {}),
        },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/ErrorBody' },
            example: { errors: [example], requestId: '9f2c4e1a-5b7d-4c3e-8a1f-2d6b0e9c7a41' },
          },
        },
      },
    ]),
  );
}

/** The error statuses a route can answer, from what kind of route it is (docs/behaviour/errors.md). */
export function errorStatuses(spec: RouteSpec): number[] {
  // x-request-id is checked on every route, so every route can answer 400.
  const statuses = new Set([400, 500]);
  if (spec.role !== null) [401, 403, 429].forEach((s) => statuses.add(s));
  if (spec.body) [413, 415].forEach((s) => statuses.add(s));
  const bodyShape = spec.body && objectShapes.get(spec.body);
  const freePathParams = [...spec.path.matchAll(/\{(\w+)\}/g)].some(([, name]) => !spec.pathParams?.[name]);
  if ((bodyShape && 'tenancyConfig' in bodyShape.optional) || freePathParams) statuses.add(404);
  if (spec.write) [404, 409, 503].forEach((s) => statuses.add(s));
  return [...statuses].sort();
}

function pathParameters(spec: RouteSpec): JsonSchema[] {
  return [...spec.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const values = spec.pathParams?.[name];
    if (values) {
      return {
        name,
        in: 'path',
        required: true,
        schema: { type: 'string', enum: values },
        ...(name === 'detailLevel' ? { description: 'identifiers: onchain and offchain ids; compact: the reduced record; detailed: everything.' } : {}),
        example: values.includes('compact') ? 'compact' : values[0],
      };
    }
    const { description, ...schema }: JsonSchema = spec.pathParamSchemas?.[name] ?? { type: 'string' };
    return {
      name,
      in: 'path',
      required: true,
      schema,
      ...(description ? { description } : {}),
      ...(schema.format === 'uuid' ? { example: '3b9f5c2e-8d41-4f6a-9c07-1e2d3f4a5b6c' } : {}),
    };
  });
}

const tagDescriptions: Record<string, string> = {
  System: 'Health, readiness, metrics and this document.',
  Accounts: 'Blockchain accounts (wallets, authorities), managed or not, and network-currency transfers.',
  'Financial instruments': 'Token mints (SPL or Token-2022) and their extensions.',
  Positions: 'Token accounts of one owner for one instrument: mint, burn, transfer, trade, freeze.',
  Transactions: 'The network transactions every write makes, and their statuses.',
  Files: 'Files the service keeps (instrument logos).',
  'Address lookup tables': "Tables of addresses that shrink the organization's transactions (v0 messages); create, extend, freeze, deactivate, close.",
  Approvals:
    'Debits over a debit limit that names approversForOverride wait in AWAITING_APPROVAL until approved, rejected, timed out or cancelled (docs/approvals.md).',
};

export function buildOpenApi(routes: RouteSpec[], platformName: string): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  codecSchema(errorBody, components);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of routes) {
    const parameters: JsonSchema[] = pathParameters(spec);
    if (spec.role !== null && spec.usesCluster !== false) {
      parameters.push({
        name: 'svmCluster',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description: 'Network cluster (e.g. LOCAL, SOLANA_DEVNET); the default cluster when omitted.',
        example: 'LOCAL',
      });
    }
    parameters.push({
      name: 'x-request-id',
      in: 'header',
      required: false,
      schema: { type: 'string', maxLength: 200 },
      description: 'Echoed back; for writes without idempotencyId or Idempotency-Key it is the idempotency key.',
    });
    if (spec.write)
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', maxLength: 202 },
        description:
          'The idempotency key of a write without itemData.idempotencyId (1 to 200 printable ASCII characters, optionally in double quotes); a different idempotencyId beside it is 400.',
      });
    if (spec.write)
      parameters.push({
        name: 'Prefer',
        in: 'header',
        required: false,
        schema: { type: 'string', enum: ['respond-async'] },
        description: 'Answer 202 at once with the transaction offchainId.',
      });
    const examples = spec.examples ?? operationExamples[spec.operationId];
    const success = spec.response;
    const successContent = isCodec(success)
      ? { 'application/json': { schema: codecSchema(success, components), ...(examples ? { example: examples.response } : {}) } }
      : {
          [success.mediaType]: {
            schema: success.schema,
            ...((success.example ?? examples?.response) !== undefined ? { example: success.example ?? examples?.response } : {}),
          },
        };
    const responses: Record<string, JsonSchema> = {
      [String(spec.successStatus)]: {
        description: isCodec(success) ? ((schemaOf(success)?.description as string | undefined) ?? 'Success') : success.description,
        headers: answerHeaders(spec.role !== null),
        content: successContent,
      },
    };
    if (spec.write)
      responses['202'] = {
        description: 'Accepted (Prefer: respond-async, or still running when the wait is over): read the status with fetchTransactionStatus.',
        headers: answerHeaders(spec.role !== null),
        content: {
          'application/json': {
            schema: codecSchema(acceptedWrite, components),
            example: { transaction: { offchainId: '5d0e8f6a-3c2b-4e1d-9a7f-6b8c0d1e2f3a', status: 'PENDING' } },
          },
        },
      };
    for (const [status, other] of Object.entries(spec.otherResponses ?? {})) {
      responses[status] = {
        description: other.description,
        headers: answerHeaders(spec.role !== null),
        content: {
          'application/json': {
            schema: codecSchema(other.body, components),
            ...(examples?.otherResponses?.[status] !== undefined ? { example: examples.otherResponses[status] } : {}),
          },
        },
      };
    }
    for (const status of errorStatuses(spec)) if (!responses[status]) responses[status] = { $ref: `#/components/responses/${errorMeanings[status].name}` };
    paths[spec.path] = paths[spec.path] ?? {};
    paths[spec.path][spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      description: spec.role
        ? `Needs role ${[spec.role]
            .flat()
            .map((role) => `${platformName}_${role}`)
            .join(' or ')} (or ${platformName}_ADMIN).`
        : 'No authentication.',
      ...(spec.role === null ? { security: [] } : {}),
      parameters,
      ...(spec.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: codecSchema(spec.body, components), ...(examples?.request !== undefined ? { example: examples.request } : {}) },
              },
            },
          }
        : {}),
      responses,
    };
  }
  const usedErrors = new Set(routes.flatMap((spec) => errorStatuses(spec).map((s) => errorMeanings[s].name)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ledger Asset Service API',
      version: '1.0.0',
      description: [
        'Offchain records beside onchain objects on SVM networks; every write is one Temporal workflow.',
        'Amounts are exact decimals end to end: request bodies are parsed losslessly (send a JSON number or a string of decimal text), and answers write amounts as JSON numbers with their exact decimal text, lamports as JSON integers; parse answers losslessly to keep every digit.',
        `Errors answer {"errors": [{"code", "message", "field"}], "requestId"}; codes: ${errorCodes.join(', ')}.`,
      ].join('\n\n'),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'The service that serves this document (every instance does, at /api/v1/openapi.json).' }],
    security: [{ bearer: [] }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: tagDescriptions[name] ?? name })),
    paths,
    components: {
      schemas: components,
      responses: Object.fromEntries(Object.entries(errorResponses()).filter(([name]) => usedErrors.has(name))),
      headers: { XRequestId: requestIdHeader, RateLimitPolicy: rateLimitPolicyHeader, RateLimit: rateLimitHeader },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key made with `npm run cli -- api-keys create`.' } },
    },
  };
}

function isCodec(response: RouteSpec['response']): response is t.Mixed {
  return response instanceof t.Type;
}
