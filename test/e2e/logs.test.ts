/**
 * The API's logs as an operator's tools read them: one JSON object per line with time and level, an
 * access line per request carrying its request id, route, status, time, organization and (for a
 * refusal) the error code without a stack; the private-key audit line; never an API key or a secret.
 */
import pino from 'pino';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

const lines: string[] = [];
let stack: Stack;
beforeAll(async () => {
  const logger = pino({ level: 'info', name: 'api' }, { write: (line: string) => void lines.push(line) });
  stack = await startStack({ logger });
});
afterAll(async () => {
  await stack?.close();
});

const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, any>);
const accessLine = (requestId: string) => waitFor(async () => parsed().find((entry) => entry.req?.id === requestId && entry.res));

it('writes one JSON access line per request with its request id, route, status, time and organization', async () => {
  await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {}, { headers: { 'x-request-id': 'log-ok-1' } });
  const entry = await accessLine('log-ok-1');
  expect(entry).toMatchObject({ level: 30, name: 'api', req: { method: 'POST', url: '/api/v1/accounts/bulk/identifiers' }, res: { statusCode: 200 }, route: '/api/v1/accounts/bulk/:detailLevel', organization: stack.organizationExternalId });
  expect(typeof entry.time).toBe('number');
  expect(typeof entry.responseTime).toBe('number');
  expect(entry.req).not.toHaveProperty('headers');
});

it('logs a refusal once, at info, with its error code and no stack', async () => {
  await stack.call('POST', '/api/v1/accounts', { itemData: { managed: 'yes' } }, { headers: { 'x-request-id': 'log-refused-1' } });
  const entry = await accessLine('log-refused-1');
  expect(entry).toMatchObject({ level: 30, res: { statusCode: 400 }, errorCode: 'VALIDATION_ERROR' });
  expect(parsed().filter((e) => JSON.stringify(e).includes('log-refused-1'))).toHaveLength(1);
  expect(JSON.stringify(entry)).not.toMatch(/\bat .*\.ts:\d+/);
});

it('audits a private-key read without the key, and never logs an API key', async () => {
  const account = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
  const exported = await stack.call('POST', '/api/v1/accounts/private-key', { itemData: { account: { offchainId: account.offchainId } } }, { headers: { 'x-request-id': 'log-audit-1' } });
  expect(exported.status).toBe(200);
  await accessLine('log-audit-1');
  const audit = parsed().find((entry) => entry.audit === true && String(entry.msg).includes(account.onchainId));
  expect(audit).toBeDefined();
  const everything = lines.join('\n');
  expect(everything).not.toContain(stack.apiKey);
  for (const value of Object.values(exported.body).flatMap((v) => (typeof v === 'object' && v ? Object.values(v) : [v]))) {
    if (typeof value === 'string' && value.length > 40) expect(everything).not.toContain(value);
  }
});
