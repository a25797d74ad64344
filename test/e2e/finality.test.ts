/**
 * Finality following (API.md section 9, docs/finality.md): a landed write is followed to FINALIZED
 * with live, monotonic confirmations and the block's time, with no client call. The follower's tick
 * (advanceFinality) is called here directly against the stack's database and network.
 */
import { createSolanaRpc, type Signature } from '@solana/kit';
import { advanceFinality } from '../../src/follower/finality';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc>;
beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(stack.node.url);
});
afterAll(async () => {
  await stack?.close();
});

type Ref = { onchainId: string; offchainId: string };
const account = async (itemData: Record<string, unknown>) => (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as Ref;
const details = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId } } })).body;
const balance = async (ref: Ref) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;
const tick = () => advanceFinality({ orm: stack.runtime.orm, networks: stack.runtime.networks, now: () => new Date() }, stack.runtime.networks.defaultCluster);
const send = (from: Ref, to: Ref, lamports: string, svmTransactionConfig: Record<string, unknown> = {}) =>
  stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: to.offchainId }, value: { lamports } },
    svmTransactionConfig,
  });

it('follows a write answered CONFIRMED to FINALIZED: confirmations grow and stay above 0, the history shows both, txnTimestamp is the block time', async () => {
  const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 } }), await account({ managed: true })];
  const sent = await send(wallet, vault, '1000');
  expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
  const answered = await details(sent.body.offchainId);
  const slot = BigInt(answered.slot);
  const blockTime = await rpc.getBlockTime(slot).send();
  expect(new Date(answered.txnTimestamp).getTime()).toBe(Number(blockTime) * 1000);

  // A few blocks on, still below finality: the count grows.
  stack.node.advanceSlots(5);
  await tick();
  const growing = await details(sent.body.offchainId);
  expect(growing.status).toBe('CONFIRMED');
  expect(growing.confirmationsCount).toBeGreaterThanOrEqual(5);

  stack.node.advanceSlots(40);
  await tick();
  const final = await details(sent.body.offchainId);
  expect(final).toMatchObject({ status: 'FINALIZED', success: true });
  expect(final.confirmationsCount).toBeGreaterThanOrEqual(growing.confirmationsCount);
  expect(final.statusHistory.map((s: { status: string }) => s.status).slice(-2)).toEqual(['CONFIRMED', 'FINALIZED']);
  expect(new Date(final.txnTimestamp).getTime()).toBe(Number(blockTime) * 1000);

  // A replayed tick changes nothing.
  await tick();
  expect(await details(sent.body.offchainId)).toEqual(final);
  const [from, to] = [await balance(wallet), await balance(vault)];
  expect(from.offchain.balance).toEqual(from.onchain.balance);
  expect(to.offchain.balance).toEqual(to.onchain.balance);
});

it('a write answered at finalized keeps a confirmations count above 0', async () => {
  const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 } }), await account({ managed: true })];
  const sent = await send(wallet, vault, '1000', { commitmentConfig: { commitmentLevel: 'finalized' } });
  expect(sent.body).toMatchObject({ success: true, status: 'FINALIZED' });
  expect(sent.body.confirmationsCount).toBeGreaterThan(0);
  const { value } = await rpc.getSignatureStatuses([sent.body.onchainId as Signature]).send();
  expect(value[0]?.confirmationStatus).toBe('finalized');
  await waitFor(async () => (await details(sent.body.offchainId)).confirmationsCount > 0);
});
