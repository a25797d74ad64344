/**
 * Exactly once under any crash (docs/write-engine.md): the worker runs as its own process and is killed with
 * SIGKILL at every step boundary of a write, and inside submit after the network took the bytes (an
 * RPC proxy holds sendTransaction's answer). A write is one workflow task, so a new worker replays
 * every step from lookup. For Create Account, Mint, Transfer and Trade the outcome must be the one a
 * user expects: the write answers success, exactly one transaction landed (the fee payer paid for
 * one, value moved once), the records equal the chain, and no record is left PENDING or SUBMITTED.
 */
import { randomUUID } from 'node:crypto';
import { address, createSolanaRpc } from '@solana/kit';
import { startFaultWorker } from '../support/fault-process';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import { startStack, type Stack } from '../support/stack';

/** A write resumed after a kill may find its transaction already finalized: at least the commitment asked for (confirmed). */
const landedStatus = expect.stringMatching(/^(CONFIRMED|FINALIZED)$/);

let stack: Stack;
let proxy: RpcProxy;
let rpc: ReturnType<typeof createSolanaRpc>;
let mint: string;
type PositionLookup = { owner: { offchainId: string }; financialInstrument: { onchainId: string } };
let alice: PositionLookup;
let bob: PositionLookup;

const FEE = 5000n;

beforeAll(async () => {
  stack = await startStack({ worker: false, writeTaskTimeoutSeconds: 2 });
  proxy = await startRpcProxy(stack.node.url);
  rpc = createSolanaRpc(stack.node.url);
  await stack.restartWorker();
  const account = async (itemData: Record<string, unknown> = {}) =>
    (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, ...itemData } })).body.newAccount as { onchainId: string; offchainId: string };
  const authority = await account({ offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 2 },
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  mint = created.body.newFinancialInstrument.onchainId;
  alice = { owner: { offchainId: (await account()).offchainId }, financialInstrument: { onchainId: mint } };
  bob = { owner: { offchainId: (await account()).offchainId }, financialInstrument: { onchainId: mint } };
  for (const position of [alice, bob])
    expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: position } })).status).toBe(201);
  expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: alice, value: { lamports: '1000' } } })).body.success).toBe(true);
  await stack.stopWorker();
});

afterAll(async () => {
  await proxy?.close();
  await stack?.close();
});

const lamportsOf = async (addr: string) => (await rpc.getBalance(address(addr), { commitment: 'confirmed' }).send()).value;
const feePayerBalance = () => lamportsOf(stack.runtime.feePayerAddress);
const balances = async (position: PositionLookup) => {
  const { body } = await stack.call('POST', '/api/v1/positions/balance', { itemData: { position } });
  return { onchain: BigInt(body.onchain.balance.lamports), offchain: BigInt(body.offchain.balance.lamports) };
};
const supply = async () =>
  BigInt(
    (await stack.call('POST', '/api/v1/financial-instruments/circulating-supply', { itemData: { financialInstrument: { onchainId: mint } } })).body
      .circulatingSupply.lamports,
  );

/** No record of any write is left where a user would wait on it forever. */
async function expectNoOpenRecords() {
  for (const status of ['PENDING', 'BUILT', 'SIGNED', 'SUBMITTED']) {
    const open = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {
      itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: status }] }] },
    });
    expect({ status, count: open.body.count }).toEqual({ status, count: 0 });
  }
}

/** The write's one record agrees with its answer and with the chain. */
async function expectRecordOf(transaction: { offchainId: string; onchainId: string; status: string }) {
  const record = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: transaction.offchainId } } });
  // The chain follower may have moved a CONFIRMED record to FINALIZED since the answer.
  const status = transaction.status === 'CONFIRMED' ? expect.stringMatching(/^(CONFIRMED|FINALIZED)$/) : transaction.status;
  expect(record.body).toMatchObject({ onchainId: transaction.onchainId, status });
  const landed = (await rpc.getSignatureStatuses([transaction.onchainId as never], { searchTransactionHistory: true }).send()).value[0];
  expect(landed?.err).toBeNull();
}

/**
 * Runs `write` with a fault worker that stops at `point` and is killed there; a healthy worker
 * (in this process) then resumes the write. `held-send`: the proxy holds the node's answer to
 * sendTransaction, the worker is killed while it waits for it.
 */
async function underFault<T>(point: string, write: () => Promise<T>): Promise<T> {
  const heldSend = point === 'held-send';
  const worker = await startFaultWorker(stack, heldSend ? 'none' : point, proxy.url);
  const held = heldSend ? proxy.holdNextSend() : undefined;
  const sendsBefore = proxy.sends;
  const answer = write();
  await (held ?? worker.reached);
  await worker.kill();
  proxy.releaseHeld();
  if (heldSend) expect(proxy.sends).toBe(sendsBefore + 1);
  await stack.restartWorker();
  try {
    return await answer;
  } finally {
    await stack.stopWorker();
  }
}

const everyBoundary = [
  'after:lookup',
  'after:checkLimits',
  'after:build',
  'after:sign',
  'held-send',
  'after:submit',
  'before:confirm',
  'after:confirm',
  'after:record',
];
const whereItHurts = ['after:sign', 'held-send', 'after:record'];

describe.each(everyBoundary)('the worker killed at %s', (point) => {
  it('Create Account lands once: funded once, one record, the account listed', async () => {
    const before = await feePayerBalance();
    const created = await underFault(point, () => stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: '3000000' } } }));
    expect(created.status).toBe(201);
    expect(created.body.svmTransaction).toMatchObject({ success: true, status: landedStatus });
    const { onchainId, offchainId } = created.body.newAccount;
    expect(await lamportsOf(onchainId)).toBe(3_000_000n);
    // One transaction: the seed and two signatures' fees, nothing more.
    expect(before - (await feePayerBalance())).toBe(3_000_000n + 2n * FEE);
    const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId } } });
    expect(details.body.onchain).toMatchObject({ id: onchainId, creationTransactionId: created.body.svmTransaction.onchainId });
    await expectRecordOf(created.body.svmTransaction);
    await expectNoOpenRecords();
  });

  it('Mint lands once: supply and the position grow by the amount, once', async () => {
    const [before, supplyBefore, position] = [await feePayerBalance(), await supply(), await balances(bob)];
    const minted = await underFault(point, () =>
      stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: bob, value: { lamports: '7' }, idempotencyId: randomUUID() } }),
    );
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ success: true, status: landedStatus });
    expect(await supply()).toBe(supplyBefore + 7n);
    expect(await balances(bob)).toEqual({ onchain: position.onchain + 7n, offchain: position.onchain + 7n });
    // Fee payer and mint authority signed one transaction.
    expect(before - (await feePayerBalance())).toBe(2n * FEE);
    await expectRecordOf(minted.body);
    await expectNoOpenRecords();
  });
});

describe.each(whereItHurts)('the worker killed at %s', (point) => {
  it('Transfer moves the amount once, records equal to the chain', async () => {
    const [before, from, to] = [await feePayerBalance(), await balances(alice), await balances(bob)];
    const moved = await underFault(point, () =>
      stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: alice, destination: bob, value: { lamports: '3' }, idempotencyId: randomUUID() },
      }),
    );
    expect(moved.body).toMatchObject({ success: true, status: landedStatus });
    expect(await balances(alice)).toEqual({ onchain: from.onchain - 3n, offchain: from.onchain - 3n });
    expect(await balances(bob)).toEqual({ onchain: to.onchain + 3n, offchain: to.onchain + 3n });
    expect(before - (await feePayerBalance())).toBe(2n * FEE);
    await expectRecordOf(moved.body);
    await expectNoOpenRecords();
  });

  it('Transfer with a compute budget (simulated limit, estimated price) lands once, with the budget its record shows', async () => {
    const [before, from] = [await feePayerBalance(), await balances(alice)];
    const computeUnitConfig = { enable: true, priceEstimate: { priorityLevel: 'HIGH' } };
    const moved = await underFault(point, () =>
      stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: alice, destination: bob, value: { lamports: '1' }, idempotencyId: randomUUID() },
        svmTransactionConfig: { computeUnitConfig },
      }),
    );
    // At least confirmed: a resumed confirm may first see it finalized (32 blocks of 100 ms here).
    expect(moved.body).toMatchObject({ success: true, status: landedStatus });
    expect(await balances(alice)).toEqual({ onchain: from.onchain - 1n, offchain: from.onchain - 1n });
    // The replayed build answered the recorded message: one transaction, paid once, with the recorded limit and price.
    const details = (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: moved.body.offchainId } } })).body;
    expect(details.computeUnitConfig).toMatchObject({ limitSource: 'SIMULATED', priceEstimate: { priorityLevel: 'HIGH' } });
    expect(details.serializedMessage).toBe(moved.body.serializedMessage);
    const priorityFee = (BigInt(details.computeUnitConfig.limit) * BigInt(details.computeUnitConfig.price) + 999_999n) / 1_000_000n;
    expect(BigInt(details.fee)).toBe(2n * FEE + priorityFee);
    expect(before - (await feePayerBalance())).toBe(2n * FEE + priorityFee);
    await expectRecordOf(moved.body);
    await expectNoOpenRecords();
  });

  it('Trade (mint, then transfer) lands once as one atomic transaction', async () => {
    const [before, supplyBefore, a, b] = [await feePayerBalance(), await supply(), await balances(alice), await balances(bob)];
    const traded = await underFault(point, () =>
      stack.call('POST', '/api/v1/positions/trade', {
        itemData: {
          operations: [{ mint: { mintTo: bob, value: { lamports: '5' } } }, { transfer: { source: bob, destination: alice, value: { lamports: '2' } } }],
          idempotencyId: randomUUID(),
        },
      }),
    );
    expect(traded.body).toMatchObject({ success: true, status: landedStatus });
    expect(await supply()).toBe(supplyBefore + 5n);
    expect(await balances(alice)).toEqual({ onchain: a.onchain + 2n, offchain: a.onchain + 2n });
    expect(await balances(bob)).toEqual({ onchain: b.onchain + 3n, offchain: b.onchain + 3n });
    // Fee payer, mint authority and bob's owner signed one transaction.
    expect(before - (await feePayerBalance())).toBe(3n * FEE);
    await expectRecordOf(traded.body);
    await expectNoOpenRecords();
  });
});

it('keeps two identical writes (same instructions, same block, different keys) two transactions: both move value', async () => {
  await stack.restartWorker();
  try {
    const [from, to] = [await balances(alice), await balances(bob)];
    const transfer = () =>
      stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: alice, destination: bob, value: { lamports: '4' }, idempotencyId: randomUUID() },
      });
    const answers = await Promise.all([transfer(), transfer(), transfer()]);
    expect(answers.map((a) => a.body.success)).toEqual([true, true, true]);
    // Three signatures: identical bytes would have been one transaction, answered three times.
    expect(new Set(answers.map((a) => a.body.onchainId)).size).toBe(3);
    expect(await balances(alice)).toEqual({ onchain: from.onchain - 12n, offchain: from.onchain - 12n });
    expect(await balances(bob)).toEqual({ onchain: to.onchain + 12n, offchain: to.onchain + 12n });
  } finally {
    await stack.stopWorker();
  }
});
