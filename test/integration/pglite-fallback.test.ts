/**
 * With no DATABASE_URL and nothing listening where PostgreSQL would be, the service falls back to
 * PGlite behind its wire-protocol socket: migrations run and records persist across a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config';
import { resolveDatabase } from '../../src/main/database';
import { createOrm, migrate, migrationNames } from '../../src/db/orm';
import { freePort } from '../../src/main/ports';
import { Organization } from '../../src/db/entities';

it('runs migrations on PGlite and keeps data under .data/pglite across restarts', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-pglite-'));
  const config = { ...loadConfig({}), dataDir, databaseUrl: undefined };
  const closedPort = await freePort();
  const logs: string[] = [];

  const first = await resolveDatabase(config, (m) => logs.push(m), { host: '127.0.0.1', port: closedPort });
  expect(first.kind).toBe('pglite');
  expect(first.poolSize).toBe(1);
  let orm = await createOrm({ databaseUrl: first.url, poolSize: 1 });
  expect(await migrate(orm)).toEqual(migrationNames);
  const em = orm.em.fork();
  em.create(Organization, {
    id: '7b0f3c1e-8a43-4b8e-9c55-0a1d5a0e2f11',
    externalId: 'pglite-org',
    name: 'On PGlite',
    webhookSigningSecret: 'x',
    createdAt: new Date(),
  });
  await em.flush();
  await orm.close();
  await first.close();

  const second = await resolveDatabase(config, () => {}, { host: '127.0.0.1', port: closedPort });
  orm = await createOrm({ databaseUrl: second.url, poolSize: 1 });
  expect(await migrate(orm)).toEqual([]);
  expect((await orm.em.fork().findOneOrFail(Organization, { externalId: 'pglite-org' })).name).toBe('On PGlite');
  await orm.close();
  await second.close();
  expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
  expect(logs.join('\n')).toContain('PGlite');
  fs.rmSync(dataDir, { recursive: true, force: true });
});
