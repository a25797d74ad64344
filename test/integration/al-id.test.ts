/**
 * AL ID allocation against real PostgreSQL: concurrent callers of one type get distinct, contiguous
 * values, and every type counts on its own.
 */
import { createOrm, migrate, type Orm } from '../../src/db/orm';
import { allocateAlId } from '../../src/db/repositories/al-id.repository';
import { formatAlId, parseAlId } from '../../src/domain/al-id';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 20 });
  await migrate(orm);
});

afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

it('gives 200 concurrent callers of one type 200 distinct values, 1..200', async () => {
  const ids = await Promise.all(Array.from({ length: 200 }, () => allocateAlId(orm.em.fork(), 'CORPORATE_BOND')));
  expect(new Set(ids).size).toBe(200);
  const expected = Array.from({ length: 200 }, (_, i) => formatAlId('CORPORATE_BOND', BigInt(i + 1)));
  expect([...ids].sort()).toEqual(expected);
  expect(expected[0]).toBe('ALFICBD00000001');
  expect(expected[199]).toBe('ALFICBD00000200');
  for (const id of ids) expect(parseAlId(id)?.type).toBe('CORPORATE_BOND');
});

it('keeps an independent sequence per type', async () => {
  const em = orm.em.fork();
  expect(await allocateAlId(em, 'LOAN')).toBe('ALFIL00000001');
  expect(await allocateAlId(em, 'STABLECOIN')).toBe('ALFXSC00000001');
  expect(await allocateAlId(em, 'LOAN')).toBe('ALFIL00000002');
  expect(await allocateAlId(em, 'CORPORATE_LOAN')).toBe('ALFICLN00000001');
  // The corporate bond counter carries on from the previous test.
  expect(await allocateAlId(em, 'CORPORATE_BOND')).toBe('ALFICBD00000201');
  const rows = await em.getConnection().execute<{ prefix: string; last_value: string }[]>('select prefix, last_value from al_id_sequence order by prefix');
  expect(rows.map((r) => [r.prefix, String(r.last_value)])).toEqual([
    ['ALFICBD', '201'],
    ['ALFICLN', '1'],
    ['ALFIL', '2'],
    ['ALFXSC', '1'],
  ]);
});

it('allocates inside a transaction, and a rollback gives the value back', async () => {
  await expect(
    orm.em.fork().transactional(async (em) => {
      expect(await allocateAlId(em, 'NFT')).toBe('ALCRNFT00000001');
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  const committed = await orm.em.fork().transactional((em) => allocateAlId(em, 'NFT'));
  expect(committed).toBe('ALCRNFT00000001');
  expect(await allocateAlId(orm.em.fork(), 'NFT')).toBe('ALCRNFT00000002');
});

it('refuses to allocate past 99,999,999 for a type', async () => {
  const em = orm.em.fork();
  await em.getConnection().execute(`insert into al_id_sequence (prefix, last_value) values ('ALEQYETF', 99999998)`);
  expect(await allocateAlId(em, 'ETF')).toBe('ALEQYETF99999999');
  await expect(allocateAlId(em, 'ETF')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
});
