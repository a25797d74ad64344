/** The rate limits' decisions (in-process store) and authentication's: failed authentications limited per address, valid keys always served. */
import type { ApiDeps, LedgerContext } from '../../src/api/context';
import { createCallerCache } from '../../src/api/caller-cache';
import { createRateLimits } from '../../src/api/rate-limits';
import { authenticate, rateLimit } from '../../src/api/middleware';
import { hashApiKey } from '../../src/custody/credentials';
import { openApiDocument } from '../../src/api/app';

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
  expect(await perApiKey.take('key-b')).toMatchObject({ allowed: true, remaining: 4 });
});

/** Koa's ctx.set takes one header or an object of them; the fake records both. */
const headerSink = (headers: Record<string, string>) => (name: string | Record<string, string>, value?: string) =>
  typeof name === 'string' ? (headers[name] = value!) : Object.assign(headers, name);

it('tells every answer of a key its limit in the IETF RateLimit header fields (draft 8), the refused ones with Retry-After too', async () => {
  const middleware = rateLimit(createRateLimits(settings, { kind: 'memory' }).perApiKey, settings.perSecond);
  const answers = [];
  for (let i = 0; i < 6; i++) {
    const headers: Record<string, string> = {};
    const ctx = { set: headerSink(headers), state: { caller: { apiKeyId: 'key-a' } } } as unknown as LedgerContext;
    const code = await middleware(ctx, async () => undefined).then(
      () => 'ok',
      (error: { code: string }) => error.code,
    );
    answers.push({ code, headers });
  }
  expect(answers.map((a) => a.code)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'RATE_LIMITED']);
  // 5 per window of 5 s (burst 5 at 1/s); r counts down to 0; t is the whole seconds left in the window.
  for (const { headers } of answers) expect(headers['RateLimit-Policy']).toBe('"api-key";q=5;w=5');
  expect(answers.map((a) => a.headers.RateLimit.replace(/;t=[1-5]$/, ''))).toEqual([4, 3, 2, 1, 0, 0].map((r) => `"api-key";r=${r}`));
  expect(answers.slice(0, 5).every((a) => a.headers['Retry-After'] === undefined)).toBe(true);
  expect(Number(answers[5].headers['Retry-After'])).toBeGreaterThanOrEqual(1);
});

const VALID = 'lk_valid';
/** authenticate over a fake key table holding VALID only, recording its queries (the key hashes each asked for). */
function authenticator(options: { failNext?: boolean } = {}) {
  const reads = { count: 0, keyQueries: [] as string[][], inFlight: 0, mostInFlight: 0 };
  const em = {
    find: async (_entity: unknown, where: { keyHash?: { $in: string[] }; id?: { $in: string[] } }) => {
      reads.count++;
      reads.mostInFlight = Math.max(reads.mostInFlight, ++reads.inFlight);
      try {
        await Promise.resolve();
        if (!where.keyHash) return where.id!.$in.map((id) => ({ id, externalId: 'acme' }));
        reads.keyQueries.push(where.keyHash.$in);
        if (options.failNext) {
          options.failNext = false;
          throw new Error('connection refused');
        }
        return where.keyHash.$in
          .filter((hash) => hash === hashApiKey(VALID))
          .map((keyHash) => ({ id: 'k1', organizationId: 'o1', keyHash, roles: ['LEDGER_READ'] }));
      } finally {
        reads.inFlight--;
      }
    },
  };
  const deps = {
    orm: { em: { fork: () => em } },
    callers: createCallerCache(60_000),
    rateLimits: createRateLimits(settings, { kind: 'memory' }),
  } as unknown as ApiDeps;
  const middleware = authenticate(deps);
  /** key null: no Authorization header. */
  const attempt = async (key: string | null, ip: string) => {
    const headers: Record<string, string> = {};
    const ctx = {
      get: () => (key === null ? '' : `Bearer ${key}`),
      set: headerSink(headers),
      ip,
      state: {},
    } as unknown as LedgerContext;
    try {
      await middleware(ctx, async () => undefined);
      return { code: 'ok', headers, message: '' };
    } catch (error) {
      return { code: (error as { code: string }).code, headers, message: (error as Error).message };
    }
  };
  return { reads, attempt };
}

it('refuses failed authentications from one address with 429 past the limit; a key known to be unknown is not read again', async () => {
  const { reads, attempt } = authenticator();
  const answers = [];
  for (let i = 0; i < 10; i++) answers.push(await attempt(`lk_made_up_${i}`, '198.51.100.7'));
  expect(answers.map((a) => a.code)).toEqual([...Array(3).fill('UNAUTHENTICATED'), ...Array(7).fill('RATE_LIMITED')]);
  expect(Number(answers.at(-1)!.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  // The 401s and the 429s tell the address's allowance: 3 per 60 s.
  expect(answers.map((a) => a.headers['RateLimit-Policy'])).toEqual(Array(10).fill('"failed-authentications";q=3;w=60'));
  expect(answers.slice(0, 4).map((a) => a.headers.RateLimit.replace(/;t=\d+$/, ''))).toEqual([2, 1, 0, 0].map((r) => `"failed-authentications";r=${r}`));
  // Each new key was looked up once (it could have been valid); sent again, it is refused from the cache.
  expect(reads.count).toBe(10);
  expect((await attempt('lk_made_up_0', '198.51.100.7')).code).toBe('RATE_LIMITED');
  expect((await attempt(null, '198.51.100.7')).code).toBe('RATE_LIMITED');
  expect(reads.count).toBe(10);
  // Another address has its own allowance.
  expect((await attempt('lk_made_up_0', '198.51.100.8')).code).toBe('UNAUTHENTICATED');
  expect((await attempt(null, '198.51.100.8')).code).toBe('UNAUTHENTICATED');
});

it('serves a valid key never seen before from an address over its failed-authentication limit', async () => {
  const { attempt } = authenticator();
  for (let i = 0; i < 3; i++) expect((await attempt(`lk_made_up_${i}`, '198.51.100.7')).code).toBe('UNAUTHENTICATED');
  expect((await attempt('lk_made_up_3', '198.51.100.7')).code).toBe('RATE_LIMITED');
  expect((await attempt(VALID, '198.51.100.7')).code).toBe('ok');
  expect((await attempt(VALID, '198.51.100.7')).code).toBe('ok');
  // The address stays refused for what does not authenticate.
  const refused = await attempt('lk_made_up_4', '198.51.100.7');
  expect(refused.code).toBe('RATE_LIMITED');
  expect(refused.message).toMatch(/failed authentications from this address/);
});

it('charges nothing to the address of a valid key, even for many concurrent first requests', async () => {
  const { reads, attempt } = authenticator();
  const answers = await Promise.all(Array.from({ length: 10 }, () => attempt(VALID, '198.51.100.7')));
  expect(answers.map((a) => a.code)).toEqual(Array(10).fill('ok'));
  // authenticate reads no limit for a valid key, so it tells none: the key's own limit (rateLimit) does.
  expect(answers.every((a) => a.headers.RateLimit === undefined && a.headers['RateLimit-Policy'] === undefined)).toBe(true);
  // One lookup (key and organization) for all of them, and the address's 3 failed authentications are all still there.
  expect(reads.count).toBe(2);
  for (let i = 0; i < 3; i++) expect((await attempt(`lk_made_up_${i}`, '198.51.100.7')).code).toBe('UNAUTHENTICATED');
  expect((await attempt('lk_made_up_3', '198.51.100.7')).code).toBe('RATE_LIMITED');
});

it('looks a flood of new keys up one query at a time, each for every key waiting, and the valid key among them is served', async () => {
  const { reads, attempt } = authenticator();
  const keys = [...Array.from({ length: 30 }, (_, i) => `lk_flood_${i}`), VALID, ...Array.from({ length: 30 }, (_, i) => `lk_flood_${30 + i}`)];
  const answers = await Promise.all(keys.map((key) => attempt(key, '198.51.100.7')));
  expect(answers[30].code).toBe('ok');
  expect(answers.filter((a) => a.code === 'UNAUTHENTICATED')).toHaveLength(3);
  expect(answers.filter((a) => a.code === 'RATE_LIMITED')).toHaveLength(57);
  // The first key's query went alone; the 60 that arrived while it ran went together in the next.
  expect(reads.keyQueries.map((hashes) => hashes.length)).toEqual([1, 60]);
  expect(reads.mostInFlight).toBe(1);
});

it('fails the requests waiting on a lookup the database refused, and looks up again after', async () => {
  const { attempt } = authenticator({ failNext: true });
  const answers = await Promise.all([attempt(VALID, '198.51.100.7'), attempt(VALID, '198.51.100.7')]);
  expect(answers.map((a) => a.message)).toEqual(['connection refused', 'connection refused']);
  expect((await attempt(VALID, '198.51.100.7')).code).toBe('ok');
});

it('are documented in the OpenAPI document on every answer of an authenticated route, and only there', () => {
  const doc = openApiDocument('LEDGER') as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const created = doc.paths['/api/v1/accounts'].post.responses;
  for (const answer of [created['201'], created['202']]) expect(Object.keys(answer.headers)).toEqual(['x-request-id', 'RateLimit-Policy', 'RateLimit']);
  expect(doc.components.responses.RateLimited.headers).toHaveProperty('RateLimit-Policy');
  expect(doc.components.headers.RateLimit.description).toContain('r=<requests remaining>');
  expect(Object.keys(doc.paths['/health'].get.responses['200'].headers)).toEqual(['x-request-id']);
});
