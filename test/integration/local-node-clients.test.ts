/**
 * Unmodified standard clients against the local node, as a client developer would use them:
 * @solana/web3.js 1.x (sendAndConfirmTransaction, which confirms over the PubSub WebSocket on
 * the RPC port + 1), @solana/spl-token 0.4 (createMint, mintTo, transfer), and @solana/kit's
 * sendAndConfirmTransactionFactory with createSolanaRpcSubscriptions.
 */
import {
  appendTransactionMessageInstructions,
  assertIsTransactionWithBlockhashLifetime,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { approve, createMint, getAccount, getOrCreateAssociatedTokenAccount, mintTo, TOKEN_PROGRAM_ID, transfer as splTransfer } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, sendAndConfirmTransaction, SystemProgram, Transaction } from '@solana/web3.js';
import { startLocalNode, type LocalNode } from '../../dev/local-node';
import { waitFor } from '../support/wait';

let node: LocalNode;
let connection: Connection;

beforeAll(async () => {
  node = await startLocalNode({ port: 0, blockTimeMs: 100 });
  // The WebSocket endpoint is derived by web3.js itself (port + 1), as against a cluster.
  connection = new Connection(node.url, 'confirmed');
});

afterAll(async () => {
  // web3.js closes its WebSocket on its own once no subscription is left (else it would reconnect to the closed node).
  await waitFor(async () => !(connection as unknown as { _rpcWebSocketConnected: boolean })._rpcWebSocketConnected);
  await node?.close();
});

async function fundedKeypair(sol: number): Promise<Keypair> {
  const keypair = Keypair.generate();
  const signature = await connection.requestAirdrop(keypair.publicKey, sol * LAMPORTS_PER_SOL);
  const latest = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature, ...latest }, 'confirmed');
  return keypair;
}

it('web3.js sendAndConfirmTransaction lands a system transfer from an airdropped keypair', async () => {
  const from = await fundedKeypair(2);
  const to = Keypair.generate().publicKey;
  const transaction = new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 123_456_789 }));
  const signature = await sendAndConfirmTransaction(connection, transaction, [from]);
  expect(await connection.getBalance(to)).toBe(123_456_789);
  const status = await connection.getSignatureStatus(signature);
  expect(['confirmed', 'finalized']).toContain(status.value?.confirmationStatus);
  // Finalized confirmation waits for the block FINALITY_DEPTH back, over the same WebSocket.
  const second = new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1 }));
  await sendAndConfirmTransaction(connection, second, [from], { commitment: 'finalized' });
  expect(await connection.getBalance(to, 'finalized')).toBe(123_456_790);
});

it('spl-token 0.4 over web3.js: createMint, mintTo, transfer', async () => {
  const payer = await fundedKeypair(5);
  const mint = await createMint(connection, payer, payer.publicKey, null, 6);
  const alice = await getOrCreateAssociatedTokenAccount(connection, payer, mint, payer.publicKey);
  const bob = await getOrCreateAssociatedTokenAccount(connection, payer, mint, Keypair.generate().publicKey);
  await mintTo(connection, payer, mint, alice.address, payer, 1_000_000n);
  await splTransfer(connection, payer, alice.address, bob.address, payer, 250_000n);
  expect((await getAccount(connection, bob.address)).amount).toBe(250_000n);
  expect((await getAccount(connection, alice.address)).amount).toBe(750_000n);
  expect((await connection.getTokenSupply(mint)).value).toEqual({ amount: '1000000', decimals: 6, uiAmount: 1, uiAmountString: '1' });
  expect((await connection.getTokenLargestAccounts(mint)).value).toEqual([
    { address: alice.address, amount: '750000', decimals: 6, uiAmount: 0.75, uiAmountString: '0.75' },
    { address: bob.address, amount: '250000', decimals: 6, uiAmount: 0.25, uiAmountString: '0.25' },
  ]);
  // A delegate finds the accounts it may spend from (kit's getTokenAccountsByDelegate; web3.js 1.x has no wrapper).
  const delegate = Keypair.generate().publicKey;
  await approve(connection, payer, alice.address, delegate, payer, 100n);
  const delegated = await raw('getTokenAccountsByDelegate', [delegate.toBase58(), { programId: TOKEN_PROGRAM_ID.toBase58() }, { encoding: 'jsonParsed' }]);
  expect(delegated).toMatchObject({
    value: [{ pubkey: alice.address.toBase58(), account: { data: { parsed: { info: { delegate: delegate.toBase58() } } } } }],
  });
  const none = await raw('getTokenAccountsByDelegate', [Keypair.generate().publicKey.toBase58(), { mint: mint.toBase58() }]);
  expect(none).toMatchObject({ value: [] });
});

async function raw(method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

it('answers the cluster and validator methods web3.js calls, shaped like a single-validator cluster', async () => {
  const payer = await fundedKeypair(1);
  const identity = (await raw('getIdentity')) as { identity: string };
  const slot = await connection.getSlot();
  const epoch = await connection.getEpochInfo();

  const supply = await connection.getSupply();
  expect(supply.value.total).toBeGreaterThanOrEqual(LAMPORTS_PER_SOL);
  expect(supply.value).toMatchObject({ nonCirculating: 0, nonCirculatingAccounts: [] });
  expect(supply.value.circulating).toBe(supply.value.total);
  const largest = await connection.getLargestAccounts();
  expect(largest.value.length).toBeGreaterThan(0);
  expect(largest.value.length).toBeLessThanOrEqual(20);
  expect(largest.value[0].address).toBeInstanceOf(PublicKey);
  expect(largest.value.map((entry) => entry.lamports)).toEqual([...largest.value.map((entry) => entry.lamports)].sort((a, b) => b - a));
  expect((await connection.getLargestAccounts({ filter: 'nonCirculating' })).value).toEqual([]);

  expect((await connection.getSlotLeader()).toString()).toBe(identity.identity);
  expect((await connection.getSlotLeaders(slot, 3)).map(String)).toEqual([identity.identity, identity.identity, identity.identity]);
  const schedule = await connection.getLeaderSchedule();
  expect(Object.keys(schedule)).toEqual([identity.identity]);
  expect(schedule[identity.identity]).toHaveLength(epoch.slotsInEpoch);
  const nodes = await connection.getClusterNodes();
  expect(nodes).toEqual([
    expect.objectContaining({
      pubkey: identity.identity,
      rpc: node.url.replace('http://', ''),
      pubsub: node.wsUrl.replace('ws://', ''),
      version: expect.any(String),
    }),
  ]);
  const votes = await connection.getVoteAccounts();
  expect(votes.delinquent).toEqual([]);
  expect(votes.current).toEqual([
    expect.objectContaining({
      nodePubkey: identity.identity,
      epochVoteAccount: true,
      commission: 0,
      activatedStake: expect.any(Number),
      votePubkey: expect.any(String),
    }),
  ]);
  const production = await connection.getBlockProduction();
  const [leaderSlots, produced] = production.value.byIdentity[identity.identity];
  expect(produced).toBe(leaderSlots);
  expect(production.value.range.lastSlot).toBeGreaterThanOrEqual(slot);
  const commitment = (await raw('getBlockCommitment', [await connection.getSlot('confirmed')])) as { commitment: number[]; totalStake: number };
  expect(commitment.commitment).toHaveLength(32);
  expect(commitment.totalStake).toBeGreaterThan(0);
  const samples = await connection.getRecentPerformanceSamples(2);
  expect(samples.length).toBeGreaterThan(0);
  expect(samples[0]).toEqual({
    slot: expect.any(Number),
    numTransactions: expect.any(Number),
    numNonVoteTransactions: expect.any(Number),
    numSlots: expect.any(Number),
    samplePeriodSecs: 60,
  });
  expect(samples.reduce((sum, sample) => sum + sample.numTransactions, 0)).toBeGreaterThan(0);

  expect(await connection.getInflationGovernor()).toEqual({ initial: 0, terminal: 0, taper: 0, foundation: 0, foundationTerm: 0 });
  expect(await connection.getInflationRate()).toEqual({ total: 0, validator: 0, foundation: 0, epoch: epoch.epoch });
  expect(await connection.getInflationReward([payer.publicKey])).toEqual([null]);
  expect(await connection.getStakeMinimumDelegation()).toMatchObject({ value: LAMPORTS_PER_SOL });
  expect(await connection.getTransactionCount()).toBeGreaterThan(0);
  expect(await connection.getFirstAvailableBlock()).toBe(0);
  expect(await connection.getMinimumLedgerSlot()).toBe(0);
  expect(await raw('getMaxRetransmitSlot')).toBeGreaterThanOrEqual(slot);
  expect(await raw('getMaxShredInsertSlot')).toBeGreaterThanOrEqual(slot);
  await expect(raw('getHighestSnapshotSlot')).rejects.toThrow('No snapshot');
  const blocks = await connection.getBlocks(0, 3);
  expect(blocks).toEqual([0, 1, 2, 3]);
  expect(await connection.getBlockTime(1)).toBeGreaterThan(1_700_000_000);
});

it("kit's sendAndConfirmTransactionFactory with createSolanaRpcSubscriptions lands a transfer", async () => {
  const rpc = createSolanaRpc(node.url);
  const rpcSubscriptions = createSolanaRpcSubscriptions(node.wsUrl);
  const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
  const payer = await generateKeyPairSigner();
  const recipient = await generateKeyPairSigner();
  await rpc.requestAirdrop(payer.address, lamports(1_000_000_000n)).send();
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  const transaction = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1_000_000n })], m),
    ),
  );
  assertIsTransactionWithBlockhashLifetime(transaction);
  await sendAndConfirm(transaction, { commitment: 'confirmed' });
  const { value: statuses } = await rpc.getSignatureStatuses([getSignatureFromTransaction(transaction)]).send();
  expect(statuses[0]?.err).toBeNull();
  expect((await rpc.getBalance(recipient.address).send()).value).toBe(1_000_000n);
});
