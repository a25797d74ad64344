/**
 * Who an API key is, by the key's hash, so a request costs no database read: known keys and unknown
 * ones (a made-up key sent again is answered from memory too; a new one is looked up, a cost that
 * authenticate's batched lookups bound: middleware.ts). An entry lives until a change to its
 * key is announced (created, revoked: src/db/notifications.ts), or at most `ttlMs`.
 *
 * Known and unknown keys are kept apart, each bounded by `maxEntries` and evicting its least recently
 * used entry (lru-cache): made-up keys, however many, can only push out other made-up keys, never a
 * caller that exists.
 */
import { LRUCache } from 'lru-cache';
import type { Caller } from './context';

export interface CallerCache {
  /** undefined: not cached; null: cached as unknown. */
  get(hash: string, now: number): Caller | null | undefined;
  set(hash: string, caller: Caller | null, now: number): void;
  forget(hash: string): void;
  clear(): void;
}

export function createCallerCache(ttlMs: number, maxEntries = 10_000): CallerCache {
  const known = new LRUCache<string, { caller: Caller; until: number }>({ max: maxEntries });
  const unknown = new LRUCache<string, number>({ max: maxEntries });
  return {
    get(hash, now) {
      const entry = known.get(hash);
      if (entry) return entry.until < now ? (known.delete(hash), undefined) : entry.caller;
      const until = unknown.get(hash);
      if (until === undefined) return undefined;
      return until < now ? (unknown.delete(hash), undefined) : null;
    },
    set(hash, caller, now) {
      if (caller) {
        unknown.delete(hash);
        known.set(hash, { caller, until: now + ttlMs });
      } else {
        known.delete(hash);
        unknown.set(hash, now + ttlMs);
      }
    },
    forget(hash) {
      known.delete(hash);
      unknown.delete(hash);
    },
    clear() {
      known.clear();
      unknown.clear();
    },
  };
}
