/** Authentication's cache: known and unknown keys cost one database read until their key's change is announced. */
import type { ApiDeps, Caller, LedgerContext } from '../../src/api/context';
import { createCallerCache } from '../../src/api/caller-cache';
import { createRateLimits } from '../../src/api/rate-limits';
import { authenticate } from '../../src/api/middleware';
import { hashApiKey } from '../../src/custody/credentials';

const KEY = 'lk_known';
function fakeDeps(keys: Map<string, { id: string; organizationId: string; roles: string[] }>) {
  const reads = { count: 0 };
  const em = {
    find: async (_entity: unknown, where: { keyHash?: { $in: string[] }; id?: { $in: string[] } }) => {
      reads.count++;
      if (where.keyHash) return where.keyHash.$in.filter((hash) => keys.has(hash)).map((hash) => ({ ...keys.get(hash)!, keyHash: hash }));
      return where.id!.$in.map((id) => ({ id, externalId: 'acme' }));
    },
  };
  const callers = createCallerCache(60_000);
  const rateLimits = createRateLimits({ perSecond: 100, burst: 200, unknownKeys: { points: 100, seconds: 60 } }, { kind: 'memory' });
  const deps = { orm: { em: { fork: () => em } }, callers, rateLimits } as unknown as ApiDeps;
  return { deps, reads, callers };
}
async function attempt(deps: ApiDeps, key: string): Promise<string> {
  const ctx = { get: () => `Bearer ${key}`, set: () => undefined, ip: '203.0.113.9', state: {} } as unknown as LedgerContext;
  try {
    await authenticate(deps)(ctx, async () => undefined);
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

it('reads the database once per key, known or unknown, and again once the key is forgotten', async () => {
  const keys = new Map([[hashApiKey(KEY), { id: 'k1', organizationId: 'o1', roles: ['LEDGER_READ'] }]]);
  const { deps, reads, callers } = fakeDeps(keys);
  expect(await attempt(deps, KEY)).toBe('ok');
  const afterFirst = reads.count;
  expect(await attempt(deps, KEY)).toBe('ok');
  expect(reads.count).toBe(afterFirst);

  expect(await attempt(deps, 'lk_made_up')).toBe('UNAUTHENTICATED');
  expect(await attempt(deps, 'lk_made_up')).toBe('UNAUTHENTICATED');
  expect(reads.count).toBe(afterFirst + 1);

  // A revocation announced: the next request reads again and is refused.
  keys.clear();
  callers.forget(hashApiKey(KEY));
  expect(await attempt(deps, KEY)).toBe('UNAUTHENTICATED');
});

it('expires entries after the time to live', () => {
  const cache = createCallerCache(1000);
  cache.set('h', null, 0);
  expect(cache.get('h', 999)).toBeNull();
  expect(cache.get('h', 1001)).toBeUndefined();
});

it('keeps a known caller however many made-up keys are cached after it, and bounds both', () => {
  const cache = createCallerCache(60_000, 100);
  const caller: Caller = { apiKeyId: 'k1', organizationId: 'o1', organizationExternalId: 'acme', roles: ['LEDGER_READ'] };
  cache.set('known', caller, 0);
  for (let i = 0; i < 1000; i++) cache.set(`made-up-${i}`, null, 0);
  expect(cache.get('known', 1)).toBe(caller);
  // The newest made-up keys are kept, the oldest pushed out.
  expect(cache.get('made-up-999', 1)).toBeNull();
  expect(cache.get('made-up-0', 1)).toBeUndefined();
  // Known callers are bounded too, the least recently used going first.
  for (let i = 0; i < 100; i++) {
    cache.get('known', 1);
    cache.set(`caller-${i}`, caller, 0);
  }
  expect(cache.get('known', 1)).toBe(caller);
  expect(cache.get('caller-0', 1)).toBeUndefined();
});
