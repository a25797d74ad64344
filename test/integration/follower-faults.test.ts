/**
 * Exactly once for the chain follower (API.md section 9 "Exactly once", docs/chain-follower.md)
 * through crashes and restarts, on the real stack with the workers as their own processes and a
 * Temporal server of this file's own: deposits sent from outside the service (a faucet-funded kit
 * keypair: plain system transfers and token transfers, some into a token account they create) to
 * several subscribed managed accounts while
 * 1. the worker running the follower is SIGKILLed inside a batch (records written, cursor advance
 *    not committed; or committed, deliveries not started) and another worker takes over;
 * 2. the Temporal server is SIGKILLed while a follower step has committed its batch (records and
 *    cursor) and not reported it (held at the after-commit point, its worker killed with the server,
 *    so the completion is lost for certain), then started again on its state: the step runs again;
 * 3. the node is stopped while blocks with deposits are still unread by the follower (its worker
 *    stopped), the follower comes back while the node is down, and the node is started again on its
 *    data directory and port.
 * After each, the record is compared with the chain: for every subscribed account, the signatures
 * of its address's and its token accounts' history (less the service's own transactions) are
 * exactly its NETWORK records' signatures, no signature is recorded twice, every account's and
 * position's offchain balance equals the chain's, and every record was delivered with one eventId
 * per record and account. An unsubscribed account's deposits are never recorded.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { address, createSolanaRpc, devnet, type Address, type Instruction, type KeyPairSigner, type Signature } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { startLocalNode, type LocalNode } from '../../dev/local-node';
import { startTemporalDevServer, type TemporalDevServer } from '../../dev/temporal/dev-server';
import { chainFollowerWorkflowId } from '../../src/follower/ids';
import { freePort } from '../../src/main/ports';
import { startFaultWorker, type FaultWorker } from '../support/fault-process';
import { fundedKeypair, sendSigned, signedOutside } from '../support/outside-sender';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
/** A deposit target: an account and its token account (associated) for the test's instrument. */
interface Target {
  ref: Ref;
  tokenAccount: Address;
  /** No position on record: its token account is created by a deposit (and becomes a position record). */
  createsTokenAccount: boolean;
}
interface Delivery {
  path: string;
  body: { eventId: string; eventType: string; transaction?: { onchainId: string } };
}

const DECIMALS = 2;

let temporalDir: string;
let temporalPort: number;
let temporal: TemporalDevServer;
let stack: Stack;
let worker: FaultWorker | undefined;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;
let payer: KeyPairSigner;
let mint: Address;
let payerTokenAccount: Address;
let subscribed: Target[];
let unsubscribed: Target;
let restartedNode: LocalNode | undefined;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
/** Every deposit seen confirmed on chain, by signature. */
const confirmed = new Set<string>();
let depositNumber = 0;

// Its own Temporal server on a file, so it can be killed and restarted without touching the other tests'.
const startTemporal = () => startTemporalDevServer({ dataDir: temporalDir, port: temporalPort, ui: false, log: () => {} });

beforeAll(async () => {
  temporalDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-follower-faults-temporal-'));
  temporalPort = await freePort();
  temporal = await startTemporal();
  stack = await startStack({ worker: false, temporal: { address: temporal.address, namespace: temporal.namespace } });
  rpc = createSolanaRpc(devnet(stack.node.url));
  worker = await startFaultWorker(stack, 'none');
  receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', body: JSON.parse(raw) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  // The outside sender: funded by the node's faucet, known to the organization only as an unmanaged account holding tokens.
  payer = await fundedKeypair(rpc, 100_000_000_000n);
  const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const instrument = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: DECIMALS },
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  mint = address(instrument.body.newFinancialInstrument.onchainId);
  const payerRef = await account({ managed: false, alreadyOnchain: true, onchainId: payer.address });
  expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: positionOf(payerRef) } })).status).toBe(201);
  const minted = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: positionOf(payerRef), value: { lamports: '100000000' } } });
  expect(minted.body).toMatchObject({ success: true });
  [payerTokenAccount] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });

  // Three subscribed managed accounts (two with a position on record, one without) and one unsubscribed.
  const target = async (subscribe: boolean, withPosition: boolean): Promise<Target> => {
    const ref = await account({
      managed: true,
      seed: { lamports: '2000000' },
      subscribeToNetworkEvents: subscribe,
      postTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/${subscribe ? 'subscribed' : 'unsubscribed'}` }],
    });
    if (withPosition) expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: positionOf(ref) } })).status).toBe(201);
    const [tokenAccount] = await findAssociatedTokenPda({ owner: address(ref.onchainId), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    return { ref, tokenAccount, createsTokenAccount: !withPosition };
  };
  subscribed = [await target(true, true), await target(true, true), await target(true, false)];
  unsubscribed = await target(false, true);
  // The follower is under way (its first step sets the cursor at the tip): every test's deposits come after.
  await waitFor(async () => (await cursor()) >= 0n, 60_000);
}, 300_000);

afterAll(async () => {
  // SIGKILL: a worker left hanging at its fault point by a failed test would never finish a graceful stop.
  await worker?.kill();
  // The node started again by a test: the stack closes only the node it started.
  await restartedNode?.close();
  await stack?.close();
  await temporal?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  fs.rmSync(temporalDir, { recursive: true, force: true });
});

async function account(itemData: Record<string, unknown>): Promise<Ref> {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created).toMatchObject({ status: 201 });
  return created.body.newAccount;
}
const positionOf = (owner: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } });

/** The next deposit: round robin over the subscribed accounts, network currency and tokens in turn, now and then to the unsubscribed one; a distinct amount each (distinct signatures). */
function nextDeposit(): Instruction[] {
  const n = depositNumber++;
  const to = n % 7 === 6 ? unsubscribed : subscribed[n % subscribed.length];
  const amount = 1000n + BigInt(n);
  if (n % 2 === 0) return [getTransferSolInstruction({ source: payer, destination: address(to.ref.onchainId), amount })];
  const transfer = getTransferCheckedInstruction({
    source: payerTokenAccount,
    mint,
    destination: to.tokenAccount,
    authority: payer,
    amount,
    decimals: DECIMALS,
  });
  // Into a token account the record does not know: the deposit creates it (idempotently, every time).
  if (to.createsTokenAccount)
    return [getCreateAssociatedTokenIdempotentInstruction({ payer, ata: to.tokenAccount, owner: address(to.ref.onchainId), mint }), transfer];
  return [transfer];
}

/** The test's own RPC calls ride out a dropped keep-alive connection (undici's "other side closed"); resending signed bytes is harmless. */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= 3 || !String((error as Error)?.message ?? error).includes('fetch failed')) throw error;
    }
  }
}

/** Sends `count` deposits from outside the service (built and signed with the kit); answers their signatures. */
async function sendDeposits(count: number): Promise<Signature[]> {
  const { value: blockhash } = await retried(() => rpc.getLatestBlockhash({ commitment: 'confirmed' }).send());
  const signatures: Signature[] = [];
  for (let i = 0; i < count; i++) {
    const signed = await signedOutside(nextDeposit(), payer, blockhash);
    signatures.push(await retried(() => sendSigned(rpc, signed)));
  }
  return signatures;
}

/** Waits until every signature is confirmed without error. */
async function confirmAll(signatures: Signature[]): Promise<void> {
  await waitFor(async () => {
    const statuses = (await retried(() => rpc.getSignatureStatuses(signatures).send())).value;
    return statuses.every((s) => s && s.confirmationStatus !== 'processed');
  }, 30_000);
  const statuses = (await rpc.getSignatureStatuses(signatures).send()).value;
  expect(statuses.filter((s) => s?.err)).toEqual([]);
  for (const signature of signatures) confirmed.add(signature);
}

/** Resolves with `promise`, or fails after `ms` naming what did not happen. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The follower's durable cursor: the last slot it recorded. */
async function cursor(): Promise<bigint> {
  const [row] = await stack.runtime.orm.em.fork().getConnection().execute<{ slot: string }[]>('select slot from chain_cursor where cluster = ?', ['LOCAL']);
  return row ? BigInt(row.slot) : -1n;
}

/** Asks this file's Temporal server about the chain follower's workflow (a connection each time: the server restarts). */
async function askFollower<T>(runId: string | undefined, ask: (handle: WorkflowHandle) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const workflowId = chainFollowerWorkflowId('LOCAL', stack.config.temporal.taskQueue);
    return await ask(new Client({ connection, namespace: temporal.namespace }).workflow.getHandle(workflowId, runId));
  } finally {
    await connection.close();
  }
}

/** The attempt of every follower step of the run that has ended (a step's started event is written when it ends). */
const followerSteps = (runId: string) =>
  askFollower(runId, async (handle) =>
    ((await handle.fetchHistory()).events ?? [])
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1),
  );

/** Every transaction record, through Fetch Transactions' pages. */
async function allRecords(): Promise<{ onchainId: string; origin: string; accountOffchainIds: string[] }[]> {
  const records = [];
  let next: string | undefined;
  for (;;) {
    const page = await stack.call('POST', '/api/v1/transactions/bulk/detailed', { itemQuery: { limit: 100, ...(next ? { cursor: next } : {}) } });
    expect(page.status).toBe(200);
    records.push(...page.body.items);
    if (page.body.items.length < 100) return records;
    next = page.body.cursor;
  }
}

/** Signatures (with their slots) of an address's confirmed history on chain. */
async function historyOf(addr: string): Promise<Map<string, bigint>> {
  const history = new Map<string, bigint>();
  let before: Signature | undefined;
  for (;;) {
    const page = await rpc.getSignaturesForAddress(address(addr), { limit: 1000, commitment: 'confirmed', ...(before ? { before } : {}) }).send();
    for (const entry of page) history.set(entry.signature, entry.slot);
    if (page.length < 1000) return history;
    before = page[page.length - 1].signature;
  }
}

/**
 * The record equals the chain: for every subscribed account, its address's and its token account's
 * history less the service's own transactions is exactly the set of its NETWORK records; no
 * signature is recorded twice; the unsubscribed account has no NETWORK record; every account's and
 * position's offchain balance is the chain's; every record was delivered, with one eventId per
 * record and account.
 */
async function expectRecordEqualsChain() {
  const chain = new Map<string, Map<string, bigint>>();
  let newest = 0n;
  for (const { ref, tokenAccount } of [...subscribed, unsubscribed]) {
    const history = new Map([...(await historyOf(ref.onchainId)), ...(await historyOf(tokenAccount))]);
    for (const slot of history.values()) if (slot > newest) newest = slot;
    chain.set(ref.offchainId, history);
  }
  // Everything the chain shows is behind the follower's cursor (it may take over after a dead worker's step times out).
  await waitFor(async () => (await cursor()) >= newest, 90_000, 200);

  const records = await allRecords();
  const service = new Set(records.filter((r) => r.origin === 'SERVICE').map((r) => r.onchainId));
  const network = records.filter((r) => r.origin === 'NETWORK');
  const signatures = network.map((r) => r.onchainId);
  expect(signatures.filter((s, i) => signatures.indexOf(s) !== i)).toEqual([]);
  for (const { ref } of subscribed) {
    const onChain = [...chain.get(ref.offchainId)!.keys()].filter((s) => !service.has(s)).sort();
    const recorded = network.filter((r) => r.accountOffchainIds.includes(ref.offchainId)).map((r) => r.onchainId);
    expect({ account: ref.offchainId, signatures: recorded.sort() }).toEqual({ account: ref.offchainId, signatures: onChain });
  }
  expect(network.filter((r) => r.accountOffchainIds.includes(unsubscribed.ref.offchainId))).toEqual([]);
  // Every deposit to a subscribed account that the chain confirmed is among them (the comparison above saw it).
  const toUnsubscribed = new Set(chain.get(unsubscribed.ref.offchainId)!.keys());
  expect([...confirmed].filter((s) => !toUnsubscribed.has(s) && !signatures.includes(s))).toEqual([]);

  for (const { ref, tokenAccount } of subscribed) {
    const balance = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;
    expect({ account: ref.offchainId, offchain: balance.offchain.balance }).toEqual({ account: ref.offchainId, offchain: balance.onchain.balance });
    const position = await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: positionOf(ref) } });
    // A token account no deposit has created yet has no position record.
    if (!(await rpc.getAccountInfo(tokenAccount, { encoding: 'base64', commitment: 'confirmed' }).send()).value) {
      expect(position.status).toBe(404);
      continue;
    }
    expect(position.status).toBe(200);
    expect({ position: ref.offchainId, offchain: position.body.offchain.balance }).toEqual({
      position: ref.offchainId,
      offchain: position.body.onchain.balance,
    });
  }

  // Delivered at least once each, under one stable eventId per record (one account each here).
  const events = await waitFor(async () => {
    const network = deliveries.filter((d) => d.body.eventType === 'NETWORK_TRANSACTION');
    const delivered = new Set(network.map((d) => d.body.transaction?.onchainId));
    return signatures.every((s) => delivered.has(s)) ? network : null;
  }, 60_000).catch((error) => {
    const delivered = new Set(deliveries.map((d) => d.body.transaction?.onchainId));
    throw new Error(
      `${error.message}: ${deliveries.length} deliveries (${JSON.stringify(deliveries.slice(-2))}); undelivered: ${signatures.filter((s) => !delivered.has(s)).length} of ${signatures.length}`,
    );
  });
  for (const signature of signatures) {
    const ids = new Set(events.filter((d) => d.body.transaction?.onchainId === signature).map((d) => d.body.eventId));
    expect({ signature, eventIds: ids.size }).toEqual({ signature, eventIds: 1 });
  }
  expect(events.filter((d) => d.path !== '/subscribed')).toEqual([]);
}

it('records several deposits into one new token account in one block: the first makes its position record, the others move it', async () => {
  const fresh = await account({
    managed: true,
    seed: { lamports: '2000000' },
    subscribeToNetworkEvents: true,
    postTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/subscribed` }],
  });
  const [tokenAccount] = await findAssociatedTokenPda({ owner: address(fresh.onchainId), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const target: Target = { ref: fresh, tokenAccount, createsTokenAccount: true };
  subscribed.push(target);
  const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const resume = stack.node.pauseBlocks();
  const signatures: Signature[] = [];
  try {
    for (const amount of [100n, 20n, 3n]) {
      const signed = await signedOutside(
        [
          getCreateAssociatedTokenIdempotentInstruction({ payer, ata: tokenAccount, owner: address(fresh.onchainId), mint }),
          getTransferCheckedInstruction({ source: payerTokenAccount, mint, destination: tokenAccount, authority: payer, amount, decimals: DECIMALS }),
        ],
        payer,
        blockhash,
      );
      signatures.push(await sendSigned(rpc, signed));
    }
  } finally {
    resume();
  }
  await confirmAll(signatures);
  const slots = (await rpc.getSignatureStatuses(signatures).send()).value.map((s) => s!.slot);
  expect(new Set(slots).size).toBe(1);
  await expectRecordEqualsChain();
  const position = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: positionOf(fresh) } })).body;
  expect(position.offchain.balance.lamports).toBe(123);
}, 120_000);

it.each(['before-commit', 'after-commit'])(
  'the worker running the follower killed inside a batch (%s): another worker takes over, every deposit recorded once',
  async (where) => {
    await worker!.stop();
    const dying = await startFaultWorker(stack, `follower:${where}`);
    worker = dying;
    // The chain held: many deposits land in one block, so one batch records them all at once.
    const resume = stack.node.pauseBlocks();
    let held: Signature[];
    try {
      held = await sendDeposits(20);
    } finally {
      resume();
    }
    await confirmAll(held);
    await within(dying.reached, 60_000, 'the follower reached its fault point');
    // Deposits go on while the follower hangs inside its batch, and after the kill.
    await confirmAll(await sendDeposits(6));
    await dying.kill();
    worker = await startFaultWorker(stack, 'none');
    await confirmAll(await sendDeposits(6));
    await expectRecordEqualsChain();
  },
  180_000,
);

it('the Temporal server killed while a follower step has committed its batch and not yet reported it: the step runs again, nothing missed, nothing twice', async () => {
  await worker!.stop();
  const dying = await startFaultWorker(stack, 'follower:after-commit');
  worker = dying;
  // The chain held: the deposits land in one block, so one step records them all.
  const resume = stack.node.pauseBlocks();
  let held: Signature[];
  try {
    held = await sendDeposits(12);
  } finally {
    resume();
  }
  await confirmAll(held);
  await within(dying.reached, 60_000, 'the follower reached its point after the commit');
  const heldSlot = (await rpc.getSignatureStatuses(held, { searchTransactionHistory: true }).send()).value[0]!.slot;
  // The step committed its batch (records and cursor) and started none of its deliveries.
  expect(await cursor()).toBeGreaterThanOrEqual(heldSlot);
  expect(deliveries.filter((d) => held.includes(d.body.transaction?.onchainId as Signature))).toEqual([]);
  const { runId } = await askFollower(undefined, (handle) => handle.describe());

  // The server goes down while the step is open; the worker dies with it, so its completion never reaches a server.
  await temporal.kill();
  await dying.kill();
  temporal = await startTemporal();
  worker = await startFaultWorker(stack, 'none');
  await confirmAll(await sendDeposits(6));
  await expectRecordEqualsChain();
  // The open step was run again (its first attempt lost with the server), not skipped.
  await waitFor(async () => (await followerSteps(runId)).some((attempt) => attempt >= 2), 60_000);
}, 240_000);

it('the node stopped with deposits in blocks the follower has not read, and started again on its data directory and port: each recorded once', async () => {
  // The follower held (its worker stopped): the deposits' blocks stay unread.
  await worker!.stop();
  worker = undefined;
  const unread = [...(await sendDeposits(5)), ...(await sendDeposits(4))];
  await confirmAll(unread);
  const slots = (await rpc.getSignatureStatuses(unread, { searchTransactionHistory: true }).send()).value.map((s) => s!.slot);
  const oldest = slots.reduce((a, b) => (a < b ? a : b));
  expect(await cursor()).toBeLessThan(oldest);

  const { port } = stack.node;
  await stack.node.close();
  // The follower comes back while the node is down: its steps fail until the node is up again.
  worker = await startFaultWorker(stack, 'none');
  expect(await cursor()).toBeLessThan(oldest);
  stack.node = restartedNode = await startLocalNode({ port, dataDir: path.join(stack.config.dataDir, 'node'), blockTimeMs: 100 });
  await confirmAll(await sendDeposits(6));
  await expectRecordEqualsChain();
}, 300_000);
