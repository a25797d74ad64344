/**
 * Routes declared once: method, path, role, body codec, handler. The same declarations mount the
 * Koa routes and produce the OpenAPI document, so validation and documentation cannot drift.
 */
import type Router from '@koa/router';
import type * as t from 'io-ts';
import { LedgerError, validationError } from '../domain/errors';
import { hasRole, type Role } from '../domain/roles';
import type { ApiDeps, LedgerContext } from './context';
import { reportErrors, type JsonSchema } from '../domain/inputs/primitives';
import { authenticate, rateLimit } from './middleware';
import { actingCaller } from './tenancy';
import type { OperationExample } from '../domain/examples/operation-examples';
import type { AcceptedWriteBody } from '../domain/responses/write.responses';

/** A success answer that is not JSON (metrics text, the docs page, a stored file). */
export interface RawResponse {
  mediaType: string;
  schema: JsonSchema;
  description: string;
  example?: unknown;
}

export interface RouteSpec<B = unknown, R = unknown> {
  /** The spec's operation name in camelCase (createAccount, fetchAccounts): unique; a generated client's method name. */
  operationId: string;
  method: 'get' | 'post' | 'patch';
  path: string;
  summary: string;
  tag: string;
  /** The role needed (a list: any one of them); null: no authentication (health, docs). */
  role: Role | readonly Role[] | null;
  /** The body codec (`t.Mixed` for its schema, decoding to B for the handler). */
  body?: t.Mixed & t.Decoder<unknown, B>;
  /** Path parameters with their allowed values. */
  pathParams?: Record<string, readonly string[]>;
  /** Schemas of path parameters without a fixed set of values (a file id). */
  pathParamSchemas?: Record<string, JsonSchema>;
  successStatus: number;
  /**
   * What a success answers: an io-ts codec whose type the handler must return (so presenters are
   * checked against it) and whose schema the document shows; or raw content that is not JSON.
   */
  response: (t.Mixed & t.Decoder<unknown, R>) | RawResponse;
  /** A request and its answer for the document (declared operations carry theirs; other routes' are in src/domain/examples by operationId). */
  examples?: OperationExample;
  /** Answers beyond the success, 202 and the errors of the route's kind (e.g. /ready's 503), by status. */
  otherResponses?: Record<number, { description: string; body: t.Mixed }>;
  /** false: the route is not about a network (metrics), so it takes no svmCluster. */
  usesCluster?: boolean;
  /** Writes take svmCluster and may answer 202 with Prefer: respond-async. */
  write?: boolean;
  /** Returns the response codec's type (or, for writes, the 202 answer). */
  handler(ctx: LedgerContext, body: B): Promise<NoInfer<R> | AcceptedWriteBody>;
}

export function route<B, R = unknown>(spec: RouteSpec<B, R>): RouteSpec<B, R> {
  return spec;
}

/** A read: POST (its body carries what to read), READ unless `role` says otherwise, answering 200. */
export function readRoute<B, R>(
  declared: Pick<RouteSpec, 'operationId' | 'path' | 'tag' | 'summary'>,
  reading: Pick<RouteSpec<B, R>, 'body' | 'response' | 'handler' | 'pathParams'> & { role?: Role | readonly Role[] },
): RouteSpec<B, R> {
  const { operationId, path, tag, summary } = declared;
  return route({ operationId, method: 'post', path, tag, summary, successStatus: 200, ...reading, role: reading.role ?? 'READ' });
}

/** Decodes a body with a codec; VALIDATION_ERROR naming the first field at fault. */
export function decode<B>(codec: t.Type<B, unknown, unknown>, input: unknown): B {
  if (input === undefined) throw validationError('(body)', 'a JSON body is required');
  const result = codec.decode(input);
  if (result._tag === 'Left') {
    const [first, ...rest] = reportErrors(result.left);
    const error = validationError(first.field, `${first.field} ${first.message}`);
    error.context.otherFields = rest;
    throw error;
  }
  return result.right;
}

export function mountRoutes(router: Router, routes: RouteSpec[], deps: ApiDeps): void {
  const auth = authenticate(deps);
  const limit = rateLimit(deps.rateLimits.perApiKey, deps.rateLimit.perSecond);
  for (const spec of routes) {
    const koaPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const handle = async (ctx: LedgerContext) => {
      for (const [name, allowed] of Object.entries(spec.pathParams ?? {})) {
        if (!allowed.includes(ctx.params[name])) throw validationError(name, `${name} must be one of ${allowed.join(', ')}`);
      }
      const roles = spec.role === null ? [] : [spec.role].flat();
      // Acting for another organization needs one of these held explicitly (src/api/tenancy.ts).
      ctx.state.routeRoles = roles;
      if (roles.length && !roles.some((role) => hasRole(ctx.state.caller!.roles, deps.platformName, role))) {
        throw new LedgerError('FORBIDDEN', `this API key lacks the role ${roles.map((role) => `${deps.platformName}_${role}`).join(' or ')}`);
      }
      if (spec.usesCluster !== false) {
        const given = ctx.query.svmCluster;
        if (Array.isArray(given)) throw validationError('svmCluster', 'give svmCluster once');
        const cluster = given === undefined ? deps.networks.defaultCluster : given.toUpperCase();
        if (!deps.networks.get(cluster)) throw validationError('svmCluster', `svmCluster must be one of ${deps.networks.names.join(', ')}`);
        ctx.state.cluster = cluster;
      }
      const body = spec.body ? decode(spec.body, ctx.request.body) : undefined;
      const tenancyConfig = (body as { tenancyConfig?: { overrideOrganizationExternalId?: string } } | undefined)?.tenancyConfig;
      if (ctx.state.caller && tenancyConfig) {
        // Every route taking tenancyConfig decides an override before its handler runs (a handler
        // that never asks cannot let one through), and a request acting for another organization
        // exercises only the roles the acting caller keeps (no ADMIN): a handler's own role checks
        // on ctx.state.caller (UPDATE_DEBIT_API_KEYS) then need the role held explicitly too. The
        // caller keeps its own organization (the access log names the key's).
        const acting = await actingCaller(ctx, deps, deps.orm.em.fork(), tenancyConfig);
        ctx.state.caller = { ...ctx.state.caller, roles: acting.roles };
      }
      const result = await spec.handler(ctx, body);
      ctx.status = ctx.state.status ?? spec.successStatus;
      ctx.body = result;
    };
    const chain = spec.role === null ? [handle] : [auth, limit, handle];
    router.register(koaPath, [spec.method], chain);
  }
}
