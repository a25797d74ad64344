/** The admin CLI's contract, run as scripts run it: one JSON object on stdout, errors on stderr with exit 1. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/database';
import { createOrm, migrationNames } from '../../src/db/orm';
import { ApiKey } from '../../src/db/entities';
import { hashApiKey } from '../../src/custody/credentials';

const run = promisify(execFile);
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  db = await createTestDatabase();
  env = { ...process.env, DATABASE_URL: db.url, KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), NODE_OPTIONS: '' };
});
afterAll(async () => {
  await db.drop();
});

const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/main.ts'), ...args], { env });

it('migrates, creates organizations and API keys, and refuses unknown roles', async () => {
  expect(JSON.parse((await cli('migrate')).stdout)).toEqual({ applied: migrationNames });
  expect(JSON.parse((await cli('migrate')).stdout)).toEqual({ applied: [] });

  const org = JSON.parse((await cli('organizations', 'create', '--external-id', 'acme', '--name', 'Acme')).stdout);
  expect(org).toMatchObject({ organization: { externalId: 'acme', name: 'Acme' }, created: true });
  expect(JSON.parse((await cli('organizations', 'create', '--external-id', 'acme')).stdout).created).toBe(false);

  const { stdout } = await cli('api-keys', 'create', '--organization', 'newco', '--roles', 'LEDGER_READ,LEDGER_WRITE');
  expect(stdout.trim().split('\n')).toHaveLength(1);
  const key = JSON.parse(stdout);
  expect(key).toMatchObject({ apiKey: expect.stringMatching(/^lk_/), organization: 'newco', roles: ['LEDGER_READ', 'LEDGER_WRITE'] });

  // Stored only as a hash.
  const orm = await createOrm({ databaseUrl: db.url });
  const stored = await orm.em.fork().findOneOrFail(ApiKey, { id: key.id });
  expect(stored.keyHash).toBe(hashApiKey(key.apiKey));
  expect(JSON.stringify(stored)).not.toContain(key.apiKey);
  await orm.close();

  await expect(cli('api-keys', 'create', '--organization', 'newco', '--roles', 'LEDGER_BOGUS')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('unknown role "LEDGER_BOGUS"') });
  await expect(cli('nonsense')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('usage') });
});
