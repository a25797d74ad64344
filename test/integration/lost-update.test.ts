/**
 * Found by the checker (docs/checker.md, "What it found"): a Submit Transaction whose update dies
 * with the Temporal server and the worker before its workflow task completed is lost from the write's
 * history, although its deliver step already sent the message and the node took it. The write's run,
 * replayed, waits at SIGNED again, and its durable nonce has advanced (by the message itself): the
 * wait used to record EXPIRED there, so the value moved on chain while the record, the offchain
 * balances and every answer said EXPIRED. The wait now proves expiry as build and confirm do (the
 * lifetime over and the signature unknown to the network), so it waits for the client's Submit again,
 * which delivers the same bytes and records the landing once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { address, createSolanaRpc } from '@solana/kit';
import { freePort, startTemporalDevServer, type TemporalDevServer } from '../../src/main/temporal-dev-server';
import { startFaultWorker, type FaultWorker } from '../support/fault-process';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import { startStack, type Stack } from '../support/stack';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let temporalDir: string;
let temporalPort: number;
let temporal: TemporalDevServer;
let stack: Stack;
let proxy: RpcProxy;
let worker: FaultWorker | undefined;
// Its own Temporal server on a file, so it can be killed and restarted without touching the other tests'.
const startTemporal = () => startTemporalDevServer({ dataDir: temporalDir, port: temporalPort, ui: false, log: () => {} });

beforeAll(async () => {
  temporalDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-lost-update-'));
  temporalPort = await freePort();
  temporal = await startTemporal();
  stack = await startStack({ worker: false, writeTaskTimeoutSeconds: 2, temporal: { address: temporal.address, namespace: temporal.namespace } });
  proxy = await startRpcProxy(stack.node.url);
});
afterAll(async () => {
  await worker?.kill();
  await proxy?.close();
  await stack?.close();
  await temporal?.close();
  fs.rmSync(temporalDir, { recursive: true, force: true });
});

it('lands a durable-nonce write once and answers it CONFIRMED when its Submit died with the Temporal server and the worker after the node took the message', async () => {
  worker = await startFaultWorker(stack, 'none', proxy.url);
  const account = async (itemData: Record<string, unknown>) => (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as { onchainId: string; offchainId: string };
  const from = await account({ managed: true, seed: { amount: 1 } });
  const to = await account({ managed: true, seed: { amount: 0.01 } });
  const authority = await account({ managed: true });
  expect((await stack.call('POST', '/api/v1/durable-nonce-accounts', { itemData: { nonceAccount: {}, numberOfNonceAccounts: 1, nonceAuthority: { offchainId: authority.offchainId } } })).status).toBe(201);
  const rpc = createSolanaRpc(stack.node.url);
  const lamports = async () => (await rpc.getBalance(address(from.onchainId), { commitment: 'confirmed' }).send()).value;
  const before = await lamports();
  const write = () =>
    stack.call(
      'POST',
      '/api/v1/accounts/transfer-network-currency',
      { itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: to.offchainId }, value: { lamports: '7000' } }, svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE', submitTransaction: false } },
      { headers: { 'Idempotency-Key': 'lost-submit' } },
    );
  const signed = await write();
  expect(signed.body.status).toBe('SIGNED');
  const submit = () => stack.call('POST', '/api/v1/transactions/submit', { itemData: { transaction: { offchainId: signed.body.offchainId } } });

  // The node takes the message; its answer is held while the Temporal server and the worker die.
  const held = proxy.holdNextSend();
  const first = submit();
  await held;
  await temporal.kill();
  await worker.kill();
  proxy.releaseHeld();
  expect((await first).status).toBe(503);
  temporal = await startTemporal();
  worker = await startFaultWorker(stack, 'none', proxy.url);

  // A careful client sends the same Submit again until a definite answer.
  let answer = await submit();
  for (let tries = 0; tries < 60 && (answer.status >= 500 || answer.status === 202); tries++) {
    await sleep(1000);
    answer = await submit();
  }
  expect(before - (await lamports())).toBe(7000n);
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200, body: { success: true, status: expect.stringMatching(/CONFIRMED|FINALIZED/) } });
  expect((await write()).body).toMatchObject({ success: true, status: expect.stringMatching(/CONFIRMED|FINALIZED/) });
}, 120_000);
