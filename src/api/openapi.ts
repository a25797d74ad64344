/** The OpenAPI 3.1 document, built from the route declarations and their io-ts codecs. */
import * as t from 'io-ts';
import { errorCodes } from '../domain/errors';
import { arrayItems, objectShapes, schemaOf, type JsonSchema } from './codecs/primitives';
import type { RouteSpec } from './route';

export function codecSchema(codec: t.Mixed, components: Record<string, JsonSchema>): JsonSchema {
  const shape = objectShapes.get(codec);
  if (shape) {
    const name = codec.name;
    if (!components[name]) {
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

const errorBodySchema: JsonSchema = {
  type: 'object',
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { code: { type: 'string', enum: errorCodes }, message: { type: 'string' }, field: { type: 'string', description: 'The request field at fault, e.g. itemData.value.amount.' } },
        required: ['code', 'message'],
      },
    },
    requestId: { type: 'string' },
  },
  required: ['errors', 'requestId'],
};

export function buildOpenApi(routes: RouteSpec[], platformName: string): JsonSchema {
  const components: Record<string, JsonSchema> = { ErrorBody: errorBodySchema };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of routes) {
    const parameters: JsonSchema[] = Object.entries(spec.pathParams ?? {}).map(([name, values]) => ({ name, in: 'path', required: true, schema: { type: 'string', enum: values } }));
    if (spec.role !== null && spec.usesCluster !== false) {
      parameters.push({ name: 'svmCluster', in: 'query', required: false, schema: { type: 'string' }, description: 'Network cluster; the default cluster when omitted.' });
      parameters.push({ name: 'x-request-id', in: 'header', required: false, schema: { type: 'string', maxLength: 200 }, description: 'Echoed back; for writes without idempotencyId or Idempotency-Key it is the idempotency key.' });
    }
    if (spec.write) parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 202 }, description: 'The idempotency key of a write without itemData.idempotencyId (1 to 200 printable ASCII characters, optionally in double quotes); a different idempotencyId beside it is 400.' });
    if (spec.write) parameters.push({ name: 'Prefer', in: 'header', required: false, schema: { type: 'string', enum: ['respond-async'] }, description: 'Answer 202 at once with the transaction offchainId.' });
    const responses: Record<string, JsonSchema> = {
      [String(spec.successStatus)]: { description: 'Success', content: { 'application/json': { schema: spec.response ?? {} } } },
    };
    if (spec.write) responses['202'] = { description: 'Accepted (Prefer: respond-async)', content: { 'application/json': { schema: { type: 'object', properties: { transaction: { type: 'object', properties: { offchainId: { type: 'string' }, status: { type: 'string' } } } } } } } };
    for (const status of spec.role === null ? ['500'] : ['400', '401', '403', '404', '409', '429', '500']) {
      responses[status] = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
    }
    paths[spec.path] = paths[spec.path] ?? {};
    paths[spec.path][spec.method] = {
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.role ? { description: `Needs role ${platformName}_${spec.role} (or ${platformName}_ADMIN).` } : {}),
      ...(spec.role === null ? { security: [] } : {}),
      parameters,
      ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: codecSchema(spec.body, components) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Ledger Asset Service API', version: '1.0.0', description: 'Offchain records beside onchain objects on SVM networks; every write is one Temporal workflow.' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key made with `npm run cli -- api-keys create`.' } } },
  };
}
