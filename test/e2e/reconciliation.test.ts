/**
 * Reconciliation on the real stack (API.md section 9, docs/reconciliation.md): lamports sent to a
 * managed account from outside the service (a plain system transfer built with the kit, paid by a
 * keypair the node's faucet funded) are a drift finding with the exact difference, logged, counted,
 * listed by `cli reconcile --report`, and the record is left as it is; a second pass does not list it
 * twice; an account in step with the chain gives none; a write of the service that landed but is not
 * recorded yet is no drift; the schedule exists once a worker started.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { address, createSolanaRpc, devnet, generateKeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { Client, Connection } from '@temporalio/client';
import { fundOutsideSender, type OutsideSender } from '../support/outside-sender';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';
import { reconcileCluster, type ReconcileDeps } from '../../src/activities/reconciliation/reconcile';
import { listFindings } from '../../src/db/repositories/drift-findings.repository';
import { registry } from '../../src/observability/metrics';
import { LedgerTransaction } from '../../src/db/entities';
import { forkEm } from '../../src/main/runtime';
import { reconciliationScheduleId } from '../../src/activities/reconciliation/schedule';
import { chainHistoryRecorder } from '../../src/activities/reconciliation/repair-recorder';
import { connectTemporal, createLedgerWorker } from '../../src/main/worker';
import { uniqueTaskQueue } from '../support/temporal';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;
let outsideSender: OutsideSender;
const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];

beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(devnet(stack.node.url));
  outsideSender = await fundOutsideSender(rpc, 5_000_000_000n);
});
afterAll(async () => {
  await stack?.close();
});

const deps = (): ReconcileDeps => ({
  orm: stack.runtime.orm,
  networks: stack.runtime.networks,
  now: () => new Date(),
  log: (level, fields, message) => lines.push({ level, fields, message }),
  recordNetworkTransactions: chainHistoryRecorder({ orm: stack.runtime.orm, networks: stack.runtime.networks, now: () => new Date() }),
});
const pass = () => reconcileCluster(deps(), 'LOCAL');

async function account(itemData: Record<string, unknown>): Promise<Ref> {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created.status).toBe(201);
  return created.body.newAccount;
}
const balances = async (ref: Ref) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;

async function driftsCounted(kind: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'ledger_reconciliation_drifts_total');
  return Number(metric?.values.find((v) => v.labels.cluster === 'LOCAL' && v.labels.kind === kind)?.value ?? 0);
}

const cli = (...args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../src/cli/main.ts'), ...args], {
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      DATABASE_URL: stack.config.databaseUrl,
      DATA_DIR: stack.config.dataDir,
      KEY_ENCRYPTION_KEY: stack.config.keyEncryptionKey,
      SVM_CLUSTERS: `LOCAL=${stack.node.url}`,
    },
  });

let outside: Ref;
let inStep: Ref;

it('reports lamports sent from outside to an unsubscribed account as one drift with the exact difference, and leaves the record as it is', async () => {
  outside = await account({ managed: true });
  inStep = await account({ managed: true, seed: { amount: 1 } });
  const before = await balances(outside);
  const counted = await driftsCounted('account');

  await outsideSender.deposit(outside.onchainId, 123_456_789n);

  const summary = await pass();
  expect(summary).toMatchObject({ cluster: 'LOCAL', findings: 1, newFindings: 1, repaired: 0 });
  expect(summary.accountsChecked).toBeGreaterThanOrEqual(2);
  const [finding] = await listFindings(forkEm(stack.runtime.orm), { status: 'OPEN' });
  expect(finding).toMatchObject({
    kind: 'account',
    recordId: outside.offchainId,
    address: outside.onchainId,
    subscribed: false,
    recordedValue: before.offchain.balance.lamports.toString(),
    chainValue: (BigInt(before.offchain.balance.lamports) + 123_456_789n).toString(),
    difference: '123456789',
    status: 'OPEN',
    repairSignatures: [],
  });
  // Logged (a structured warning, values exact) and counted.
  expect(lines.filter((l) => l.level === 'warn')).toEqual([
    expect.objectContaining({ fields: expect.objectContaining({ recordId: outside.offchainId, difference: '123456789', kind: 'account' }) }),
  ]);
  expect(await driftsCounted('account')).toBe(counted + 1);
  // Never silently overwritten: the offchain record keeps its balance, the chain shows the deposit.
  const after = await balances(outside);
  expect(after.offchain.balance).toEqual(before.offchain.balance);
  expect(BigInt(after.onchain.balance.lamports)).toBe(BigInt(before.offchain.balance.lamports) + 123_456_789n);
});

it('does not list an open drift twice on the next pass, and finds none for an account in step with the chain', async () => {
  const counted = await driftsCounted('account');
  const summary = await pass();
  expect(summary).toMatchObject({ findings: 1, newFindings: 0, openFindings: 1 });
  const findings = await listFindings(forkEm(stack.runtime.orm));
  expect(findings.map((f) => f.recordId)).toEqual([outside.offchainId]);
  expect(findings.some((f) => f.recordId === inStep.offchainId)).toBe(false);
  expect(await driftsCounted('account')).toBe(counted);
  expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
});

it('does not report a write of the service that the chain holds and the record does not yet', async () => {
  const wallet = await account({ managed: true, seed: { amount: 3 } });
  const vault = await account({ managed: true });
  const resume = stack.node.pauseBlocks();
  let answered: ReturnType<Stack['call']> | undefined;
  try {
    answered = stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount: 1 } },
    });
    // The transfer is on the chain at `processed`, its write still waits to confirm (nothing recorded yet).
    await waitFor(async () => (await rpc.getBalance(address(vault.onchainId), { commitment: 'processed' }).send()).value > 1_000_000_000n);
    const write = await forkEm(stack.runtime.orm).findOne(LedgerTransaction, { operation: 'TRANSFER_NETWORK_CURRENCY' }, { orderBy: { createdAt: 'desc' } });
    expect(write).toMatchObject({ success: null });
    const summary = await pass();
    expect(summary.differences).toBeGreaterThanOrEqual(2);
    expect(summary).toMatchObject({ findings: 1, newFindings: 0 });
    const findings = await listFindings(forkEm(stack.runtime.orm));
    expect(findings.map((f) => f.recordId)).toEqual([outside.offchainId]);
  } finally {
    resume();
  }
  expect((await answered!).body).toMatchObject({ success: true });
  // Once recorded, the two accounts are in step: still no finding for them.
  expect(await pass()).toMatchObject({ findings: 1, newFindings: 0 });
});

it('cli reconcile runs a pass and prints its summary; --report lists the findings, OPEN first', async () => {
  const ran = JSON.parse((await cli('reconcile')).stdout);
  expect(ran).toEqual({ summaries: [expect.objectContaining({ cluster: 'LOCAL', findings: 1, newFindings: 0, openFindings: 1 })] });
  const { stdout } = await cli('reconcile', '--report');
  expect(stdout.trim().split('\n')).toHaveLength(1);
  const report = JSON.parse(stdout);
  expect(report.findings).toEqual([
    expect.objectContaining({
      organizationExternalId: stack.organizationExternalId,
      cluster: 'LOCAL',
      kind: 'account',
      address: outside.onchainId,
      difference: '123456789',
      status: 'OPEN',
    }),
  ]);
  expect(JSON.parse((await cli('reconcile', '--report', '--status', 'REPAIRED')).stdout)).toEqual({ findings: [] });
  await expect(cli('reconcile', '--report', '--status', 'BOGUS')).rejects.toMatchObject({ code: 2 });
});

it('the reconciliation schedule exists once a worker started: every 10 minutes by default, or the configured interval', async () => {
  const connection = await Connection.connect({ address: stack.config.temporal.address });
  try {
    const client = new Client({ connection, namespace: stack.config.temporal.namespace });
    const described = await client.schedule.getHandle(reconciliationScheduleId(stack.config.temporal.taskQueue)).describe();
    expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 600_000 })]);
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'scheduledReconciliation', taskQueue: stack.config.temporal.taskQueue });

    // Triggered now, it runs a pass per cluster on the stack's worker.
    const schedule = client.schedule.getHandle(reconciliationScheduleId(stack.config.temporal.taskQueue));
    await schedule.trigger();
    const started = await waitFor(async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId);
    expect(await client.workflow.getHandle(started).result()).toEqual([expect.objectContaining({ cluster: 'LOCAL', findings: 1, newFindings: 0 })]);

    // Another deployment (its own task queue) configured for 90 s has its own schedule.
    const taskQueue = uniqueTaskQueue('reconcile');
    const workerConnection = await connectTemporal(stack.config.temporal.address!);
    try {
      const worker = await createLedgerWorker({
        connection: workerConnection,
        namespace: stack.config.temporal.namespace,
        taskQueue,
        runtime: stack.runtime,
        logoPolicy: stack.config.logoPolicy,
        webhookUrlPolicy: stack.config.webhookUrlPolicy,
        reconcileIntervalSeconds: 90,
      });
      const running = worker.run();
      worker.shutdown();
      await running;
      const other = await client.schedule.getHandle(reconciliationScheduleId(taskQueue)).describe();
      expect(other.spec.intervals).toEqual([expect.objectContaining({ every: 90_000 })]);
      await client.schedule.getHandle(reconciliationScheduleId(taskQueue)).delete();
    } finally {
      await workerConnection.close();
    }
  } finally {
    await connection.close();
  }
});

it('repairs a subscribed account whose deposit the follower did not record: the transaction recorded once with origin NETWORK, the balance right, the finding REPAIRED', async () => {
  const followed = await account({ managed: true });
  const before = await balances(followed);
  // Sent while the account is not followed; the flag then turns on (following starts from the current slot: the deposit is history).
  const { signature, slot } = await outsideSender.deposit(followed.onchainId, 222_000_000n);
  // The follower passes the deposit before the flag turns on: it never records it.
  const em = forkEm(stack.runtime.orm);
  await waitFor(async () => {
    const [cursor] = await em.getConnection().execute<{ slot: string }[]>(`select slot from chain_cursor where cluster = 'LOCAL'`);
    return cursor && BigInt(cursor.slot) > slot;
  }, 60_000);
  expect(
    (await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: followed.offchainId }, subscribeToNetworkEvents: true } })).status,
  ).toBe(200);
  expect((await balances(followed)).offchain.balance).toEqual(before.offchain.balance);

  const summary = await pass();
  expect(summary).toMatchObject({ newFindings: 1, repaired: 1 });
  const networkRecords = () => forkEm(stack.runtime.orm).find(LedgerTransaction, { signature });
  expect(await networkRecords()).toEqual([expect.objectContaining({ origin: 'NETWORK', organizationId: expect.any(String), success: true })]);
  const after = await balances(followed);
  expect(after.offchain.balance).toEqual(after.onchain.balance);
  expect(BigInt(after.offchain.balance.lamports)).toBe(BigInt(before.offchain.balance.lamports) + 222_000_000n);
  const [finding] = (await listFindings(forkEm(stack.runtime.orm))).filter((f) => f.recordId === followed.offchainId);
  expect(finding).toMatchObject({
    subscribed: true,
    difference: '222000000',
    status: 'REPAIRED',
    repairSignatures: [signature],
    repairedAt: expect.any(String),
  });
  expect(lines).toContainEqual(
    expect.objectContaining({ level: 'info', fields: expect.objectContaining({ findingId: finding.id, repairSignatures: [signature] }) }),
  );

  // Again: nothing to repair, nothing recorded twice.
  expect(await pass()).toMatchObject({ newFindings: 0, repaired: 0 });
  expect(await networkRecords()).toHaveLength(1);
});

it('reports tokens moved between two unsubscribed positions from outside: a position drift on each side, exact, the records unchanged', async () => {
  const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 6 },
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  expect(created.status).toBe(201);
  const mint = created.body.newFinancialInstrument.onchainId as string;
  const positionOf = (owner: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } });
  // A holder the organization knows only as an unmanaged account (its key is the test's), and a managed one.
  const holder = await generateKeyPairSigner();
  await outsideSender.deposit(holder.address, 1_000_000_000n);
  const holderRef = await account({ managed: false, alreadyOnchain: true, onchainId: holder.address });
  const receiver = await account({ managed: true });
  for (const owner of [holderRef, receiver])
    expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: positionOf(owner) } })).status).toBe(201);
  const minted = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: positionOf(holderRef), value: { lamports: '5000000' } } });
  expect(minted.body).toMatchObject({ success: true });
  // In step after the service's own writes: the positions, and the onboarded holder's account (its record starts at what the address held).
  await pass();
  expect((await listFindings(forkEm(stack.runtime.orm), { status: 'OPEN' })).filter((f) => f.kind === 'position' || f.address === holder.address)).toEqual([]);

  const counted = await driftsCounted('position');
  const [from] = await findAssociatedTokenPda({ owner: holder.address, mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [to] = await findAssociatedTokenPda({ owner: address(receiver.onchainId), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  await outsideSender.send(
    [getTransferCheckedInstruction({ source: from, mint: address(mint), destination: to, authority: holder, amount: 1_250_000n, decimals: 6 })],
    holder,
  );

  await pass();
  const positions = (await listFindings(forkEm(stack.runtime.orm), { status: 'OPEN' })).filter((f) => f.kind === 'position');
  expect(positions.map((f) => [f.address, f.recordedValue, f.chainValue, f.difference]).sort()).toEqual(
    [
      [from, '5000000', '3750000', '-1250000'],
      [to, '0', '1250000', '1250000'],
    ].sort(),
  );
  expect(await driftsCounted('position')).toBe(counted + 2);
  const balance = await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: positionOf(receiver) } });
  expect(balance.body.offchain.balance.lamports).toBe(0);
  expect(balance.body.onchain.balance.lamports).toBe(1_250_000);
});
