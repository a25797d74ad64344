/**
 * Revoking or rotating an API key with the admin CLI (another process) takes effect in the running
 * API at once, though the API keeps callers cached: the CLI announces the change (NOTIFY) and the
 * API forgets the key (test/unit/caller-cache.test.ts: what is cached).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

const run = promisify(execFile);
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const cli = async (...args: string[]) => {
  const env = { ...process.env, DATABASE_URL: stack.config.databaseUrl, KEY_ENCRYPTION_KEY: stack.config.keyEncryptionKey, NODE_OPTIONS: '' };
  return JSON.parse((await run(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/main.ts'), ...args], { env })).stdout);
};
const status = async (apiKey: string) => (await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {}, { apiKey })).status;
/** Well under the API's 60 s cache: only the announcement can explain a refusal this soon. */
const SOON_MS = 5_000;

it('refuses a revoked key at once, though it was just used (and cached)', async () => {
  const created = await cli('api-keys', 'create', '--organization', stack.organizationExternalId, '--roles', 'LEDGER_READ');
  expect(await status(created.apiKey)).toBe(200);
  expect(await status(created.apiKey)).toBe(200);
  await cli('api-keys', 'revoke', '--id', created.id);
  await waitFor(async () => (await status(created.apiKey)) === 401, SOON_MS);
});

it('rotates: the old key stops, the new one works', async () => {
  const created = await cli('api-keys', 'create', '--organization', stack.organizationExternalId, '--roles', 'LEDGER_READ');
  expect(await status(created.apiKey)).toBe(200);
  const rotated = await cli('api-keys', 'rotate', '--id', created.id);
  expect(await status(rotated.apiKey)).toBe(200);
  await waitFor(async () => (await status(created.apiKey)) === 401, SOON_MS);
});
