/**
 * `npx tsx bench/follower.ts [subscribed=100000] [txPerBlock=3000]`: what following blocks costs
 * (docs/chain-follower.md). Measures, on this machine:
 * - matching a mainnet-sized block (txPerBlock transactions of ~12 account keys and 2 token
 *   balances each) against a followed set of `subscribed` accounts and as many positions;
 * - reading real blocks from the local node through the service's own adapter (getBlocks +
 *   getBlock, json, full details), per block and per transaction;
 * and prints the RPC calls per minute each design needs at `subscribed` accounts.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { startLocalNode } from '../dev/local-node';
import { createJsonRpcNetwork } from '../src/network/json-rpc-network';
import { followedSet, matchBlock, type FollowedTransaction } from '../src/follower/network-events';

const subscribed = Number(process.argv[2] ?? 100_000);
const txPerBlock = Number(process.argv[3] ?? 3_000);
const randomAddress = () => getAddressDecoder().decode(randomBytes(32)) as string;

function matchingBench() {
  const accounts = Array.from({ length: subscribed }, (_, i) => ({ id: `a${i}`, organizationId: `org-${i % 10}`, address: randomAddress(), fromSlot: null }));
  const positions = accounts.map((a, i) => ({
    id: `p${i}`,
    organizationId: a.organizationId,
    address: randomAddress(),
    ownerAccountId: a.id,
    mintAddress: 'Mint',
  }));
  let t = performance.now();
  const set = followedSet(accounts, positions);
  const buildMs = performance.now() - t;
  const programs = ['11111111111111111111111111111111', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'ComputeBudget111111111111111111111111111111'];
  // 1 in 100 transactions touches a followed account (a deposit); the rest are strangers' traffic.
  const block: FollowedTransaction[] = Array.from({ length: txPerBlock }, (_, i) => {
    const keys = [...Array.from({ length: 9 }, randomAddress), ...programs];
    if (i % 100 === 0) keys[1] = accounts[i % subscribed].address;
    return {
      signature: `sig${i}`,
      err: null,
      fee: 5000n,
      accountKeys: keys,
      signers: keys.slice(0, 1),
      balances: keys.map((k) => ({ address: k, pre: 10n, post: 9n })),
      tokenBalances: [
        { address: randomAddress(), mint: 'Mint', owner: randomAddress(), pre: 1n, post: 0n },
        { address: randomAddress(), mint: 'Mint', owner: randomAddress(), pre: 0n, post: 1n },
      ],
      slot: 1n,
      blockTime: null,
    };
  });
  const rounds = 20;
  let matched = 0;
  t = performance.now();
  for (let r = 0; r < rounds; r++) matched = matchBlock(set, block, new Set()).length;
  const matchMs = (performance.now() - t) / rounds;
  return { buildMs, matchMs, matched };
}

async function nodeBench() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-follower-'));
  const node = await startLocalNode({ port: 0, dataDir, blockTimeMs: 400 });
  try {
    const network = createJsonRpcNetwork('LOCAL', node.url);
    const payer = await generateKeyPairSigner();
    await network.requestAirdrop(payer.address, 100_000_000_000n);
    while ((await network.getBalance(payer.address)) === 0n) await new Promise((r) => setTimeout(r, 50));
    const start = await network.getSlot('confirmed');
    // Transfers to fresh addresses, as fast as the node takes them, for a few blocks.
    const sends: Promise<unknown>[] = [];
    const count = 600;
    const { blockhash, lastValidBlockHeight } = await network.getLatestBlockhash();
    for (let i = 0; i < count; i++) {
      const signed = await signTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(payer, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as never, lastValidBlockHeight }, m),
          (m) =>
            appendTransactionMessageInstructions(
              [getTransferSolInstruction({ source: payer, destination: address(randomAddress()), amount: 1_000_000n + BigInt(i) })],
              m,
            ),
        ),
      );
      sends.push(network.sendTransaction(getBase64EncodedWireTransaction(signed), ''));
    }
    await Promise.all(sends);
    node.advanceSlots(40);
    const end = await network.getSlot('confirmed');
    let t = performance.now();
    const slots = await network.getBlocks(start, end);
    const getBlocksMs = performance.now() - t;
    t = performance.now();
    let transactions = 0;
    for (const slot of slots) transactions += (await network.getBlock(slot))?.transactions.length ?? 0;
    const getBlockMs = performance.now() - t;
    return { blocks: slots.length, transactions, getBlocksMs, perBlockMs: getBlockMs / slots.length, perTransactionMs: getBlockMs / Math.max(1, transactions) };
  } finally {
    await node.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const matching = matchingBench();
  const node = await nodeBench();
  const blocksPerMinute = 60 / 0.4;
  console.log(`followed set: ${subscribed} accounts + ${subscribed} positions, built in ${matching.buildMs.toFixed(0)} ms`);
  console.log(`matching a ${txPerBlock}-transaction block: ${matching.matchMs.toFixed(2)} ms (${matching.matched} matched)`);
  console.log(
    `local node: ${node.transactions} transactions in ${node.blocks} blocks; getBlocks ${node.getBlocksMs.toFixed(1)} ms; getBlock ${node.perBlockMs.toFixed(2)} ms per block, ${(node.perTransactionMs * 1000).toFixed(0)} µs per transaction`,
  );
  console.log(`RPC calls per minute at ${subscribed} subscribed accounts (400 ms slots):`);
  console.log(
    `  (a) follow blocks: ${blocksPerMinute} getBlock + ~3 getBlocks + 60/0.4 getSlot ≈ ${Math.round(blocksPerMinute * 2 + 3)}, independent of the account count`,
  );
  console.log(`  (b) provider stream (Geyser gRPC / webhooks): 0 polling calls; one stream, ${subscribed} addresses registered with the provider`);
  console.log(
    `  (c) per-address signature polling, every 60 s: ${subscribed} getSignaturesForAddress (+ 1 getTransaction per new signature); every 10 s: ${subscribed * 6}`,
  );
}

void main();
