/**
 * Who an API key is, by the key's hash, so a request costs no database read: known keys and unknown
 * ones (a flood of made-up keys is answered from memory too). An entry lives until a change to its
 * key is announced (created, revoked: src/db/notifications.ts), or at most `ttlMs`.
 */
import type { Caller } from './context';

export interface CallerCache {
  /** undefined: not cached; null: cached as unknown. */
  get(hash: string, now: number): Caller | null | undefined;
  set(hash: string, caller: Caller | null, now: number): void;
  forget(hash: string): void;
  clear(): void;
}

export function createCallerCache(ttlMs: number, maxEntries = 10_000): CallerCache {
  const entries = new Map<string, { caller: Caller | null; until: number }>();
  return {
    get(hash, now) {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.until < now) {
        entries.delete(hash);
        return undefined;
      }
      return entry.caller;
    },
    set(hash, caller, now) {
      if (entries.size >= maxEntries) entries.clear();
      entries.set(hash, { caller, until: now + ttlMs });
    },
    forget: (hash) => entries.delete(hash),
    clear: () => entries.clear(),
  };
}
