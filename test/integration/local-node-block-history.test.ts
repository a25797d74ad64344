/**
 * Block history on the local node as a chain follower reads it: getBlocks, getBlocksWithLimit,
 * getBlock and getBlockTime for every slot since genesis (well past the 512 blocks the chain
 * keeps for SlotHashes), with the cluster's commitment and range rules, across a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSolanaRpc, generateKeyPairSigner, isSolanaError, lamports, type Rpc, type Signature, type SolanaRpcApi } from '@solana/kit';
import { FINALITY_DEPTH } from '../../dev/local-node/chain';
import { SLOT_RECORD_BYTES } from '../../dev/local-node/slot-history';
import { startLocalNode, type LocalNode } from '../../dev/local-node';

let dataDir: string;
let node: LocalNode;
let rpc: Rpc<SolanaRpcApi>;
let resume: () => void;
let airdrop: Signature;
let airdropSlot: bigint;

async function raw(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-node-history-'));
  node = await startLocalNode({ port: 0, dataDir });
  resume = node.pauseBlocks();
  rpc = createSolanaRpc(node.url);
  node.advanceSlots(3);
  airdrop = await rpc.requestAirdrop((await generateKeyPairSigner()).address, lamports(1_000_000n)).send();
  airdropSlot = (await rpc.getSignatureStatuses([airdrop]).send()).value[0]!.slot;
  // Far past the 512 blocks the chain keeps in memory.
  node.advanceSlots(700);
});

afterAll(async () => {
  resume?.();
  await node?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('lists every block since genesis with getBlocks and getBlocksWithLimit, up to the commitment slot', async () => {
  const confirmedSlot = await rpc.getSlot({ commitment: 'confirmed' }).send();
  const finalizedSlot = await rpc.getSlot({ commitment: 'finalized' }).send();
  expect(confirmedSlot - finalizedSlot).toBe(BigInt(FINALITY_DEPTH - 1));
  expect(await rpc.getBlocks(0n, 5n).send()).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
  // The end defaults to the commitment's slot and is capped there (kit asks at `confirmed` unless told).
  const all = await rpc.getBlocks(0n, undefined, { commitment: 'finalized' }).send();
  expect(all.at(-1)).toBe(finalizedSlot);
  expect(all).toHaveLength(Number(finalizedSlot) + 1);
  expect((await rpc.getBlocks(finalizedSlot - 1n, finalizedSlot + 10n, { commitment: 'finalized' }).send()).at(-1)).toBe(finalizedSlot);
  expect((await rpc.getBlocks(finalizedSlot - 1n).send()).at(-1)).toBe(confirmedSlot);
  expect((await raw('getBlocks', [Number(finalizedSlot) - 1])).result).toEqual([Number(finalizedSlot) - 1, Number(finalizedSlot)]);
  expect(await rpc.getBlocks(10n, 9n).send()).toEqual([]);
  expect(await rpc.getBlocksWithLimit(2n, 3).send()).toEqual([2n, 3n, 4n]);
  expect(await rpc.getBlocksWithLimit(confirmedSlot, 10).send()).toEqual([confirmedSlot]);
  expect(await rpc.getBlocksWithLimit(confirmedSlot, 10, { commitment: 'finalized' }).send()).toEqual([]);

  // The cluster's refusals: below confirmed, a limit over 500,000 (a range is checked once capped at the
  // commitment slot, as Agave does, so a chain this short never exceeds it).
  expect(await raw('getBlocks', [0, 10, { commitment: 'processed' }])).toMatchObject({ error: { code: -32602 } });
  expect((await raw('getBlocks', [0, 500_001])).result).toHaveLength(Number(finalizedSlot) + 1);
  expect(await raw('getBlocksWithLimit', [0, 500_001])).toMatchObject({ error: { code: -32602, message: 'Limit too large; max 500000' } });
  // The config may stand in the end slot's place.
  expect(await raw('getBlocks', [Number(confirmedSlot), { commitment: 'confirmed' }])).toEqual(expect.objectContaining({ result: [Number(confirmedSlot)] }));
});

it('serves getBlock and getBlockTime for slots older than the in-memory table, and after a restart', async () => {
  const check = async () => {
    const block = await rpc.getBlock(airdropSlot, { maxSupportedTransactionVersion: 0, transactionDetails: 'signatures', rewards: false }).send();
    expect(block!.signatures).toEqual([airdrop]);
    expect(block!.parentSlot).toBe(airdropSlot - 1n);
    const parent = await rpc.getBlock(airdropSlot - 1n, { transactionDetails: 'none', rewards: false }).send();
    expect(block!.previousBlockhash).toBe(parent!.blockhash);
    expect(block!.blockHeight).toBe(parent!.blockHeight! + 1n);
    expect(Number(await rpc.getBlockTime(airdropSlot).send())).toBe(Number(block!.blockTime));
    expect(Number(await rpc.getBlockTime(1n).send())).toBeGreaterThan(1_700_000_000);
    expect(await rpc.getFirstAvailableBlock().send()).toBe(0n);
    return block!.blockhash;
  };
  const blockhash = await check();
  // An idle restart keeps the same history (the slot file is committed with the chain state).
  resume();
  await node.close();
  node = await startLocalNode({ port: 0, dataDir });
  resume = node.pauseBlocks();
  rpc = createSolanaRpc(node.url);
  expect(await check()).toBe(blockhash);
  node.advanceSlots(5);
  const finalizedSlot = await rpc.getSlot({ commitment: 'finalized' }).send();
  expect(await rpc.getBlocks(finalizedSlot - 3n, undefined, { commitment: 'finalized' }).send()).toHaveLength(4);
  // One fixed-size record per block on disk.
  const slots = Number(await rpc.getSlot({ commitment: 'processed' }).send());
  expect(fs.statSync(path.join(dataDir, 'slots.log')).size).toBe(slots * SLOT_RECORD_BYTES);
  const error = await rpc
    .getBlockTime(BigInt(slots) + 100n)
    .send()
    .catch((e: unknown) => e);
  expect(isSolanaError(error)).toBe(true);
});
