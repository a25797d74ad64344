/**
 * Outages of the services a write needs, before it has sent anything (docs/outages.md): the node and
 * PostgreSQL, each behind a proxy the test takes down, for longer than the retries that once ended a
 * write (10 attempts: its key then answered 500 for ever). While they are down every answer is 503
 * UNAVAILABLE with Retry-After, never 500; once they are back every key answers the write's real
 * result, and the chain shows each write exactly once. A write whose deadline passes while a service
 * is away ends with nothing sent, and its key then starts it afresh.
 */
import { randomUUID } from 'node:crypto';
import { address, createSolanaRpc } from '@solana/kit';
import type { Steps } from '../../src/activities';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import { startStack, type Stack } from '../support/stack';
import { startTcpProxy, throughPort, type TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';
import { withoutLiveState } from '../support/expectations';

const FEE = 5000n;
const SEED = 2_000_000n;
/** Today's write gives up on a fault only at its deadline; before it, 10 attempts did (about 26 s). */
const OLD_ATTEMPTS = 10;

type Answer = { status: number; body: any; headers: Headers };

/** Holds the next write's lookup until released: a test takes a service down while that write is on its way. */
function lookupGate() {
  let next: { reached: () => void; open: Promise<void> } | undefined;
  return {
    arm() {
      let reached!: () => void;
      let release!: () => void;
      const atGate = new Promise<void>((resolve) => (reached = resolve));
      next = { reached, open: new Promise<void>((resolve) => (release = resolve)) };
      return { atGate, release };
    },
    wrap: (steps: Steps): Steps => ({
      ...steps,
      async lookup(request) {
        const held = next;
        next = undefined;
        if (held) {
          held.reached();
          await held.open;
        }
        return steps.lookup(request);
      },
    }),
  };
}

/**
 * A careful client once the dependency is back: sends the same request again while it answers 503,
 * after the Retry-After it names. The write retries its fault on a durable timer (up to 30 s apart),
 * so when the next try comes depends on how long the outage lasted: the test asserts the outcome,
 * never how soon.
 */
async function untilDefinite(send: () => Promise<Answer>): Promise<Answer> {
  let answer = await send();
  for (let tries = 0; tries < 10 && answer.status === 503; tries++) {
    expectOutageAnswer(answer);
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000));
    answer = await send();
  }
  return answer;
}

function expectOutageAnswer(answer: Answer) {
  expect({ status: answer.status, code: answer.body.errors?.[0]?.code }).toEqual({ status: 503, code: 'UNAVAILABLE' });
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(JSON.stringify(answer.body)).not.toMatch(/internal error|stack/i);
}

describe('the node and PostgreSQL away for longer than the old retries', () => {
  let stack: Stack;
  let node: RpcProxy;
  let database: TcpProxy;
  let rpc: ReturnType<typeof createSolanaRpc>;
  const gate = lookupGate();

  beforeAll(async () => {
    database = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    stack = await startStack({
      rpcUrl: async (url) => (node = await startRpcProxy(url)).url,
      databaseUrl: async (url) => throughPort(url, database.port),
      // The API's wait ends well after a fault is first reported (a step's quick retries: under a second).
      writeWaitMs: 12_000,
      wrapSteps: gate.wrap,
    });
    rpc = createSolanaRpc(stack.node.url);
  });

  afterAll(async () => {
    node?.setUnreachable(false);
    database?.setDown(false);
    await stack?.close();
    await node?.close();
    await database?.close();
  });

  const lamportsOf = async (addr: string) => (await rpc.getBalance(address(addr), { commitment: 'confirmed' }).send()).value;
  const createAccount = (key: string) =>
    stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: SEED.toString() } } }, { headers: { 'Idempotency-Key': key } });

  it('answers 503 while the node is down, keeps every write going, and answers each key with its one landed write once the node is back', async () => {
    const [source, destination] = await Promise.all([createAccount(randomUUID()), createAccount(randomUUID())]);
    expect([source.status, destination.status]).toEqual([201, 201]);
    const feePayerBefore = await lamportsOf(stack.runtime.feePayerAddress);
    const destinationBefore = await lamportsOf(destination.body.newAccount.onchainId);
    const keys = { first: randomUUID(), second: randomUUID(), transfer: randomUUID() };
    const lookup = (answer: Answer) => ({ offchainId: answer.body.newAccount.offchainId });
    const transfer = () =>
      stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
        itemData: { source: lookup(source), destination: lookup(destination), value: { lamports: '1000' }, idempotencyId: keys.transfer },
      });

    node.setUnreachable(true);
    const during = await Promise.all([createAccount(keys.first), createAccount(keys.second), transfer()]);
    for (const answer of during) expectOutageAnswer(answer);
    // The answer names the held transaction, whose record says it has not ended.
    const transactionId = during[0].body.errors[0].message.match(/transaction ([0-9a-f-]{36})/i)?.[1];
    expect((await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: transactionId } } })).body).toMatchObject({
      status: 'PENDING',
    });

    // Down for longer than the 10 attempts that once ended each write; a repeat meanwhile joins it.
    await waitFor(async () => node.refused > during.length * (OLD_ATTEMPTS + 1), 120_000, 200);
    expectOutageAnswer(await createAccount(keys.first));
    node.setUnreachable(false);

    const [first, second, moved] = await Promise.all([
      untilDefinite(() => createAccount(keys.first)),
      untilDefinite(() => createAccount(keys.second)),
      untilDefinite(transfer),
    ]);
    for (const created of [first, second]) {
      expect(created.status).toBe(201);
      expect(await lamportsOf(created.body.newAccount.onchainId)).toBe(SEED);
    }
    expect(first.body.svmTransaction.offchainId).toBe(transactionId);
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({ success: true });
    // Exactly once: two creations and one transfer (two signatures each) paid for, 1000 lamports moved.
    expect(feePayerBefore - (await lamportsOf(stack.runtime.feePayerAddress))).toBe(2n * (SEED + 2n * FEE) + 2n * FEE);
    expect((await lamportsOf(destination.body.newAccount.onchainId)) - destinationBefore).toBe(1000n);
  }, 240_000);

  it('answers 503 while PostgreSQL is down, at the door and while a write waits for its record, and the write happens once when it is back', async () => {
    const feePayerBefore = await lamportsOf(stack.runtime.feePayerAddress);
    const atTheDoor = randomUUID();
    const underway = randomUUID();

    // A write that is on its way (past the API's own reads) when the database goes.
    const held = gate.arm();
    const running = createAccount(underway);
    await held.atGate;
    database.setDown(true);
    held.release();
    // One that arrives while it is down: nothing can be checked or started; 503, never 500.
    expectOutageAnswer(await createAccount(atTheDoor));
    const refusedBefore = database.refused;
    expectOutageAnswer(await running);
    await waitFor(async () => database.refused > refusedBefore + OLD_ATTEMPTS + 1, 120_000, 200);
    database.setDown(false);

    const [late, first] = await Promise.all([untilDefinite(() => createAccount(underway)), untilDefinite(() => createAccount(atTheDoor))]);
    for (const created of [late, first]) {
      expect(created.status).toBe(201);
      expect(await lamportsOf(created.body.newAccount.onchainId)).toBe(SEED);
    }
    expect(feePayerBefore - (await lamportsOf(stack.runtime.feePayerAddress))).toBe(2n * (SEED + 2n * FEE));
    // A repeat answers the same write.
    expect(withoutLiveState((await createAccount(underway)).body)).toEqual(withoutLiveState(late.body));
  }, 240_000);
});

describe('a write whose deadline passes while the node is away', () => {
  let stack: Stack;
  let node: RpcProxy;
  let rpc: ReturnType<typeof createSolanaRpc>;

  beforeAll(async () => {
    stack = await startStack({ rpcUrl: async (url) => (node = await startRpcProxy(url)).url, writeDeadlineMs: 2000 });
    rpc = createSolanaRpc(stack.node.url);
  });

  afterAll(async () => {
    node?.setUnreachable(false);
    await stack?.close();
    await node?.close();
  });

  it('ends with a definite answer that nothing was sent, and the same key then starts it afresh and lands it once', async () => {
    const feePayerBefore = (await rpc.getBalance(address(stack.runtime.feePayerAddress), { commitment: 'confirmed' }).send()).value;
    const key = randomUUID();
    const createAccount = () =>
      stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: SEED.toString() } } }, { headers: { 'Idempotency-Key': key } });

    node.setUnreachable(true);
    const givenUp = await createAccount();
    expectOutageAnswer(givenUp);
    expect(givenUp.body.errors[0].message).toMatch(/^nothing was sent: .*same request again \(same key\)/);
    // Refused before anything was built: no record of it, as for any refusal.
    expect((await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {})).body.count).toBe(0);
    node.setUnreachable(false);

    const created = await createAccount();
    expect(created.status).toBe(201);
    expect((await rpc.getBalance(address(created.body.newAccount.onchainId), { commitment: 'confirmed' }).send()).value).toBe(SEED);
    expect(feePayerBefore - (await rpc.getBalance(address(stack.runtime.feePayerAddress), { commitment: 'confirmed' }).send()).value).toBe(SEED + 2n * FEE);
    expect(withoutLiveState((await createAccount()).body)).toEqual(withoutLiveState(created.body));
  }, 120_000);

  it('reopens the record of an async write that gave up: its key starts it afresh, and the history keeps the attempt that failed', async () => {
    const key = randomUUID();
    const createAccount = (headers: Record<string, string> = {}) =>
      stack.call(
        'POST',
        '/api/v1/accounts',
        { itemData: { managed: true, seed: { lamports: SEED.toString() } } },
        { headers: { 'Idempotency-Key': key, ...headers } },
      );
    const statusOf = async (offchainId: string) =>
      (await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } })).body;

    node.setUnreachable(true);
    const accepted = await createAccount({ prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    const { offchainId } = accepted.body.transaction;
    const failed = await waitFor(async () => {
      const status = await statusOf(offchainId);
      return status.status === 'FAILED' ? status : undefined;
    }, 60_000);
    expect(failed).toMatchObject({ success: false, onchainId: null, errorMessage: expect.stringMatching(/^nothing was sent/) });
    node.setUnreachable(false);

    // The node is back, but this stack's deadline is 2 s: on a loaded machine a first request may
    // still give up (503, nothing sent), and the answer says to send it again with the same key,
    // which is what a client does. Each attempt reopens the same record.
    let created = await createAccount();
    for (let attempt = 1; created.status === 503 && attempt < 5; attempt++) created = await createAccount();
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction.offchainId).toBe(offchainId);
    expect((await rpc.getBalance(address(created.body.newAccount.onchainId), { commitment: 'confirmed' }).send()).value).toBe(SEED);
    const history = (await statusOf(offchainId)).statusHistory.map((entry: { status: string }) => entry.status);
    expect(history.slice(0, 3)).toEqual(['PENDING', 'FAILED', 'PENDING']);
    expect(history.at(-1)).toMatch(/^(CONFIRMED|FINALIZED)$/);
  }, 120_000);
});
