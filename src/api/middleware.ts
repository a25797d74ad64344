/** The middleware at the top of the app: request id, errors, lossless JSON, auth, rate limit. */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { parse, stringify, isLosslessNumber } from 'lossless-json';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ApiKey, Organization } from '../db/entities';
import { createCallerCache } from './caller-cache';
import { apiErrors, apiKeyLookups } from '../observability/metrics';
import type { Limiter, Taken } from './rate-limits';
import { hashApiKey } from '../custody/credentials';
import { errorStatus, isErrorCode, LedgerError } from '../domain/errors';
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
    if (given && given !== ctx.state.requestId) throw new LedgerError('VALIDATION_ERROR', `x-request-id must be 1 to ${MAX_REQUEST_ID_LENGTH} printable ASCII characters`, 'x-request-id');
    await next();
  };
}

/** A domain failure raised inside a workflow, back as the LedgerError it started as. */
export function fromWorkflowFailure(error: unknown): unknown {
  const cause = error instanceof WorkflowFailedError || error instanceof WorkflowUpdateFailedError ? error.cause : error;
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) {
    const details = (cause.details?.[0] ?? {}) as { field?: string | null; context?: Record<string, unknown> };
    return new LedgerError(cause.type, cause.message, details.field ?? undefined, details.context ?? {});
  }
  return error;
}

/** Every error becomes the API.md error body; only 4xx messages reach the client. */
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
        ctx.body = { errors: [{ code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) }], requestId: ctx.state.requestId };
        if (error.code === 'LIMIT_EXCEEDED' && error.context.limit) (ctx.body as any).errors[0].limit = error.context.limit;
        return;
      }
      const code = error instanceof LedgerError ? error.code : 'INTERNAL';
      apiErrors.inc({ code });
      log(`request ${ctx.state.requestId} failed`, error);
      ctx.status = errorStatus[code];
      ctx.body = { errors: [{ code, message: code === 'INTERNAL' ? 'internal error' : (error as Error).message }], requestId: ctx.state.requestId };
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
      if (text.trim() === '') (ctx.request as any).body = undefined;
      else {
        // A body is JSON: another declared type (a form, text/plain) is refused rather than guessed at.
        if (ctx.get('content-type') && !ctx.is('json')) throw new LedgerError('UNSUPPORTED_MEDIA_TYPE', `the body must be application/json, not ${ctx.get('content-type')}`, '(body)');
        try {
          (ctx.request as any).body = parse(text);
        } catch (e) {
          throw new LedgerError('VALIDATION_ERROR', `the body is not valid JSON: ${(e as Error).message}`, '(body)');
        }
        const nul = findNul((ctx.request as any).body, '');
        if (nul) throw new LedgerError('VALIDATION_ERROR', `${nul} must not contain NUL (\\u0000) characters`, nul);
      }
    }
    await next();
    if (ctx.body !== undefined && ctx.body !== null && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body) && !isLosslessNumber(ctx.body) && typeof (ctx.body as any).pipe !== 'function') {
      ctx.type = 'application/json';
      ctx.body = stringify(ctx.body, (_key, value) => (value instanceof Date ? value.toISOString() : value));
    }
  };
}

/**
 * Resolves the bearer API key to its organization and roles; 401 when missing or unknown (both cached:
 * caller-cache.ts). A request not from a cached known key spends a point of its address's unknown-key
 * allowance: past it the answer is 429 and the key is not looked up. A lookup spends one point for all
 * the requests waiting on it and gives it back when the key is known, so a valid key's first requests
 * cost its address nothing. Fails with the database's error when the lookup cannot run.
 */
export function authenticate(deps: ApiDeps): Koa.Middleware {
  const cache = deps.callers ?? createCallerCache(5000);
  const unknownKeys = deps.rateLimits.perAddressUnknownKeys;
  // Lookups in flight by key hash: concurrent first requests with one key share a lookup and a point.
  const pending = new Map<string, Promise<Taken & { caller?: Caller | null }>>();
  const refuse = (ctx: LedgerContext, taken: Taken) => {
    if (taken.allowed) return;
    ctx.set('Retry-After', String(taken.retryAfterSeconds));
    throw new LedgerError('RATE_LIMITED', 'too many requests without a valid API key from this address');
  };
  const lookUp = async (hash: string, ip: string, now: number) => {
    const taken = await unknownKeys.take(ip);
    if (!taken.allowed) return taken;
    apiKeyLookups.inc();
    const em = deps.orm.em.fork();
    const key = await em.findOne(ApiKey, { keyHash: hash, revokedAt: null });
    const org = key && (await em.findOne(Organization, { id: key.organizationId }));
    const caller = key && org ? { apiKeyId: key.id, organizationId: org.id, organizationExternalId: org.externalId, roles: key.roles } : null;
    cache.set(hash, caller, now);
    if (caller) await unknownKeys.giveBack(ip);
    return { ...taken, caller };
  };
  return async (ctx: LedgerContext, next) => {
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) {
      refuse(ctx, await unknownKeys.take(ctx.ip));
      throw new LedgerError('UNAUTHENTICATED', 'send Authorization: Bearer <api key>');
    }
    const hash = hashApiKey(match[1]);
    let caller = cache.get(hash, Date.now());
    let spent = false;
    if (caller === undefined) {
      let lookup = pending.get(hash);
      if (!lookup) {
        spent = true;
        lookup = lookUp(hash, ctx.ip, Date.now()).finally(() => pending.delete(hash));
        pending.set(hash, lookup);
      }
      const outcome = await lookup;
      refuse(ctx, outcome);
      caller = outcome.caller;
    }
    if (!caller) {
      // An unknown key (cached, or found unknown by a lookup this request only waited on) spends its own point.
      if (!spent) refuse(ctx, await unknownKeys.take(ctx.ip));
      throw new LedgerError('UNAUTHENTICATED', 'unknown API key');
    }
    ctx.state.caller = { ...caller };
    await next();
  };
}

/** The per API key limit (API.md 4), shared by every API process: 429 with Retry-After when spent. */
export function rateLimit(limiter: Limiter, perSecond: number): Koa.Middleware {
  return async (ctx: LedgerContext, next) => {
    const taken = await limiter.take(ctx.state.caller!.apiKeyId);
    if (!taken.allowed) {
      ctx.set('Retry-After', String(taken.retryAfterSeconds));
      throw new LedgerError('RATE_LIMITED', `over ${perSecond} requests per second for this API key`);
    }
    await next();
  };
}
