/**
 * The service's logs as an operator's tools read them: one JSON object per line with time and level, an
 * access line per request carrying its request id, route, status, time, organization and (for a
 * refusal) the error code without a stack; the private-key audit line; never an API key or a secret.
 * The worker's lines (the Temporal SDK's included) in the same log: a business refusal inside a write
 * is an info line with its code, never a warning; a fault still warns, with its error.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { installSdkLogger } from '../../src/main/worker';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

const lines: string[] = [];
let stack: Stack;
/** The idempotency key of the write whose lookup fails once with a fault (a plain Error: retried, then done). */
const FAULT_KEY = `log-fault-${randomUUID()}`;
let faultWorkflowId: string | undefined;
beforeAll(async () => {
  const logger = pino({ level: 'info', name: 'api' }, { write: (line: string) => void lines.push(line) });
  // The SDK's runtime is process-wide: installed here, before the stack connects, at its production level.
  installSdkLogger(logger, 'WARN');
  stack = await startStack({
    logger,
    wrapSteps: (steps) => ({
      ...steps,
      async lookup(request) {
        if (request.idempotencyKey === FAULT_KEY && !faultWorkflowId) {
          faultWorkflowId = request.workflowId;
          throw new Error('log test: the database connection was lost');
        }
        return steps.lookup(request);
      },
    }),
  });
});
afterAll(async () => {
  await stack?.close();
});

const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, any>);
const accessLine = (requestId: string) => waitFor(async () => parsed().find((entry) => entry.req?.id === requestId && entry.res));

it('writes one JSON access line per request with its request id, route, status, time and organization', async () => {
  await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {}, { headers: { 'x-request-id': 'log-ok-1' } });
  const entry = await accessLine('log-ok-1');
  expect(entry).toMatchObject({
    level: 30,
    name: 'api',
    req: { method: 'POST', url: '/api/v1/accounts/bulk/identifiers' },
    res: { statusCode: 200 },
    route: '/api/v1/accounts/bulk/:detailLevel',
    organization: stack.organizationExternalId,
  });
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
  const exported = await stack.call(
    'POST',
    '/api/v1/accounts/private-key',
    { itemData: { account: { offchainId: account.offchainId } } },
    { headers: { 'x-request-id': 'log-audit-1' } },
  );
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

/** A write whose lookup fails once with a fault: its warning is the SDK's line "Activity failed" with the error. */
async function faultWarning() {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } }, { headers: { 'idempotency-key': FAULT_KEY } });
  expect(created.status).toBe(201);
  return waitFor(async () => parsed().find((entry) => entry.level === 40 && entry.workflowId === faultWorkflowId && /lost/.test(JSON.stringify(entry))));
}

it('logs a business refusal inside a write at info with its code, activity and workflow, and nothing at warn or error', async () => {
  const refused = await stack.call(
    'POST',
    '/api/v1/accounts',
    { itemData: {}, svmTransactionConfig: { feePayer: { offchainId: randomUUID() } } },
    { headers: { 'x-request-id': 'log-refused-write-1' } },
  );
  expect(refused).toMatchObject({ status: 404, body: { errors: [{ code: 'NOT_FOUND', field: 'svmTransactionConfig.feePayer' }] } });
  const refusal = await waitFor(async () => parsed().find((entry) => entry.errorCode === 'NOT_FOUND' && entry.activityType === 'prepare'));
  expect(refusal).toMatchObject({
    level: 30,
    errorCode: 'NOT_FOUND',
    field: 'svmTransactionConfig.feePayer',
    activityType: 'prepare',
    workflowType: 'ledgerWrite',
    workflowId: expect.stringContaining('log-refused-write-1'),
  });
  expect(await accessLine('log-refused-write-1')).toMatchObject({ level: 30, res: { statusCode: 404 }, errorCode: 'NOT_FOUND' });
  // The SDK's lines leave in time order (buffered, sorted): once a later fault's warning is out, any line of the refusal is too.
  await faultWarning();
  // No warning or error of any write but the fault's, nor one naming the refusal (a process-wide SDK
  // warning, e.g. on a container's memory limit, is about no write).
  const aboutTheRefusal = (entry: Record<string, any>) => /NOT_FOUND|log-refused-write-1/.test(JSON.stringify(entry));
  expect(
    parsed().filter((entry) => entry.level >= 40 && entry.workflowId !== faultWorkflowId && (entry.workflowId !== undefined || aboutTheRefusal(entry))),
  ).toEqual([]);
});

it('still logs a fault inside a write at warn, with its error, activity and workflow', async () => {
  const warning = await (faultWorkflowId
    ? waitFor(async () => parsed().find((entry) => entry.level === 40 && entry.workflowId === faultWorkflowId))
    : faultWarning());
  expect(warning).toMatchObject({
    sdk: true,
    msg: 'Activity failed',
    activityType: 'prepare',
    workflowId: faultWorkflowId,
    err: { type: 'Error', message: 'log test: the database connection was lost' },
  });
  expect(warning.err.stack).toContain('log test');
});
