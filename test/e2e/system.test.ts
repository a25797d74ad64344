/** Health, readiness, the OpenAPI document, the docs page, request ids and rate limiting. */
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  // A slow refill (1/s) so the burst of 5 decides the outcome even on a loaded machine.
  stack = await startStack({ rateLimit: { perSecond: 1, burst: 5 } });
});
afterAll(async () => {
  await stack?.close();
});

it('answers /health and /ready without a key', async () => {
  expect(await stack.call('GET', '/health', undefined, { apiKey: null })).toMatchObject({ status: 200, body: { status: 'ok' } });
  expect(await stack.call('GET', '/ready', undefined, { apiKey: null })).toMatchObject({ status: 200, body: { status: 'ready' } });
});

it('serves an OpenAPI document built from the request codecs, and a docs page', async () => {
  const doc = await stack.call('GET', '/api/v1/openapi.json', undefined, { apiKey: null });
  expect(doc.status).toBe(200);
  expect(doc.body.openapi).toBe('3.1.0');
  const create = doc.body.paths['/api/v1/accounts'].post;
  expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateAccountRequest' });
  const itemData = doc.body.components.schemas.CreateAccountItemData;
  expect(itemData.additionalProperties).toBe(false);
  expect(itemData.properties.dataLength).toMatchObject({ type: 'integer', minimum: 0 });
  expect(itemData.properties.privateKeyDetails).toEqual({ $ref: '#/components/schemas/PrivateKeyDetails' });
  expect(doc.body.components.schemas.PrivateKeyDetails.properties).toHaveProperty('publickKey');
  expect(doc.body.components.schemas.ErrorBody.properties.errors.items.properties.code.enum).toEqual(
    expect.arrayContaining(['VALIDATION_ERROR', 'LIMIT_EXCEEDED', 'TRANSACTION_TOO_LARGE']),
  );
  expect(Object.keys(doc.body.paths)).toEqual(
    expect.arrayContaining([
      '/api/v1/accounts/bulk/{detailLevel}',
      '/api/v1/transactions/status',
      '/api/v1/transactions/single',
      '/api/v1/transactions/bulk/{detailLevel}',
    ]),
  );
});

it('serves /docs as Swagger UI from its own files (offline), set up on this document with Try it out', async () => {
  const get = (path: string) => stack.call('GET', path, undefined, { apiKey: null });
  const docs = await get('/docs');
  expect(docs.status).toBe(200);
  expect(docs.headers.get('content-type')).toContain('text/html');
  const scripts = [...String(docs.body).matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
  expect(scripts).toEqual(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/docs.js']);
  expect(String(docs.body)).not.toMatch(/https?:\/\//);
  const bundle = await get(scripts[0]);
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get('content-type')).toContain('javascript');
  expect(String(bundle.body)).toContain('SwaggerUIBundle');
  const setup = String((await get(scripts[1])).body);
  expect(setup).toContain("url: '/api/v1/openapi.json'");
  expect(setup).toContain('tryItOutEnabled: true');
  expect((await get('/docs/assets/swagger-ui.css')).headers.get('content-type')).toContain('text/css');
  expect((await get('/docs/assets/package.json')).status).toBe(400);
});

it('echoes x-request-id, or makes one, in the header and in error bodies', async () => {
  const given = await stack.call('GET', '/health', undefined, { apiKey: null, headers: { 'x-request-id': 'req-123' } });
  expect(given.headers.get('x-request-id')).toBe('req-123');
  const refused = await stack.call('POST', '/api/v1/accounts/single', {}, { apiKey: null });
  expect(refused.status).toBe(401);
  expect(refused.body.requestId).toBe(refused.headers.get('x-request-id'));
  expect(refused.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
});

it('limits each API key to its rate, answering 429 with Retry-After', async () => {
  const key = await stack.newApiKey(stack.organizationExternalId, ['READ']);
  const answers = await Promise.all(Array.from({ length: 8 }, () => stack.call('POST', '/api/v1/accounts/bulk/identifiers', {}, { apiKey: key })));
  const statuses = answers.map((a) => a.status).sort();
  expect(statuses.filter((s) => s === 200)).toHaveLength(5);
  const limited = answers.find((a) => a.status === 429)!;
  expect(limited.body.errors[0].code).toBe('RATE_LIMITED');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // Another key has its own bucket.
  expect((await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {})).status).toBe(200);
});

/** Prometheus text as series → value (`name{labels}` exactly as exposed). */
function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

it('exposes Prometheus metrics at /metrics: requests, latency histograms, refusals, writes, confirm latency, Node runtime', async () => {
  // Its own keys: the file's rate limit is a burst of 5 per key.
  const [admin, writer] = [
    await stack.newApiKey(stack.organizationExternalId, ['ADMIN']),
    await stack.newApiKey(stack.organizationExternalId, ['READ', 'WRITE']),
  ];
  const scrape = async () => {
    const answer = await stack.call('GET', '/metrics', undefined, { apiKey: admin });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/plain');
    return parseMetrics(answer.body);
  };
  expect((await stack.call('GET', '/metrics', undefined, { apiKey: null })).status).toBe(401);
  const before = await scrape();
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.01 } } }, { apiKey: writer });
  expect(created.status).toBe(201);
  await stack.call('POST', '/api/v1/accounts/single', {}, { apiKey: null });
  const after = await scrape();
  const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);

  expect(delta('ledger_http_requests_total{method="POST",route="/api/v1/accounts",status="201"}')).toBe(1);
  expect(delta('ledger_http_request_duration_seconds_count{method="POST",route="/api/v1/accounts"}')).toBe(1);
  expect(after.get('ledger_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/v1/accounts"}')).toBe(
    after.get('ledger_http_request_duration_seconds_count{method="POST",route="/api/v1/accounts"}'),
  );
  expect(delta('ledger_api_errors_total{code="UNAUTHENTICATED"}')).toBeGreaterThanOrEqual(1);
  expect(delta('ledger_writes_total{operation="CREATE_ACCOUNT",status="CONFIRMED"}')).toBe(1);
  expect(delta('ledger_write_confirm_seconds_count{cluster="LOCAL",commitment="confirmed"}')).toBe(1);
  expect(after.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect([...after.keys()].some((name) => name.startsWith('nodejs_eventloop_lag_p99_seconds'))).toBe(true);
});

it('answers a known path with a wrong method 405 with Allow, an unknown path 404, both with the error body', async () => {
  const wrong = await stack.call('GET', '/api/v1/accounts', undefined, { apiKey: null });
  expect(wrong.status).toBe(405);
  expect(wrong.headers.get('allow')).toBe('POST, PATCH');
  expect(wrong.body.errors[0]).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  expect(wrong.body.requestId).toBe(wrong.headers.get('x-request-id'));
  const unknown = await stack.call('POST', '/api/v1/nothing-here', {}, { apiKey: null });
  expect(unknown.status).toBe(404);
  expect(unknown.body.errors[0]).toMatchObject({ code: 'NOT_FOUND' });
});

it('refuses a body that is not declared JSON with 415 and runs nothing', async () => {
  // Its own key: the file's rate limit is a burst of 5 per key.
  const apiKey = await stack.newApiKey(stack.organizationExternalId, ['READ', 'WRITE']);
  const call = (path: string, body: string, contentType: string) => stack.call('POST', path, body, { apiKey, headers: { 'content-type': contentType } });
  const count = async () => (await call('/api/v1/accounts/bulk/identifiers', '{}', 'application/json')).body.count as number;
  const before = await count();
  const body = JSON.stringify({ itemData: { managed: true } });
  const plain = await call('/api/v1/accounts', body, 'text/plain');
  expect(plain.status).toBe(415);
  expect(plain.body.errors[0]).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: '(body)' });
  const form = await call('/api/v1/accounts', 'itemData=1', 'application/x-www-form-urlencoded');
  expect(form.status).toBe(415);
  // JSON with a charset, or a +json type, is JSON.
  expect((await call('/api/v1/accounts/bulk/identifiers', '{}', 'application/json; charset=utf-8')).status).toBe(200);
  expect(await count()).toBe(before);
});
