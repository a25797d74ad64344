/** The rate limits' decisions (in-process store) and the unknown-key limit guarding the key lookup. */
import type { ApiDeps, LedgerContext } from '../../src/api/context';
import { createCallerCache } from '../../src/api/caller-cache';
import { createRateLimits } from '../../src/api/rate-limits';
import { authenticate } from '../../src/api/middleware';

const settings = { perSecond: 1, burst: 5, unknownKeys: { points: 3, seconds: 60 } };

it('lets a key through up to its burst, then refuses with the seconds to wait; keys are counted apart', async () => {
  const { perApiKey } = createRateLimits(settings, { kind: 'memory' });
  const taken = [];
  for (let i = 0; i < 7; i++) taken.push(await perApiKey.take('key-a'));
  expect(taken.filter((t) => t.allowed)).toHaveLength(5);
  const refused = taken.at(-1)!;
  expect(refused.allowed).toBe(false);
  expect(refused.allowed === false && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(refused.allowed === false && refused.retryAfterSeconds).toBeLessThanOrEqual(5);
  expect(await perApiKey.take('key-b')).toEqual({ allowed: true });
});

it('refuses unknown keys from one address with 429 past the limit, without looking the key up', async () => {
  const reads = { count: 0 };
  const em = {
    findOne: async () => {
      reads.count++;
      return null;
    },
  };
  const deps = { orm: { em: { fork: () => em } }, callers: createCallerCache(60_000), rateLimits: createRateLimits(settings, { kind: 'memory' }) } as unknown as ApiDeps;
  const attempt = async (key: string, ip: string) => {
    const headers: Record<string, string> = {};
    const ctx = { get: () => `Bearer ${key}`, set: (name: string, value: string) => (headers[name] = value), ip, state: {} } as unknown as LedgerContext;
    try {
      await authenticate(deps)(ctx, async () => undefined);
      return { code: 'ok', headers };
    } catch (error) {
      return { code: (error as { code: string }).code, headers };
    }
  };
  const answers = [];
  for (let i = 0; i < 10; i++) answers.push(await attempt(`lk_made_up_${i}`, '198.51.100.7'));
  expect(answers.map((a) => a.code)).toEqual([...Array(3).fill('UNAUTHENTICATED'), ...Array(7).fill('RATE_LIMITED')]);
  expect(reads.count).toBe(3);
  expect(Number(answers.at(-1)!.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  // Another address has its own allowance.
  expect((await attempt('lk_other', '198.51.100.8')).code).toBe('UNAUTHENTICATED');
});
