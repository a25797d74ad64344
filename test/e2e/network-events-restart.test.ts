/**
 * Following resumes where it stopped (API.md section 9, "Exactly once"; docs/chain-follower.md):
 * deposits made while no worker runs are recorded once the worker is back, from the durable
 * cursor, with no gap and nothing twice.
 */
import { createSolanaRpc, devnet } from '@solana/kit';
import { fundOutsideSender, type OutsideSender } from '../support/outside-sender';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let outsideSender: OutsideSender;

beforeAll(async () => {
  // No worker in the API: the test starts and stops the only one.
  stack = await startStack({ worker: false });
  await stack.restartWorker();
  outsideSender = await fundOutsideSender(createSolanaRpc(devnet(stack.node.url)), 10_000_000_000n);
});
afterAll(async () => {
  await stack?.close();
});

const cursor = async (): Promise<bigint> => {
  const [row] = await stack.runtime.orm.em.getConnection().execute<{ slot: string }[]>('select slot from chain_cursor where cluster = ?', ['LOCAL']);
  return row ? BigInt(row.slot) : -1n;
};
const recorded = async (signature: string): Promise<number> => {
  const [row] = await stack.runtime.orm.em
    .getConnection()
    .execute<{ n: string }[]>(`select count(*) as n from ledger_transaction where signature = ? and origin = 'NETWORK'`, [signature]);
  return Number(row.n);
};
const lamportsOf = async (ref: Ref) => {
  const body = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;
  return { offchain: body.offchain.balance.lamports, onchain: body.onchain.balance.lamports };
};

it('records the deposits made while the worker was down once it is back, from its durable cursor, each once', async () => {
  const vault = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, subscribeToNetworkEvents: true } })).body.newAccount as Ref;
  const first = await outsideSender.deposit(vault.onchainId, 10_000n);
  await waitFor(async () => (await recorded(first.signature)) === 1, 60_000);
  const before = await lamportsOf(vault);

  await stack.stopWorker();
  const stoppedAt = await cursor();
  const whileDown = [await outsideSender.deposit(vault.onchainId, 20_000n), await outsideSender.deposit(vault.onchainId, 30_000n)];
  // Nothing follows while the worker is down.
  expect(await cursor()).toBe(stoppedAt);
  expect(await recorded(whileDown[0].signature)).toBe(0);

  await stack.restartWorker();
  for (const { signature } of whileDown) await waitFor(async () => (await recorded(signature)) === 1, 60_000);
  await waitFor(async () => (await cursor()) >= whileDown[1].slot, 60_000);
  expect(await recorded(first.signature)).toBe(1);
  const after = await lamportsOf(vault);
  expect(after.offchain).toBe(before.offchain + 50_000);
  expect(after.offchain).toBe(after.onchain);
});
