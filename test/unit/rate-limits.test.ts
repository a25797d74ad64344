/** The rate limits' decisions (in-process store) and the unknown-key limit guarding the key lookup. */
import type { ApiDeps, LedgerContext } from '../../src/api/context';
import { createCallerCache } from '../../src/api/caller-cache';
import { createRateLimits } from '../../src/api/rate-limits';
import { authenticate } from '../../src/api/middleware';
import { hashApiKey } from '../../src/custody/credentials';

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

const VALID = 'lk_valid';
/** authenticate over a fake key table holding VALID only, counting its reads. */
function authenticator() {
  const reads = { count: 0 };
  const em = {
    findOne: async (_entity: unknown, where: Record<string, unknown>) => {
      reads.count++;
      if ('keyHash' in where) return where.keyHash === hashApiKey(VALID) ? { id: 'k1', organizationId: 'o1', roles: ['LEDGER_READ'] } : null;
      return { id: where.id, externalId: 'acme' };
    },
  };
  const deps = { orm: { em: { fork: () => em } }, callers: createCallerCache(60_000), rateLimits: createRateLimits(settings, { kind: 'memory' }) } as unknown as ApiDeps;
  const middleware = authenticate(deps);
  const attempt = async (key: string, ip: string) => {
    const headers: Record<string, string> = {};
    const ctx = { get: () => `Bearer ${key}`, set: (name: string, value: string) => (headers[name] = value), ip, state: {} } as unknown as LedgerContext;
    try {
      await middleware(ctx, async () => undefined);
      return { code: 'ok', headers };
    } catch (error) {
      return { code: (error as { code: string }).code, headers };
    }
  };
  return { reads, attempt };
}

it('refuses unknown keys from one address with 429 past the limit, without looking the key up', async () => {
  const { reads, attempt } = authenticator();
  const answers = [];
  for (let i = 0; i < 10; i++) answers.push(await attempt(`lk_made_up_${i}`, '198.51.100.7'));
  expect(answers.map((a) => a.code)).toEqual([...Array(3).fill('UNAUTHENTICATED'), ...Array(7).fill('RATE_LIMITED')]);
  expect(reads.count).toBe(3);
  expect(Number(answers.at(-1)!.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  // Another address has its own allowance.
  expect((await attempt('lk_other', '198.51.100.8')).code).toBe('UNAUTHENTICATED');
});

it('charges nothing to the address of a valid key, even for many concurrent first requests', async () => {
  const { reads, attempt } = authenticator();
  const answers = await Promise.all(Array.from({ length: 10 }, () => attempt(VALID, '198.51.100.7')));
  expect(answers.map((a) => a.code)).toEqual(Array(10).fill('ok'));
  // One lookup (key and organization) for all of them, and the address's 3 unknown-key requests are all still there.
  expect(reads.count).toBe(2);
  for (let i = 0; i < 3; i++) expect((await attempt(`lk_made_up_${i}`, '198.51.100.7')).code).toBe('UNAUTHENTICATED');
  expect((await attempt('lk_made_up_3', '198.51.100.7')).code).toBe('RATE_LIMITED');
});
