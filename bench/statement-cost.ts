/**
 * `npx tsx bench/statement-cost.ts`: the API+worker process's CPU for one primary-key read, by the
 * way it is sent: pg's client, MikroORM's connection.execute (raw SQL), its Kysely query builder,
 * and em.fork().findOne (query building, hydration, identity map). On a fresh database of the local
 * PostgreSQL (dropped after), one connection, sequential calls; CPU of this process only. The ratios
 * between the rows are what to read: on a loaded machine every row's microseconds grow.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createOrm, migrate } from '../src/db/orm';
import { LedgerTransaction } from '../src/db/entities';

async function main() {
  const name = `orm_cost_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const orm = await createOrm({ databaseUrl: `postgres://postgres@127.0.0.1:5432/${name}`, poolSize: 2 });
  try {
    await migrate(orm);
    const id = (await orm.em.getConnection().execute(`select gen_random_uuid() as id`))[0].id;
    const N = 1500;
    const time = async (label: string, op: () => Promise<unknown>) => {
      for (let i = 0; i < 200; i++) await op();
      const c0 = process.cpuUsage();
      for (let i = 0; i < N; i++) await op();
      const c = process.cpuUsage(c0);
      console.log(`${label.padEnd(60)} ${((c.user + c.system) / N).toFixed(0)} µs CPU per call`);
    };
    const pg = new Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${name}` });
    await pg.connect();
    for (let round = 0; round < 2; round++) {
      await time('pg client.query(select * from ledger_transaction where id = $1)', () => pg.query('select * from ledger_transaction where id = $1', [id]));
      await time('em.fork().findOne(LedgerTransaction, {id}) (miss)', () => orm.em.fork().findOne(LedgerTransaction, { id }));
      await time('connection.execute(select * from ledger_transaction where id = ?)', () =>
        orm.em.getConnection().execute('select * from ledger_transaction where id = ?', [id]),
      );
      await time('kysely selectFrom(ledger_transaction).where(id)', () =>
        orm.em.fork().getKysely<{ ledger_transaction: { id: string } }>().selectFrom('ledger_transaction').selectAll().where('id', '=', id).execute(),
      );
    }
    await pg.end();
  } finally {
    await orm.close();
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
  }
}
main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
