/**
 * The local node's fork fault hook (dev/local-node/fork.ts): dropUnfinalizedBlocks abandons every
 * block above the finalized slot. Its transactions are undone (accounts exactly as at the finalized
 * slot) and forgotten by every history method, the blocks stay empty, the chain goes on, and a restart
 * of the node shows the same chain.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { FINALITY_DEPTH } from '../../dev/local-node/chain';
import { startLocalNode, type LocalNode } from '../../dev/local-node';

let dataDir: string;
let node: LocalNode;
let rpc: Rpc<SolanaRpcApi>;
let resume: () => void;

async function send(payer: KeyPairSigner, instructions: Instruction[]): Promise<Signature> {
  const lifetime = (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
  const transaction = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );
  return rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
}

const balance = async (address: Address) => (await rpc.getBalance(address, { commitment: 'processed' }).send()).value;
const status = async (signature: Signature) => (await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()).value[0];
const history = async (address: Address) => (await rpc.getSignaturesForAddress(address, { commitment: 'confirmed' }).send()).map((s) => s.signature);
const start = async () => {
  node = await startLocalNode({ port: 0, dataDir });
  resume = node.pauseBlocks();
  rpc = createSolanaRpc(node.url);
};

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-node-fork-'));
  await start();
});

afterAll(async () => {
  resume?.();
  await node?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('undoes and forgets every transaction above the finalized slot, keeps what is final, and goes on; a restart shows the same chain', async () => {
  const [payer, kept, created] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  await rpc.requestAirdrop(payer.address, lamports(5_000_000_000n)).send();
  node.advanceSlots(1);
  const finalTransfer = await send(payer, [getTransferSolInstruction({ source: payer, destination: kept.address, amount: lamports(1_000_000_000n) })]);
  node.advanceSlots(FINALITY_DEPTH + 2);
  expect((await status(finalTransfer))?.confirmationStatus).toBe('finalized');
  const [payerBefore, keptBefore] = [await balance(payer.address), await balance(kept.address)];

  // Two transfers confirmed but not finalized: one moves lamports between existing accounts, one creates an account.
  const moved = await send(payer, [getTransferSolInstruction({ source: payer, destination: kept.address, amount: lamports(7_000_000n) })]);
  node.advanceSlots(1);
  const creating = await send(payer, [getTransferSolInstruction({ source: payer, destination: created.address, amount: lamports(2_000_000n) })]);
  node.advanceSlots(2);
  const movedSlot = (await status(moved))!.slot;
  expect((await status(moved))?.confirmationStatus).toBe('confirmed');
  expect(await balance(created.address)).toBe(2_000_000n);
  expect(await history(kept.address)).toContain(moved);

  const dropped = node.dropUnfinalizedBlocks();
  expect(dropped).toEqual([creating, moved]);

  const forgotten = async (keptHistory: Signature[], payerBalance: bigint, keptBalance: bigint) => {
    for (const signature of [moved, creating]) {
      expect(await status(signature)).toBeNull();
      expect(await rpc.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send()).toBeNull();
    }
    expect(await history(kept.address)).toEqual(keptHistory);
    expect(await history(payer.address)).not.toContain(moved);
    expect(await balance(payer.address)).toBe(payerBalance);
    expect(await balance(kept.address)).toBe(keptBalance);
    expect(await rpc.getAccountInfo(created.address, { commitment: 'processed' }).send()).toMatchObject({ value: null });
    const block = await rpc.getBlock(movedSlot, { commitment: 'confirmed', transactionDetails: 'signatures', rewards: false }).send();
    expect(block?.signatures).toEqual([]);
  };
  await forgotten([finalTransfer], payerBefore, keptBefore);
  // What is final stays.
  expect((await status(finalTransfer))?.confirmationStatus).toBe('finalized');

  // The chain goes on: a new transfer lands, and the dropped one may land again like any transaction.
  const after = await send(payer, [getTransferSolInstruction({ source: payer, destination: kept.address, amount: lamports(3_000_000n) })]);
  node.advanceSlots(2);
  expect((await status(after))?.confirmationStatus).toBe('confirmed');
  expect(await balance(kept.address)).toBe(keptBefore + 3_000_000n);
  const payerAfter = await balance(payer.address);
  expect(payerAfter).toBe(payerBefore - 3_000_000n - 5_000n);
  // Nothing left to drop above the new finalized slot but `after`; pre-images of finalized slots are not kept.
  node.advanceSlots(FINALITY_DEPTH + 2);
  expect(node.dropUnfinalizedBlocks()).toEqual([]);

  resume();
  await node.close();
  await start();
  await forgotten([after, finalTransfer], payerAfter, keptBefore + 3_000_000n);
  expect((await status(after))?.confirmationStatus).toBe('finalized');
});

it('offers the hook over JSON-RPC (localNode_dropUnfinalizedBlocks) only to a node started with faultControls', async () => {
  const call = async (url: string) =>
    (await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'localNode_dropUnfinalizedBlocks', params: [] }),
    }).then((r) => r.json())) as { result?: string[]; error?: { code: number } };
  // Off by default: a node is a cluster to its clients, and no cluster offers it.
  expect(await call(node.url)).toMatchObject({ error: { code: -32601 } });

  const controlled = await startLocalNode({ port: 0, faultControls: true });
  try {
    const hold = controlled.pauseBlocks();
    const controlledRpc = createSolanaRpc(controlled.url);
    const payer = await generateKeyPairSigner();
    await controlledRpc.requestAirdrop(payer.address, lamports(1_000_000_000n)).send();
    controlled.advanceSlots(FINALITY_DEPTH + 2);
    const lifetime = (await controlledRpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
    const transfer = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: payer, destination: payer.address, amount: lamports(1n) })], m),
      ),
    );
    const signature = await controlledRpc.sendTransaction(getBase64EncodedWireTransaction(transfer), { encoding: 'base64' }).send();
    controlled.advanceSlots(2);
    expect(await call(controlled.url)).toEqual({ jsonrpc: '2.0', id: 1, result: [signature] });
    expect((await controlledRpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()).value[0]).toBeNull();
    hold();
  } finally {
    await controlled.close();
  }
});
