/** The middleware at the top of the app: request id, errors, lossless JSON, auth, rate limit. */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { parse, stringify, isLosslessNumber } from 'lossless-json';
import { ApiKey, Organization } from '../db/entities';
import { createCallerCache, type CallerCache } from './caller-cache';
import { apiErrors, apiKeyLookups } from '../observability/metrics';
import { rateLimitHeaders, type Limiter } from './rate-limits';
import { hashApiKey } from '../custody/credentials';
import { errorStatus, LedgerError } from '../domain/errors';
import { DEFAULT_RETRY_AFTER_SECONDS, isOutage } from '../client/outages';
import { fromWorkflowFailure } from '../client/write-client';
import type { ApiDeps, Caller, LedgerContext } from './context';

/** The longest x-request-id accepted: it becomes part of a write's workflow id (Temporal allows 1000 bytes). */
export const MAX_REQUEST_ID_LENGTH = 200;

/** Echoes x-request-id, or makes one; one that is too long or not printable ASCII is refused (after the error middleware). */
export function requestId(): Koa.Middleware {
  return async (ctx: LedgerContext, next) => {
    const given = ctx.get('x-request-id');
    const valid = given.length <= MAX_REQUEST_ID_LENGTH && /^[\x21-\x7e]*$/.test(given);
    ctx.state.requestId = given && valid ? given : randomUUID();
    ctx.set('x-request-id', ctx.state.requestId);
    await next();
  };
}

export function checkRequestId(): Koa.Middleware {
  return async (ctx: LedgerContext, next) => {
    const given = ctx.get('x-request-id');
    if (given && given !== ctx.state.requestId)
      throw new LedgerError('VALIDATION_ERROR', `x-request-id must be 1 to ${MAX_REQUEST_ID_LENGTH} printable ASCII characters`, 'x-request-id');
    await next();
  };
}

const OUTAGE_MESSAGE =
  'a service this request needs (the database or the workflow engine) did not answer; send the same request again after Retry-After (a write with the same key: it happens at most once)';

/** Every error becomes the one error body (docs/behaviour/errors.md); only 4xx messages (and our own 5xx codes') reach the client. */
export function errorBody(log: (msg: string, err: unknown) => void): Koa.Middleware {
  return async (ctx: LedgerContext, next) => {
    try {
      await next();
    } catch (raw) {
      const error = fromWorkflowFailure(raw);
      if (error instanceof LedgerError && error.status < 500) {
        apiErrors.inc({ code: error.code });
        ctx.status = error.status;
        // The rest of an oversized body was never read: the connection cannot carry another request.
        if (error.code === 'PAYLOAD_TOO_LARGE') ctx.set('Connection', 'close');
        const limit = error.code === 'LIMIT_EXCEEDED' && error.context.limit ? { limit: error.context.limit } : {};
        ctx.body = {
          errors: [{ code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}), ...limit }],
          requestId: ctx.state.requestId,
        };
        return;
      }
      // PostgreSQL or Temporal away is an outage to wait out (503 with Retry-After), not a fault of ours.
      const outage = !(error instanceof LedgerError) && isOutage(error);
      const code = error instanceof LedgerError ? error.code : outage ? 'UNAVAILABLE' : 'INTERNAL';
      apiErrors.inc({ code });
      log(`request ${ctx.state.requestId} failed`, error);
      ctx.status = errorStatus[code];
      const message = code === 'INTERNAL' ? 'internal error' : outage ? OUTAGE_MESSAGE : (error as Error).message;
      if (code === 'UNAVAILABLE')
        ctx.set('Retry-After', String((error instanceof LedgerError && Number(error.context.retryAfterSeconds)) || DEFAULT_RETRY_AFTER_SECONDS));
      ctx.body = { errors: [{ code, message }], requestId: ctx.state.requestId };
    }
  };
}

/** PostgreSQL text cannot hold NUL: such a string is refused at the edge, naming its field, before any step runs. */
function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(body)' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], path ? `${path}.${i}` : String(i));
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return at;
      const found = findNul(child, at);
      if (found) return found;
    }
  }
  return undefined;
}

/** Parses JSON bodies keeping every number's exact text; writes bodies the same way. */
export function losslessJson(maxBytes = 1024 * 1024): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of ctx.req) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) throw new LedgerError('PAYLOAD_TOO_LARGE', `the body is over ${maxBytes} bytes`);
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') ctx.request.body = undefined;
      else {
        // A body is JSON: another declared type (a form, text/plain) is refused rather than guessed at.
        if (ctx.get('content-type') && !ctx.is('json'))
          throw new LedgerError('UNSUPPORTED_MEDIA_TYPE', `the body must be application/json, not ${ctx.get('content-type')}`, '(body)');
        try {
          ctx.request.body = parse(text);
        } catch (e) {
          throw new LedgerError('VALIDATION_ERROR', `the body is not valid JSON: ${(e as Error).message}`, '(body)');
        }
        const nul = findNul(ctx.request.body, '');
        if (nul) throw new LedgerError('VALIDATION_ERROR', `${nul} must not contain NUL (\\u0000) characters`, nul);
      }
    }
    await next();
    if (
      ctx.body !== undefined &&
      ctx.body !== null &&
      typeof ctx.body === 'object' &&
      !Buffer.isBuffer(ctx.body) &&
      !isLosslessNumber(ctx.body) &&
      typeof (ctx.body as { pipe?: unknown }).pipe !== 'function'
    ) {
      ctx.type = 'application/json';
      ctx.body = stringify(ctx.body, (_key, value) => (value instanceof Date ? value.toISOString() : value));
    }
  };
}

/** The most key hashes one lookup query asks for; more waiting go in the queries after it. */
const KEY_LOOKUP_BATCH = 500;

type LookupWaiter = { resolve: (caller: Caller | null) => void; reject: (error: unknown) => void };

/**
 * Looks callers up by key hash in the database and caches the answer, known or unknown. One query at
 * a time per API process, each for every hash waiting then (up to KEY_LOOKUP_BATCH): a flood of
 * made-up keys, each new and so each needing a lookup, holds one connection of the ORM pool and sends
 * one query per round trip however many keys it makes up, rather than one query per request on every
 * connection (the pool would then have none left for the API's other work). A valid key caught in such
 * a flood waits for at most the query in flight and its own; it is never refused. A hash already
 * waiting or in flight shares that lookup. A failed query fails every request that waited on it.
 */
function keyLookups(deps: ApiDeps, cache: CallerCache): (hash: string) => Promise<Caller | null> {
  const answers = new Map<string, Promise<Caller | null>>(); // waiting or in flight, by hash
  const queue = new Map<string, LookupWaiter>(); // not sent yet
  let querying = false;
  const query = async (hashes: string[]) => {
    apiKeyLookups.inc(hashes.length);
    const em = deps.orm.em.fork();
    const keys = await em.find(ApiKey, { keyHash: { $in: hashes }, revokedAt: null });
    const organizationIds = [...new Set(keys.map((key) => key.organizationId))];
    const organizations = organizationIds.length ? await em.find(Organization, { id: { $in: organizationIds } }) : [];
    const found = new Map<string, Caller>();
    for (const key of keys) {
      const org = organizations.find((o) => o.id === key.organizationId);
      if (org) found.set(key.keyHash, { apiKeyId: key.id, organizationId: org.id, organizationExternalId: org.externalId, roles: key.roles });
    }
    return found;
  };
  const drain = async () => {
    querying = true;
    try {
      await drainQueue();
    } finally {
      querying = false;
    }
  };
  const drainQueue = async () => {
    while (queue.size > 0) {
      const batch: [string, LookupWaiter][] = [];
      for (const entry of queue) {
        if (batch.length === KEY_LOOKUP_BATCH) break;
        batch.push(entry);
      }
      for (const [hash] of batch) queue.delete(hash);
      const now = Date.now();
      try {
        const found = await query(batch.map(([hash]) => hash));
        for (const [hash, waiter] of batch) {
          const caller = found.get(hash) ?? null;
          cache.set(hash, caller, now);
          answers.delete(hash);
          waiter.resolve(caller);
        }
      } catch (error) {
        for (const [hash, waiter] of batch) {
          answers.delete(hash);
          waiter.reject(error);
        }
      }
    }
  };
  return (hash) => {
    let answer = answers.get(hash);
    if (!answer) {
      answer = new Promise<Caller | null>((resolve, reject) => queue.set(hash, { resolve, reject }));
      answers.set(hash, answer);
      if (!querying) void drain();
    }
    return answer;
  };
}

/**
 * Resolves the bearer API key to its organization and roles; 401 when missing or unknown. A key is
 * always looked up by its hash (the cache, caller-cache.ts, then the database: keyLookups above), so a
 * valid key is served whatever its address has done, and then only its own limit (rateLimit) applies.
 * Only a failed authentication (no key, a malformed, unknown or revoked one) spends a point of its
 * client address's allowance (`rateLimit.unknownKeys`); past it the answer is 429 with Retry-After
 * instead of 401. A key cached as unknown is refused without a database read, whatever the address;
 * a key not cached is looked up even from an address over its allowance (it may be valid: a new key,
 * or any key after an API restart), and keyLookups bounds what that costs the database.
 * Fails with the database's error when the lookup cannot run.
 */
export function authenticate(deps: ApiDeps): Koa.Middleware {
  const cache = deps.callers ?? createCallerCache(5000);
  const failures = deps.rateLimits.perAddressUnknownKeys;
  const lookUp = keyLookups(deps, cache);
  const refuse = async (ctx: LedgerContext, message: string): Promise<never> => {
    const taken = await failures.take(ctx.ip);
    ctx.set(rateLimitHeaders(failures.policy, taken));
    if (!taken.allowed) {
      ctx.set('Retry-After', String(taken.retryAfterSeconds));
      throw new LedgerError('RATE_LIMITED', 'too many failed authentications from this address');
    }
    throw new LedgerError('UNAUTHENTICATED', message);
  };
  return async (ctx: LedgerContext, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
    if (!match) return refuse(ctx, 'send Authorization: Bearer <api key>');
    const hash = hashApiKey(match[1]);
    let caller = cache.get(hash, Date.now());
    if (caller === undefined) caller = await lookUp(hash);
    if (!caller) return refuse(ctx, 'unknown API key');
    ctx.state.caller = { ...caller };
    await next();
  };
}

/**
 * The per API key limit (docs/rate-limits.md), shared by every API process: every answer carries the
 * RateLimit header fields, and 429 with Retry-After when spent.
 */
export function rateLimit(limiter: Limiter, perSecond: number): Koa.Middleware {
  return async (ctx: LedgerContext, next) => {
    const taken = await limiter.take(ctx.state.caller!.apiKeyId);
    ctx.set(rateLimitHeaders(limiter.policy, taken));
    if (!taken.allowed) {
      ctx.set('Retry-After', String(taken.retryAfterSeconds));
      throw new LedgerError('RATE_LIMITED', `over ${perSecond} requests per second for this API key`);
    }
    await next();
  };
}
