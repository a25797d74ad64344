/**
 * Exactly once through outages, with the worker as its own process and the node behind an RPC proxy:
 * the network unreachable for a while right after it took a transaction, the Temporal server killed
 * (SIGKILL) and restarted mid-write, and a run ended by an operator after its transaction was sent.
 * Each write answers success, exactly one transaction landed, and the records agree with the chain.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { address, createSolanaRpc } from '@solana/kit';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../src/main/ports';
import { startTemporalDevServer, type TemporalDevServer } from '../../dev/temporal/dev-server';
import { startFaultWorker, type FaultWorker } from '../support/fault-process';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import { startStack, type Stack } from '../support/stack';
import { withoutLiveState } from '../support/expectations';

const FEE = 5000n;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let temporalDir: string;
let temporalPort: number;
let temporal: TemporalDevServer;
let stack: Stack;
let proxy: RpcProxy;
let worker: FaultWorker | undefined;
let rpc: ReturnType<typeof createSolanaRpc>;

// Its own Temporal server on a file, so it can be killed and restarted without touching the other tests'.
const startTemporal = () => startTemporalDevServer({ dataDir: temporalDir, port: temporalPort, ui: false, log: () => {} });

beforeAll(async () => {
  temporalDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-outages-temporal-'));
  temporalPort = await freePort();
  temporal = await startTemporal();
  stack = await startStack({ worker: false, writeTaskTimeoutSeconds: 2, temporal: { address: temporal.address, namespace: temporal.namespace } });
  proxy = await startRpcProxy(stack.node.url);
  rpc = createSolanaRpc(stack.node.url);
});

afterEach(async () => {
  await worker?.kill();
  worker = undefined;
  await stack.stopWorker();
});

afterAll(async () => {
  await proxy?.close();
  await stack?.close();
  await temporal?.close();
  fs.rmSync(temporalDir, { recursive: true, force: true });
});

const lamportsOf = async (addr: string) => (await rpc.getBalance(address(addr), { commitment: 'confirmed' }).send()).value;
const createAccount = (requestId = randomUUID()) =>
  stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: '2000000' } } }, { headers: { 'x-request-id': requestId } });

/** The answer is a landed Create Account; the fee payer paid for exactly one transaction; no record is left open. */
async function expectLandedOnce(answer: { status: number; body: any }, feePayerBefore: bigint) {
  expect(answer.status).toBe(201);
  // After a long outage it may be finalized by the time it is looked at.
  expect(answer.body.svmTransaction).toMatchObject({ success: true, status: expect.stringMatching(/^(CONFIRMED|FINALIZED)$/) });
  expect(await lamportsOf(answer.body.newAccount.onchainId)).toBe(2_000_000n);
  expect(feePayerBefore - (await lamportsOf(stack.runtime.feePayerAddress))).toBe(2_000_000n + 2n * FEE);
  const record = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: answer.body.svmTransaction.offchainId } } });
  expect(record.body).toMatchObject({ status: answer.body.svmTransaction.status, onchainId: answer.body.svmTransaction.onchainId });
  for (const status of ['PENDING', 'BUILT', 'SIGNED', 'SUBMITTED']) {
    const open = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {
      itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: status }] }] },
    });
    expect({ status, count: open.body.count }).toEqual({ status, count: 0 });
  }
}

it('rides out the network being unreachable right after it took the transaction', async () => {
  const before = await lamportsOf(stack.runtime.feePayerAddress);
  worker = await startFaultWorker(stack, 'none', proxy.url);
  const held = proxy.holdNextSend();
  const answer = createAccount();
  await held;
  // The node has the bytes; the worker never hears so, and the node stays away for 4 s.
  proxy.setUnreachable(true);
  proxy.releaseHeld();
  await sleep(4000);
  proxy.setUnreachable(false);
  await expectLandedOnce(await answer, before);
});

it('rides out the Temporal server killed and restarted mid-write', async () => {
  const before = await lamportsOf(stack.runtime.feePayerAddress);
  worker = await startFaultWorker(stack, 'none', proxy.url);
  const held = proxy.holdNextSend();
  const answer = createAccount();
  await held;
  await temporal.kill();
  proxy.releaseHeld();
  await sleep(1000);
  temporal = await startTemporal();
  await expectLandedOnce(await answer, before);
});

it('answers 503 with Retry-After, never 500, while the Temporal server is down, and the same key lands the write once it is back', async () => {
  const before = await lamportsOf(stack.runtime.feePayerAddress);
  worker = await startFaultWorker(stack, 'none', proxy.url);
  const requestId = randomUUID();
  await temporal.kill();
  const during = await createAccount(requestId);
  expect({ status: during.status, code: during.body.errors?.[0]?.code }).toEqual({ status: 503, code: 'UNAVAILABLE' });
  expect(Number(during.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  temporal = await startTemporal();
  await expectLandedOnce(await createAccount(requestId), before);
});

it('reconciles a write whose run was terminated after its transaction was sent, and never answers it as failed', async () => {
  const before = await lamportsOf(stack.runtime.feePayerAddress);
  const requestId = randomUUID();
  worker = await startFaultWorker(stack, 'none', proxy.url);
  const held = proxy.holdNextSend();
  const first = createAccount(requestId);
  await held;
  await worker.kill();
  worker = undefined;
  proxy.releaseHeld();
  // An operator ends the run in the Web UI; the message it sent lands anyway.
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const runs = new Client({ connection, namespace: temporal.namespace }).workflow;
    const workflowId = (await stack.call('POST', '/api/v1/transactions/bulk/detailed', {})).body.items.find(
      (t: { status: string }) => t.status === 'SIGNED',
    )?.workflowId;
    expect(workflowId).toBeDefined();
    await runs.getHandle(workflowId).terminate('operator');
  } finally {
    await connection.close();
  }
  await stack.restartWorker();
  await expectLandedOnce(await first, before);
  // A repeat answers the same, from the record (as it stands now: the chain follower moves its confirmations on).
  const repeat = await createAccount(requestId);
  expect(withoutLiveState(repeat.body)).toEqual(withoutLiveState((await first).body));
});

// Found by the checker (docs/checker.md, "What it found"): a Submit Transaction whose update dies
// with the Temporal server and the worker before its workflow task completed is lost from the write's
// history, although its deliver step already sent the message and the node took it. The write's run,
// replayed, waits at SIGNED again, and its durable nonce has advanced (by the message itself): the
// wait used to record EXPIRED there, so the value moved on chain while the record, the offchain
// balances and every answer said EXPIRED. The wait now proves expiry as build and confirm do (the
// lifetime over and the signature unknown to the network), so it waits for the client's Submit again,
// which delivers the same bytes and records the landing once.
/**
 * The update that continues a waiting write is lost with its workflow task: the node took the message,
 * then the Temporal server and the worker died before the task completed, so the replayed run waits
 * again (at SIGNED for Submit, at AWAITING_SIGNATURES for Sign) while the record may say SUBMITTED.
 */
it.each([
  { update: 'Submit', path: '/api/v1/transactions/submit', source: {}, config: { submitTransaction: false }, rests: 'SIGNED' },
  { update: 'Sign', path: '/api/v1/transactions/sign', source: { autoSign: false }, config: {}, rests: 'AWAITING_SIGNATURES' },
])(
  'lands a durable-nonce write once and answers it CONFIRMED when its $update died with the Temporal server and the worker after the node took the message',
  async ({ path, source, config, rests }) => {
    worker = await startFaultWorker(stack, 'none', proxy.url);
    const account = async (itemData: Record<string, unknown>) =>
      (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as { onchainId: string; offchainId: string };
    const from = await account({ managed: true, seed: { amount: 1 } });
    const to = await account({ managed: true, seed: { amount: 0.01 } });
    const authority = await account({ managed: true });
    expect(
      (
        await stack.call('POST', '/api/v1/durable-nonce-accounts', {
          itemData: { nonceAccount: {}, numberOfNonceAccounts: 1, nonceAuthority: { offchainId: authority.offchainId } },
        })
      ).status,
    ).toBe(201);
    const before = await lamportsOf(from.onchainId);
    const key = `lost-${path}`;
    const write = () =>
      stack.call(
        'POST',
        '/api/v1/accounts/transfer-network-currency',
        {
          itemData: { source: { offchainId: from.offchainId, ...source }, destination: { offchainId: to.offchainId }, value: { lamports: '7000' } },
          svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE', ...config },
        },
        { headers: { 'Idempotency-Key': key } },
      );
    const waiting = await write();
    const offchainId = (waiting.body.offchainId ?? waiting.body.transaction?.offchainId) as string;
    expect((await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } })).body.status).toBe(rests);
    const resume = () => stack.call('POST', path, { itemData: { transaction: { offchainId } } });

    // The node takes the message; its answer is held while the Temporal server and the worker die.
    const held = proxy.holdNextSend();
    const first = resume();
    await held;
    await temporal.kill();
    await worker.kill();
    proxy.releaseHeld();
    expect((await first).status).toBe(503);
    temporal = await startTemporal();
    worker = await startFaultWorker(stack, 'none', proxy.url);

    // A careful client sends the same request again until a definite answer.
    let answer = await resume();
    for (let tries = 0; tries < 60 && (answer.status >= 500 || answer.status === 202); tries++) {
      await sleep(1000);
      answer = await resume();
    }
    expect(before - (await lamportsOf(from.onchainId))).toBe(7000n);
    expect({ status: answer.status, body: answer.body }).toMatchObject({
      status: 200,
      body: { success: true, status: expect.stringMatching(/CONFIRMED|FINALIZED/) },
    });
    expect((await write()).body).toMatchObject({ success: true, status: expect.stringMatching(/CONFIRMED|FINALIZED/) });
  },
  120_000,
);
