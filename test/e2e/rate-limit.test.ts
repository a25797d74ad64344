/**
 * The rate limits shared by every API process (PostgreSQL store): two APIs over one database let a
 * key through its limit once in total, failed authentications are limited per address while a valid
 * key from that address is still served (by its own limit), and a store that does not answer leaves
 * each process limiting on its own.
 */
import { Pool } from 'pg';
import { startStack, type Stack } from '../support/stack';
import { temporalTarget } from '../support/temporal';
import { startApi, type ApiServer } from '../../src/main/api';
import { createRateLimits } from '../../src/api/rate-limits';
import { apiKeyLookups, rateLimitStoreFallbacks } from '../../src/observability/metrics';

const BURST = 20;
const UNKNOWN_KEYS = 5;
let stack: Stack;
let second: ApiServer;
beforeAll(async () => {
  // A refill of 1/s: the burst of 20 decides the outcome over the few seconds a test takes.
  stack = await startStack({ rateLimit: { perSecond: 1, burst: BURST, unknownKeys: { points: UNKNOWN_KEYS, seconds: 60 } } });
  // A second API process's share: its own limiters and caches, the same database.
  second = await startApi(stack.config, stack.runtime, temporalTarget(), () => {}, { port: 0, hostWorker: false });
});
afterAll(async () => {
  await second?.close();
  await stack?.close();
});

const counter = async (metric: typeof apiKeyLookups) => (await metric.get()).values[0]?.value ?? 0;
async function call(base: string, apiKey: string | null, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/v1/accounts/bulk/identifiers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
    body: '{}',
  });
  return {
    status: response.status,
    body: (await response.json()) as { errors?: { code: string; message: string }[] },
    retryAfter: response.headers.get('retry-after'),
    rateLimit: response.headers.get('ratelimit'),
    rateLimitPolicy: response.headers.get('ratelimit-policy'),
  };
}

it('lets a key through its burst once across two API processes, not once per process', async () => {
  const key = await stack.newApiKey(stack.organizationExternalId, ['READ']);
  const fallbacks = await counter(rateLimitStoreFallbacks);
  const answers = await Promise.all(Array.from({ length: 2 * BURST }, (_, i) => call(i % 2 ? second.url : stack.api.url, key)));
  const accepted = answers.filter((a) => a.status === 200);
  // Per-process limits would accept 2 × 20 = 40 here.
  expect(accepted.length).toBeGreaterThanOrEqual(BURST);
  expect(accepted.length).toBeLessThanOrEqual(BURST + 2);
  const limited = answers.filter((a) => a.status === 429);
  expect(limited.length).toBe(answers.length - accepted.length);
  for (const answer of limited) {
    expect(answer.body.errors![0].code).toBe('RATE_LIMITED');
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(answer.rateLimit).toMatch(/^"api-key";r=0;t=\d+$/);
  }
  // Every answer tells the key's limit (IETF RateLimit header fields); the shared count decides what remains.
  expect(answers.map((a) => a.rateLimitPolicy)).toEqual(Array(answers.length).fill(`"api-key";q=${BURST};w=${BURST}`));
  const remaining = accepted.map((a) => Number(/;r=(\d+);/.exec(a.rateLimit!)![1]));
  for (const r of remaining) expect(r).toBeLessThan(BURST);
  // Both processes now refuse the key: the count they share is spent.
  expect((await call(stack.api.url, key)).status).toBe(429);
  expect((await call(second.url, key)).status).toBe(429);
  expect(await counter(rateLimitStoreFallbacks)).toBe(fallbacks);
});

it('refuses failed authentications per address with 429 once over the limit; a valid key from that address is still served', async () => {
  // A key seen before the flood stays usable from the same address.
  expect((await call(stack.api.url, stack.apiKey)).status).toBe(200);
  const lookups = await counter(apiKeyLookups);
  const answers = [];
  for (let i = 0; i < 30; i++) answers.push(await call(i % 2 ? second.url : stack.api.url, `lk_made_up_${i}`));
  expect(answers.slice(0, UNKNOWN_KEYS).map((a) => a.status)).toEqual(Array(UNKNOWN_KEYS).fill(401));
  expect(answers.slice(UNKNOWN_KEYS).map((a) => a.status)).toEqual(Array(30 - UNKNOWN_KEYS).fill(429));
  expect(answers.at(-1)!.body.errors![0].code).toBe('RATE_LIMITED');
  expect(Number(answers.at(-1)!.retryAfter)).toBeGreaterThanOrEqual(1);
  // Sequential, so the shared count shows exactly: the 401s and 429s tell the address's allowance.
  expect(answers.map((a) => a.rateLimitPolicy)).toEqual(Array(30).fill(`"failed-authentications";q=${UNKNOWN_KEYS};w=60`));
  expect(answers.slice(0, UNKNOWN_KEYS + 1).map((a) => a.rateLimit!.replace(/;t=\d+$/, ''))).toEqual(
    [4, 3, 2, 1, 0, 0].map((r) => `"failed-authentications";r=${r}`),
  );
  // Each new key was looked up once (it might have been valid); sent again, it is refused from the cache.
  expect((await counter(apiKeyLookups)) - lookups).toBe(30);
  expect((await call(stack.api.url, 'lk_made_up_0')).status).toBe(429);
  expect((await counter(apiKeyLookups)) - lookups).toBe(30);
  // No key at all counts the same way.
  expect((await call(second.url, null)).status).toBe(429);
  // A key created now, in neither process's cache: served from the same address, by both processes.
  const fresh = await stack.newApiKey(stack.organizationExternalId, ['READ']);
  expect((await call(stack.api.url, fresh)).status).toBe(200);
  expect((await call(second.url, fresh)).status).toBe(200);
  expect((await call(stack.api.url, stack.apiKey)).status).toBe(200);
  // X-Forwarded-For is the client's to write: without a trusted proxy it changes nothing.
  expect((await call(stack.api.url, 'lk_spoofed', { 'x-forwarded-for': '203.0.113.1' })).status).toBe(429);
});

it('serves a key no process has seen from an address over its failed-authentication limit, by its own limit, also after a restart', async () => {
  // Windows of 50 min or more (the key: 3 requests; the address: 5 failures), so nothing here depends on
  // the machine's speed; the client's address comes through a trusted proxy, apart from the other tests'.
  const config = {
    ...stack.config,
    trustProxyHops: 1,
    rateLimit: { ...stack.config.rateLimit, perSecond: 0.001, burst: 3, unknownKeys: { points: UNKNOWN_KEYS, seconds: 3600 } },
  };
  const client = { 'x-forwarded-for': '203.0.113.60' };
  const start = () => startApi(config, stack.runtime, temporalTarget(), () => {}, { port: 0, hostWorker: false });
  let api = await start();
  try {
    for (let i = 0; i < UNKNOWN_KEYS; i++) expect((await call(api.url, `lk_noisy_${i}`, client)).status).toBe(401);
    const flooded = await call(api.url, 'lk_noisy_x', client);
    expect(flooded.status).toBe(429);
    expect(Number(flooded.retryAfter)).toBeGreaterThan(60);

    // Created now: no API process has it cached.
    const key = await stack.newApiKey(stack.organizationExternalId, ['READ']);
    const served = [];
    for (let i = 0; i < 4; i++) served.push(await call(api.url, key, client));
    expect(served.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    // The fourth is the key's own limit, not the address's.
    expect(served[3].body.errors![0].message).toMatch(/for this API key/);
    // What does not authenticate stays refused: the valid key's requests did not clear the address.
    expect((await call(api.url, 'lk_noisy_y', client)).status).toBe(429);
    expect((await call(api.url, null, client)).status).toBe(429);

    // A restart: the new process has nothing cached; the counts are in the shared store.
    const later = await stack.newApiKey(stack.organizationExternalId, ['READ']);
    await api.close();
    api = await start();
    expect((await call(api.url, later, client)).status).toBe(200);
    const spent = await call(api.url, key, client);
    expect(spent.status).toBe(429);
    expect(spent.body.errors![0].message).toMatch(/for this API key/);
    expect((await call(api.url, 'lk_noisy_0', client)).status).toBe(429);
    expect((await call(api.url, 'lk_noisy_z', client)).status).toBe(429);
  } finally {
    await api.close();
  }
});

it('behind a trusted proxy, counts the address the proxy appended, not what the client wrote before it', async () => {
  const behindProxy = await startApi({ ...stack.config, trustProxyHops: 1 }, stack.runtime, temporalTarget(), () => {}, { port: 0, hostWorker: false });
  try {
    const from = (client: string, written = '') => ({ 'x-forwarded-for': written ? `${written}, ${client}` : client });
    for (let i = 0; i < UNKNOWN_KEYS; i++) expect((await call(behindProxy.url, `lk_proxied_${i}`, from('203.0.113.7'))).status).toBe(401);
    expect((await call(behindProxy.url, 'lk_proxied_x', from('203.0.113.7'))).status).toBe(429);
    // A made-up entry before the proxy's does not give the same client a new allowance; another client has its own.
    expect((await call(behindProxy.url, 'lk_proxied_y', from('203.0.113.7', '198.51.100.1'))).status).toBe(429);
    expect((await call(behindProxy.url, 'lk_proxied_z', from('203.0.113.8'))).status).toBe(401);
  } finally {
    await behindProxy.close();
  }
});

it('limits each process on its own while the store does not answer', async () => {
  // A pool to a port where nothing listens: every store call fails, the in-process insurance decides.
  const unreachable = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/ledger', connectionTimeoutMillis: 200 });
  try {
    const fallbacks = await counter(rateLimitStoreFallbacks);
    const { perApiKey } = createRateLimits({ perSecond: 1, burst: 3, unknownKeys: { points: 1, seconds: 60 } }, { kind: 'postgresql', pool: unreachable });
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push(await perApiKey.take('key'));
    expect(taken.map((t) => t.allowed)).toEqual([true, true, true, false, false]);
    expect(await counter(rateLimitStoreFallbacks)).toBeGreaterThan(fallbacks);
  } finally {
    await unreachable.end();
  }
});
