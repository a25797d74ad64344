/**
 * The API's rate limits (docs/rate-limits.md), shared by every API process through a store (rate-limiter-flexible):
 * - per API key: `burst` requests per window of burst/perSecond seconds (100/s with bursts of 200 by
 *   default: 200 per 2 s), so N replicas together allow the limit once, not N times;
 * - per client address, failed authentications (no key, a malformed, unknown or revoked one):
 *   `unknownKeys.points` per `unknownKeys.seconds`; past it such requests get 429 instead of 401.
 *   Requests with a valid key never count here, and are never refused by it (src/api/middleware.ts).
 * The store is PostgreSQL (an UNLOGGED table, migration 0050) or, for a single process, memory.
 * Each store call is bounded by `timeoutMs`; a store that fails or is late is replaced by the same
 * limits kept in this process (the library's insurance limiter), so a store outage neither stops
 * the API nor lifts the limits: it falls back to per-process limiting (docs/rate-limits.md).
 * Every decision is told to the client in the IETF RateLimit header fields (rateLimitHeaders).
 */
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { rateLimitStoreFallbacks } from '../observability/metrics';

/** Migration 0050 creates it (the library's columns, UNLOGGED: counters need no WAL and may be lost in a crash). */
export const RATE_LIMIT_TABLE = 'rate_limit';

export interface RateLimitSettings {
  perSecond: number;
  burst: number;
  /**
   * Failed authentications (no key, a malformed, unknown or revoked one) allowed per client address
   * per `seconds` (RATE_LIMIT_UNKNOWN_KEYS / _SECONDS: the names are older than this meaning).
   */
  unknownKeys: { points: number; seconds: number };
}

export type RateLimitStore = { kind: 'postgresql'; pool: Pool; timeoutMs?: number } | { kind: 'memory' };

/** A limit as clients are told it: its name, `quota` requests per window of `windowSeconds`. */
export interface RateLimitPolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

/**
 * The outcome of taking one request's point: allowed or refused, with what is left of the window
 * (`remaining` requests, `resetSeconds` until it ends). Both are absent only when neither the store
 * nor the in-process limits could decide and the request went through unlimited.
 */
export type Taken = ({ allowed: true } | { allowed: false; retryAfterSeconds: number }) & { remaining?: number; resetSeconds?: number };

export interface Limiter {
  policy: RateLimitPolicy;
  /** Counts one request for `key`; never throws (a store failure is decided by the in-process limits). */
  take(key: string): Promise<Taken>;
}

/**
 * The header fields of draft-ietf-httpapi-ratelimit-headers-08 (the form express-rate-limit sends
 * with `standardHeaders: 'draft-8'`; drafts 09 to 11 keep it): `RateLimit-Policy: "api-key";q=200;w=2`
 * and `RateLimit: "api-key";r=57;t=1` (r requests remaining in the window, which ends in t seconds).
 * No partition key (`pk`): the client knows which key or address it sent from.
 */
export function rateLimitHeaders(policy: RateLimitPolicy, taken: Taken): Record<string, string> {
  const name = `"${policy.name}"`;
  const headers: Record<string, string> = { 'RateLimit-Policy': `${name};q=${policy.quota};w=${policy.windowSeconds}` };
  if (taken.remaining !== undefined && taken.resetSeconds !== undefined) headers.RateLimit = `${name};r=${taken.remaining};t=${taken.resetSeconds}`;
  return headers;
}

export interface RateLimits {
  perApiKey: Limiter;
  /** Failed authentications per client address (the name is older than that meaning). */
  perAddressUnknownKeys: Limiter;
}

/** A key over its limit stays refused from memory for the rest of its window: no store round trip per refused request. */
/** `keyPrefix` names the counts in the store; `name`, the policy in the header fields. */
function limiter(store: RateLimitStore, keyPrefix: string, name: string, points: number, duration: number, onFallback: () => void): Limiter {
  // The draft's window is whole seconds: a fractional one (burst/perSecond) is told rounded up.
  const policy = { name, quota: points, windowSeconds: Math.ceil(duration) };
  const left = (res: RateLimiterRes) => ({ remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)) });
  let decider: RateLimiterAbstract | RLWrapperTimeouts = new RateLimiterMemory({ keyPrefix, points, duration });
  if (store.kind === 'postgresql') {
    // What decides while the store is down or late: the same limits, kept in this process.
    const insurance = new (class extends RateLimiterMemory {
      override consume(key: string | number, pointsToConsume?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
        onFallback();
        return super.consume(key, pointsToConsume, options);
      }
    })({ keyPrefix, points, duration });
    const shared = new RateLimiterPostgres({
      storeClient: store.pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      keyPrefix,
      points,
      duration,
      inMemoryBlockOnConsumed: points + 1,
      insuranceLimiter: insurance,
    });
    decider = new RLWrapperTimeouts({ limiter: shared, timeoutMs: store.timeoutMs ?? 250, insuranceLimiter: insurance });
  }
  return {
    policy,
    async take(key) {
      try {
        return { allowed: true, ...left(await decider.consume(key)) };
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes)
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)), ...left(refusal), remaining: 0 };
        // Both the store and the insurance failed (not expected of memory): let the request through.
        return { allowed: true };
      }
    },
  };
}

/** Builds both limiters over one store; `log` hears of a store failure at most once a minute. */
export function createRateLimits(settings: RateLimitSettings, store: RateLimitStore, log: (message: string) => void = () => {}): RateLimits {
  let lastWarned = 0;
  const onFallback = () => {
    rateLimitStoreFallbacks.inc();
    const now = Date.now();
    if (now - lastWarned < 60_000) return;
    lastWarned = now;
    log('rate limit store unavailable or slow: limiting per process until it answers again');
  };
  return {
    perApiKey: limiter(store, 'api-key', 'api-key', settings.burst, settings.burst / settings.perSecond, onFallback),
    perAddressUnknownKeys: limiter(store, 'unknown-key', 'failed-authentications', settings.unknownKeys.points, settings.unknownKeys.seconds, onFallback),
  };
}
