/** `npm start`'s development key on PostgreSQL: printed again at every start; a new one leaves no earlier one valid. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../support/database';
import { createOrm, migrate, type Orm } from '../../src/db/orm';
import { createSealer } from '../../src/custody/sealing';
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { listApiKeys } from '../../src/db/repositories/organizations.repository';
import { roleNames } from '../../src/domain/roles';
import { devApiKey } from '../../dev/dev-api-key';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Orm;
let dir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url });
  await migrate(orm);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-api-key-'));
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('keeps one all-roles key across starts, and revokes the earlier ones when it mints', async () => {
  const em = () => orm.em.fork();
  const { organization } = await ensureOrganization(em(), createSealer(Buffer.alloc(32, 3).toString('base64')), 'dev');
  // A key an earlier start minted (before starts kept theirs), and one somebody made for reading only.
  const earlier = await createApiKey(em(), organization, [...roleNames], 'LEDGER');
  const reader = await createApiKey(em(), organization, ['READ'], 'LEDGER');
  const file = path.join(dir, 'dev-api-key');
  const unrevoked = async () => (await listApiKeys(em(), { organizationId: organization.id, includeRevoked: false })).map((k) => k.id).sort();

  const first = await devApiKey(em, organization, 'LEDGER', file);
  expect(first).toMatchObject({ reused: false, revoked: 1 });
  expect(fs.readFileSync(file, 'utf8').trim()).toBe(first.apiKey);
  expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
  expect(await unrevoked()).not.toContain(earlier.id);

  const second = await devApiKey(em, organization, 'LEDGER', file);
  expect(second).toEqual({ apiKey: first.apiKey, reused: true, revoked: 0 });
  expect(await unrevoked()).toHaveLength(2);

  // The file gone (a new data directory on the same database): a new key, and the one before it revoked.
  fs.rmSync(file);
  const third = await devApiKey(em, organization, 'LEDGER', file);
  expect(third).toMatchObject({ reused: false, revoked: 1 });
  expect(third.apiKey).not.toBe(first.apiKey);
  expect(await unrevoked()).toHaveLength(2);
  expect(await unrevoked()).toContain(reader.id);
});
