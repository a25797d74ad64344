/** The admin CLI's contract, run as scripts run it: one JSON object on stdout, errors on stderr with exit 1, usage errors exit 2. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/database';
import { Client } from 'pg';
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

const cli = (...args: string[]) => cliOn(env, ...args);
const cliOn = (environment: NodeJS.ProcessEnv, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/main.ts'), ...args], { env: environment });

it('migrates, creates organizations and API keys, and refuses unknown roles as usage errors', async () => {
  expect(JSON.parse((await cli('migrate')).stdout)).toEqual({ applied: migrationNames });
  expect(JSON.parse((await cli('migrate')).stdout)).toEqual({ applied: [] });

  const org = JSON.parse((await cli('organizations', 'create', '--external-id', 'acme', '--name', 'Acme')).stdout);
  expect(org).toMatchObject({ organization: { externalId: 'acme', name: 'Acme' }, created: true });
  expect(JSON.parse((await cli('organizations', 'create', '--external-id', 'acme')).stdout).created).toBe(false);

  // A typo in --organization does not make a new organization: it must exist unless --create.
  await expect(cli('api-keys', 'create', '--organization', 'acmee', '--roles', 'LEDGER_READ')).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('no organization "acmee"'),
  });
  const { stdout } = await cli('api-keys', 'create', '--organization', 'newco', '--create', '--roles', 'LEDGER_READ,LEDGER_WRITE');
  expect(stdout.trim().split('\n')).toHaveLength(1);
  const key = JSON.parse(stdout);
  expect(key).toMatchObject({ apiKey: expect.stringMatching(/^lk_/), organization: 'newco', roles: ['LEDGER_READ', 'LEDGER_WRITE'] });

  // Stored only as a hash.
  const orm = await createOrm({ databaseUrl: db.url });
  const stored = await orm.em.fork().findOneOrFail(ApiKey, { id: key.id });
  expect(stored.keyHash).toBe(hashApiKey(key.apiKey));
  expect(JSON.stringify(stored)).not.toContain(key.apiKey);
  await orm.close();

  await expect(cli('api-keys', 'create', '--organization', 'newco', '--roles', 'LEDGER_BOGUS')).rejects.toMatchObject({
    code: 2,
    stdout: '',
    stderr: expect.stringMatching(/unknown role "LEDGER_BOGUS"[\s\S]*Usage: cli api-keys create/),
  });
  const listed = JSON.parse((await cli('organizations', 'list')).stdout).organizations.map((o: { externalId: string }) => o.externalId);
  expect(listed).toEqual(['acme', 'newco']);
});

it('lists, revokes and rotates API keys without ever printing a stored key', async () => {
  const first = JSON.parse((await cli('api-keys', 'create', '--organization', 'listco', '--create', '--roles', 'LEDGER_READ')).stdout);
  const listed = JSON.parse((await cli('api-keys', 'list', '--organization', 'listco')).stdout);
  expect(listed.apiKeys).toEqual([
    expect.objectContaining({ id: first.id, organization: 'listco', roles: ['LEDGER_READ'], keyPrefix: first.apiKey.slice(0, 10), revokedAt: null }),
  ]);
  expect(JSON.stringify(listed)).not.toContain(first.apiKey);

  const rotated = JSON.parse((await cli('api-keys', 'rotate', '--id', first.id)).stdout);
  expect(rotated).toMatchObject({ apiKey: expect.stringMatching(/^lk_/), organization: 'listco', roles: ['LEDGER_READ'], revoked: first.id });
  const revoked = JSON.parse((await cli('api-keys', 'revoke', '--id', rotated.id)).stdout);
  expect(revoked).toMatchObject({ id: rotated.id, revokedAt: expect.any(String) });
  // Idempotent: the first revocation time stays.
  expect(JSON.parse((await cli('api-keys', 'revoke', '--id', rotated.id)).stdout).revokedAt).toBe(revoked.revokedAt);
  expect(JSON.parse((await cli('api-keys', 'list', '--organization', 'listco')).stdout).apiKeys).toEqual([]);
  expect(JSON.parse((await cli('api-keys', 'list', '--organization', 'listco', '--include-revoked')).stdout).apiKeys.map((k: { id: string }) => k.id)).toEqual([
    first.id,
    rotated.id,
  ]);
  await expect(cli('api-keys', 'revoke', '--id', '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('no API key'),
  });
});

it('prints help on stdout with exit 0, and usage errors on stderr with exit 2', async () => {
  const help = await cli('api-keys', '--help');
  expect(help.stdout).toContain('revoke');
  await expect(cli('nonsense')).rejects.toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining("unknown command 'nonsense'") });
  await expect(cli('api-keys', 'create', '--organization', 'acme')).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringContaining("required option '--roles <roles>'"),
  });
  await expect(cli('api-keys')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: cli api-keys') });
});

it('lists without migrating: a read-only command on a schema with pending migrations refuses with exit 1 and changes nothing', async () => {
  const fresh = await createTestDatabase();
  const freshEnv = { ...env, DATABASE_URL: fresh.url };
  const tables = async () => {
    const client = new Client({ connectionString: fresh.url });
    await client.connect();
    try {
      return (await client.query(`select tablename from pg_tables where schemaname = 'public'`)).rowCount;
    } finally {
      await client.end();
    }
  };
  try {
    for (const command of [
      ['organizations', 'list'],
      ['api-keys', 'list'],
    ]) {
      await expect(cliOn(freshEnv, ...command)).rejects.toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringContaining(`the database schema is not current (${migrationNames.length} migrations pending`),
      });
    }
    expect(await tables()).toBe(0);
    await cliOn(freshEnv, 'migrate');
    expect(JSON.parse((await cliOn(freshEnv, 'organizations', 'list')).stdout)).toEqual({ organizations: [] });
  } finally {
    await fresh.drop();
  }
});
