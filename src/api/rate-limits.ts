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

/** The outcome of taking one request's point: allowed, or refused with the seconds to wait. */
export type Taken = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface Limiter {
  /** Counts one request for `key`; never throws (a store failure is decided by the in-process limits). */
  take(key: string): Promise<Taken>;
}

export interface RateLimits {
  perApiKey: Limiter;
  /** Failed authentications per client address (the name is older than that meaning). */
  perAddressUnknownKeys: Limiter;
}

/** A key over its limit stays refused from memory for the rest of its window: no store round trip per refused request. */
function limiter(store: RateLimitStore, keyPrefix: string, points: number, duration: number, onFallback: () => void): Limiter {
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
    async take(key) {
      try {
        await decider.consume(key);
        return { allowed: true };
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)) };
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
    perApiKey: limiter(store, 'api-key', settings.burst, settings.burst / settings.perSecond, onFallback),
    perAddressUnknownKeys: limiter(store, 'unknown-key', settings.unknownKeys.points, settings.unknownKeys.seconds, onFallback),
  };
}
