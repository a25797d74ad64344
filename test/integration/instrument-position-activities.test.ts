/**
 * The instrument and position families' activities (Create Financial Instrument, Initialize
 * Position, Mint, Transfer) run as the worker runs them, in the SDK's MockActivityEnvironment, over
 * real PostgreSQL and the local node. Each write is prepared twice (a replay after a crash) and must
 * give the same signed bytes; after delivery the chain and the records say what the user asked for.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import { loadConfig } from '../../src/config/config';
import { ensureOrganization } from '../../src/custody/credentials';
import { Position } from '../../src/db/entities';
import type { WriteRequest } from '../../src/domain/write';
import { forkEm, fundFeePayer, openRuntime, type Runtime } from '../../src/main/runtime';
import { startLocalNode, type LocalNode } from '../../dev/local-node';
import { createTestDatabase } from '../support/database';

let database: { url: string; drop(): Promise<void> };
let node: LocalNode;
let runtime: Runtime;
let organizationId: string;
let dir: string;
let activities: ReturnType<typeof createActivities>;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-instrument-activities-'));
  node = await startLocalNode({ port: 0, dataDir: path.join(dir, 'node'), blockTimeMs: 100 });
  const config = {
    ...loadConfig({}),
    databaseUrl: database.url,
    dataDir: dir,
    feePayerKeyFile: path.join(dir, 'fee-payer.json'),
    keyEncryptionKey: randomBytes(32).toString('base64'),
    clusters: [{ name: 'LOCAL', rpcUrl: node.url, allowsAirdrop: true }],
  };
  runtime = await openRuntime(config, () => {}, { migrate: true });
  await fundFeePayer(runtime, config, () => {});
  organizationId = (await ensureOrganization(forkEm(runtime.orm), runtime.sealer, 'acme')).organization.id;
  activities = createActivities({
    orm: runtime.orm,
    networks: runtime.networks,
    keyStore: runtime.keyStore,
    sealer: runtime.sealer,
    feePayerAddress: runtime.feePayerAddress,
    logoPolicy: config.logoPolicy,
    webhookUrlPolicy: config.webhookUrlPolicy,
    fetch: globalThis.fetch,
    now: () => new Date(),
    deliveries: { start: async () => {} },
  });
});

afterAll(async () => {
  await runtime?.close();
  await node?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = <A extends unknown[], R>(activity: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
  new MockActivityEnvironment().run(activity, ...args) as Promise<R>;

function request(
  operation: WriteRequest['operation'],
  itemData: unknown,
  ids: Partial<Pick<WriteRequest, 'newRecordId' | 'extraRecordIds'>> = {},
): WriteRequest {
  const transactionId = randomUUID();
  return {
    operation,
    transactionId,
    workflowId: `test-${transactionId}`,
    organizationId,
    organizationExternalId: 'acme',
    apiKeyId: randomUUID(),
    cluster: 'LOCAL',
    idempotencyKey: null,
    commitment: 'confirmed',
    submit: true,
    itemData,
    svmTransactionConfig: {},
    ...ids,
  };
}

/** Prepares a write twice (the second as a replay after a crash), checks both give the same signed bytes, then delivers it once. */
async function write(req: WriteRequest) {
  const first = await run(activities.prepare, req);
  const replayed = await run(activities.prepare, req);
  expect(replayed.prepared?.signed).toEqual(first.prepared?.signed);
  const delivered = await run(activities.deliver, req, first.resolved, first.prepared!.built, first.prepared!.signed!, 0, false);
  if (delivered.expired) throw new Error('expired');
  expect(delivered.result.transaction).toMatchObject({ success: true, status: 'CONFIRMED' });
  return delivered.result;
}

it('creates an instrument, opens two positions, mints and transfers: the chain and the records agree', async () => {
  const authority = (
    await write(request('CREATE_ACCOUNT', { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } }, { newRecordId: randomUUID() }))
  ).created!;
  const instrument = (
    await write(
      request(
        'CREATE_FINANCIAL_INSTRUMENT',
        {
          version: 'SPL',
          onchainData: { decimals: 2 },
          mintAuthority: { offchainId: authority.offchainId },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
        { newRecordId: randomUUID(), extraRecordIds: { mintAccount: randomUUID(), logo: randomUUID() } },
      ),
    )
  ).created!;
  const owners = [];
  for (let i = 0; i < 2; i++) owners.push((await write(request('CREATE_ACCOUNT', { managed: true }, { newRecordId: randomUUID() }))).created!);
  const positions = owners.map((owner) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: instrument.onchainId } }));
  for (const position of positions) await write(request('INITIALIZE_POSITION', { positionToInitialize: position }, { newRecordId: randomUUID() }));

  await write(request('MINT', { mintTo: positions[0], value: { amount: '12.34' } }));
  await write(request('TRANSFER', { source: positions[0], destination: positions[1], value: { lamports: '234' } }));

  const em = forkEm(runtime.orm);
  const records = await em.find(Position, { organizationId }, { orderBy: { balance: 'desc' } });
  expect(records.map((p) => BigInt(p.balance))).toEqual([1000n, 234n]);
  for (const record of records) {
    const onchain = await runtime.networks.get('LOCAL')!.getAccount(record.address);
    // SPL token account layout: the amount is the u64 at offset 64.
    expect(Buffer.from(onchain!.data).readBigUInt64LE(64)).toBe(BigInt(record.balance));
  }
});
