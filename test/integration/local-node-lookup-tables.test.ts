/**
 * Address lookup tables on the local node, as on a validator: create and extend, a v0 transaction
 * loading a table's addresses (refused in the slot they were appended, accepted from the next),
 * deactivate, and close only after the deactivation left SlotHashes. Blocks are closed by the test
 * (advanceSlots), so every slot boundary is deliberate.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  fetchMaybeAddressLookupTable,
  findAddressLookupTablePda,
  getCloseLookupTableInstruction,
  getCreateLookupTableInstruction,
  getDeactivateLookupTableInstruction,
  getExtendLookupTableInstruction,
} from '@solana-program/address-lookup-table';
import { startLocalNode, type LocalNode } from '../../dev/local-node';

let dataDir: string;
let node: LocalNode;
let rpc: Rpc<SolanaRpcApi>;
let payer: KeyPairSigner;

async function send(instructions: Instruction[], tables: Record<Address, Address[]> = {}) {
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => compressTransactionMessageUsingAddressLookupTables(m, tables),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
}

async function refused(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => new Error('expected the transaction to be refused'),
    (caught: unknown) => caught,
  );
  if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) throw error;
  return `${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}`;
}

const balance = async (of: Address) => (await rpc.getBalance(of, { commitment: 'processed' }).send()).value;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-node-alt-'));
  // Blocks only when the test closes them.
  node = await startLocalNode({ port: 0, dataDir, blockTimeMs: 3_600_000 });
  rpc = createSolanaRpc(node.url);
  payer = await generateKeyPairSigner();
  await rpc.requestAirdrop(payer.address, lamports(10_000_000_000n)).send();
  node.advanceSlots(3);
});

afterAll(async () => {
  await node?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a table is created, extended, used from the next slot, deactivated, and closed only after the cool-down', async () => {
  const recentSlot = await rpc.getSlot({ commitment: 'confirmed' }).send();
  const pda = await findAddressLookupTablePda({ authority: payer.address, recentSlot });
  const [table] = pda;
  const recipients = await Promise.all(Array.from({ length: 3 }, async () => (await generateKeyPairSigner()).address));
  await send([
    getCreateLookupTableInstruction({ address: pda, authority: payer.address, payer, recentSlot }),
    getExtendLookupTableInstruction({ address: table, authority: payer, payer, addresses: recipients }),
  ]);
  const created = await fetchMaybeAddressLookupTable(rpc, table, { commitment: 'processed' });
  expect(created.exists && created.data.addresses).toEqual(recipients);

  // In the slot the addresses were appended, the network does not resolve them yet.
  const pay = (to: Address, amount: bigint) => getTransferSolInstruction({ source: payer, destination: to, amount });
  const lookups = { [table]: recipients };
  expect(await refused(send([pay(recipients[0], 1_000_000n)], lookups))).toMatch(/address table lookup uses an invalid index/);
  node.advanceSlots(1);
  await send([pay(recipients[0], 1_000_000n), pay(recipients[1], 2_000_000n)], lookups);
  expect(await balance(recipients[0])).toBe(1_000_000n);
  expect(await balance(recipients[1])).toBe(2_000_000n);

  await send([getDeactivateLookupTableInstruction({ address: table, authority: payer })]);
  node.advanceSlots(1);
  const rent = await balance(table);
  const refund = (await generateKeyPairSigner()).address;
  const close = () => send([getCloseLookupTableInstruction({ address: table, authority: payer, recipient: refund })]);
  await refused(close());
  node.advanceSlots(500);
  await refused(close());
  node.advanceSlots(20);
  await close();
  expect((await fetchMaybeAddressLookupTable(rpc, table, { commitment: 'processed' })).exists).toBe(false);
  expect(await balance(refund)).toBe(rent);
});
