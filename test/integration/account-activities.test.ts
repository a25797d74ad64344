/**
 * The account family's activities (Create Account, Transfer Network Currency) run as the worker runs
 * them, in the SDK's MockActivityEnvironment, over real PostgreSQL and a fake network port (a plain
 * object that records what was sent). What matters to a user: a replay after a crash resolves the
 * same new account and the same signed bytes, the network is handed those bytes again (never new
 * ones), and the records come out once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import { loadConfig } from '../../src/config/config';
import { ensureOrganization } from '../../src/custody/credentials';
import { Account, LedgerTransaction } from '../../src/db/entities';
import type { WriteRequest } from '../../src/domain/write';
import { forkEm, openRuntime, type Runtime } from '../../src/main/runtime';
import { createNetworks, type SignatureStatus, type SvmNetwork } from '../../src/network/svm-network';
import { createTestDatabase } from '../support/database';

/**
 * A network that takes every transaction and confirms it at once; `sent` keeps the wire bytes it was
 * handed. Addresses in `funded` are wallets (System Program, no data) holding those lamports.
 */
function fakeNetwork() {
  const sent: string[] = [];
  const funded = new Map<string, bigint>();
  const statuses = new Map<string, SignatureStatus>();
  const network: SvmNetwork = {
    cluster: 'LOCAL',
    getLatestBlockhash: async () => ({ blockhash: 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k', lastValidBlockHeight: 1_000n }),
    getBlockHeight: async () => 10n,
    sendTransaction: async (wire, signature) => {
      sent.push(wire);
      statuses.set(signature, { slot: 5n, confirmationStatus: 'confirmed', confirmations: 1, err: null });
    },
    getSignatureStatus: async (signature) => statuses.get(signature) ?? null,
    getSignatureStatuses: async (signatures) => signatures.map((signature) => statuses.get(signature) ?? null),
    getSlot: async () => 0n,
    getTransaction: async () => null,
    getBalance: async (address) => funded.get(address) ?? 0n,
    accountExists: async () => false,
    getAccount: async (address) => {
      const lamports = funded.get(address);
      return lamports === undefined ? null : { owner: '11111111111111111111111111111111', lamports, data: new Uint8Array() };
    },
    getMultipleAccounts: async () => ({ slot: 0n, accounts: [] }),
    getSignaturesForAddress: async () => [],
    getMinimumBalanceForRentExemption: async (dataLength) => BigInt((128 + dataLength) * 6960),
    requestAirdrop: async () => 'airdrop',
    simulateTransaction: async () => ({ unitsConsumed: 150n, err: null }),
    getRecentPrioritizationFees: async () => [],
    getBlocks: async () => [],
    getBlock: async () => null,
  };
  return { sent, network, funded };
}

let database: { url: string; drop(): Promise<void> };
let runtime: Runtime;
let organizationId: string;
let dir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-account-activities-'));
  const config = {
    ...loadConfig({}),
    databaseUrl: database.url,
    dataDir: dir,
    feePayerKeyFile: path.join(dir, 'fee-payer.json'),
    keyEncryptionKey: randomBytes(32).toString('base64'),
    clusters: [{ name: 'LOCAL', rpcUrl: 'http://127.0.0.1:9', allowsAirdrop: false }],
  };
  runtime = await openRuntime(config, () => {}, { migrate: true });
  organizationId = (await ensureOrganization(forkEm(runtime.orm), runtime.sealer, 'acme')).organization.id;
});

afterAll(async () => {
  await runtime?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function activitiesOver(network: SvmNetwork) {
  return createActivities({
    orm: runtime.orm,
    networks: createNetworks([network]),
    keyStore: runtime.keyStore,
    sealer: runtime.sealer,
    feePayerAddress: runtime.feePayerAddress,
    logoPolicy: { allowPrivateAddresses: false, maxBytes: 1024 },
    webhookUrlPolicy: { allowPrivateAddresses: false, allowHttp: false },
    fetch: globalThis.fetch,
    now: () => new Date(),
    deliveries: { start: async () => {} },
  });
}

function request(operation: WriteRequest['operation'], itemData: unknown, newRecordId?: string): WriteRequest {
  const transactionId = randomUUID();
  return {
    operation,
    transactionId,
    newRecordId,
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
  };
}

/** Runs an activity as the worker would, typed as it answers. */
const run = <A extends unknown[], R>(activity: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
  new MockActivityEnvironment().run(activity, ...args) as Promise<R>;

describe('Create Account under replay', () => {
  it('a replayed prepare answers the same new account and the same signed message; a repeated delivery resends those bytes and records once', async () => {
    const { sent, network } = fakeNetwork();
    const activities = activitiesOver(network);
    const create = request('CREATE_ACCOUNT', { managed: true, seed: { lamports: '1000000' } }, randomUUID());

    const first = await run(activities.prepare, create);
    // The worker died before its task completed: everything from lookup runs again.
    const replayed = await run(activities.prepare, create);
    expect(replayed.resolved.data).toEqual(first.resolved.data);
    expect(replayed.resolved.resumed).toBe(true);
    expect(replayed.prepared?.built).toMatchObject({ messageBase64: first.prepared!.built.messageBase64, reused: true });
    expect(replayed.prepared?.signed).toEqual(first.prepared!.signed);

    const { built, signed } = first.prepared!;
    const delivered = await run(activities.deliver, create, first.resolved, built, signed!, 0, false);
    const again = await run(activities.deliver, create, replayed.resolved, replayed.prepared!.built, replayed.prepared!.signed!, 0, false);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(delivered).toMatchObject({ expired: false, result: { transaction: { success: true, status: 'CONFIRMED', onchainId: signed!.signature } } });
    expect(again).toEqual(delivered);

    const em = forkEm(runtime.orm);
    const address = (first.resolved.data as { newAddress: string }).newAddress;
    expect(await em.count(Account, { organizationId, address })).toBe(1);
    expect(await em.count(LedgerTransaction, { id: create.transactionId, status: 'CONFIRMED' })).toBe(1);
  });
});

describe('Transfer Network Currency', () => {
  it('classifies the debit by its managed destination, and a replay signs the same transfer: one sent', async () => {
    const { sent, network, funded } = fakeNetwork();
    const activities = activitiesOver(network);
    const opened = async () => {
      const create = request('CREATE_ACCOUNT', { managed: true }, randomUUID());
      const prepared = await run(activities.prepare, create);
      await run(activities.deliver, create, prepared.resolved, prepared.prepared!.built, prepared.prepared!.signed!, 0, false);
      return create.newRecordId!;
    };
    const [source, destination] = [await opened(), await opened()];
    // The source holds 1 SOL onchain (Transfer Network Currency reads it before building).
    funded.set((await forkEm(runtime.orm).findOneOrFail(Account, source)).address, 1_000_000_000n);
    const transfer = request('TRANSFER_NETWORK_CURRENCY', {
      source: { offchainId: source },
      destination: { offchainId: destination },
      value: { lamports: '2500' },
    });

    const first = await run(activities.prepare, transfer);
    expect(first.resolved.debits).toEqual([
      expect.objectContaining({ amount: '2500', asset: 'NETWORK_CURRENCY', destination: expect.objectContaining({ class: 'MANAGED' }) }),
    ]);
    const replayed = await run(activities.prepare, transfer);
    expect(replayed.prepared?.signed).toEqual(first.prepared!.signed);
    const before = sent.length;
    await run(activities.deliver, transfer, first.resolved, first.prepared!.built, first.prepared!.signed!, 0, false);
    expect(sent.length - before).toBe(1);
  });

  it('a refusal at lookup (the destination is the source) fails the activity as non-retryable, naming the field, and sends nothing', async () => {
    const { sent, network } = fakeNetwork();
    const activities = activitiesOver(network);
    const create = request('CREATE_ACCOUNT', { managed: true }, randomUUID());
    const prepared = await run(activities.prepare, create);
    await run(activities.deliver, create, prepared.resolved, prepared.prepared!.built, prepared.prepared!.signed!, 0, false);
    const self = { offchainId: create.newRecordId! };
    const refused = request('TRANSFER_NETWORK_CURRENCY', { source: self, destination: self, value: { lamports: '1' } });
    await expect(run(activities.prepare, refused)).rejects.toMatchObject({
      type: 'VALIDATION_ERROR',
      nonRetryable: true,
      details: [{ field: 'itemData.destination' }],
    });
    expect(sent).toHaveLength(1);
    expect(await forkEm(runtime.orm).count(LedgerTransaction, { id: refused.transactionId })).toBe(0);
  });
});
