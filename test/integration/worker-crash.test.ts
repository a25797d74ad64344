/**
 * The fault test: the worker dies (SIGKILL) after submit and before confirm. After a new worker
 * takes over, exactly one transaction is onchain and the records agree with the chain.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createSolanaRpc, address } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

let stack: Stack;
let child: ChildProcess | undefined;
beforeAll(async () => {
  stack = await startStack({ worker: false });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await stack?.close();
});

function startFaultWorker(): Promise<ChildProcess> {
  const env = {
    ...process.env,
    DATABASE_URL: stack.config.databaseUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_NAMESPACE: stack.config.temporal.namespace,
    TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
    SVM_CLUSTERS: `LOCAL=${stack.node.url}`,
    KEY_ENCRYPTION_KEY: stack.config.keyEncryptionKey,
    FEE_PAYER_KEY_FILE: stack.config.feePayerKeyFile,
    DATA_DIR: stack.config.dataDir,
    NODE_OPTIONS: '',
  };
  // Node itself with tsx's loader, not the tsx wrapper: SIGKILL must hit the worker's own process.
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../support/fault-worker.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('WORKER_READY') && resolve(proc));
    proc.once('exit', (code) => reject(new Error(`fault worker exited with ${code}`)));
  });
}

it('resumes at confirm after the worker is killed, with exactly one transaction onchain', async () => {
  const rpc = createSolanaRpc(stack.node.url);
  const feePayer = address(stack.runtime.feePayerAddress);
  const before = (await rpc.getBalance(feePayer, { commitment: 'confirmed' }).send()).value;

  child = await startFaultWorker();
  const confirmStarted = new Promise<void>((resolve) => child!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('CONFIRM_STARTED') && resolve()));
  const pending = stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: '5000000' } } });

  await confirmStarted;
  child.kill('SIGKILL');
  await new Promise((resolve) => child!.once('exit', resolve));
  child = undefined;
  await stack.restartWorker();

  const created = await pending;
  expect(created.status).toBe(201);
  expect(created.body.svmTransaction).toMatchObject({ success: true, status: expect.stringMatching(/^(CONFIRMED|FINALIZED)$/) });
  const { onchainId } = created.body.newAccount;

  // The chain: the account holds the seed, and the fee payer paid for exactly one transaction (two signatures).
  expect((await rpc.getBalance(address(onchainId), { commitment: 'confirmed' }).send()).value).toBe(5_000_000n);
  const after = (await rpc.getBalance(feePayer, { commitment: 'confirmed' }).send()).value;
  expect(before - after).toBe(5_000_000n + 2n * 5000n);

  // The records agree: one transaction record, one account, the same signature everywhere.
  const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { onchainId } } });
  expect(details.body.onchain.creationTransactionId).toBe(created.body.svmTransaction.onchainId);
  const transactions = await stack.call('POST', '/api/v1/transactions/bulk/detailed', {});
  expect(transactions.body.count).toBe(1);
  expect(transactions.body.items[0]).toMatchObject({ onchainId: created.body.svmTransaction.onchainId, status: created.body.svmTransaction.status });
  const landed = await waitFor(async () => (await rpc.getSignatureStatuses([created.body.svmTransaction.onchainId], { searchTransactionHistory: true }).send()).value[0]);
  expect(landed.err).toBeNull();
});
