/**
 * The local SVM node through unmodified kit clients: the same calls an app makes against a cluster.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Rpc as SolanaRpc,
  type Signature,
  type SolanaRpcApi,
  type TransactionSigner,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import * as splToken from '@solana-program/token';
import * as token2022 from '@solana-program/token-2022';
import { startLocalNode, type LocalNode } from '../../dev/local-node';
import { decodeBase58 } from '../../dev/local-node/base58';
import { NodeRuntime } from '../../dev/local-node/runtime';

type Rpc = SolanaRpc<SolanaRpcApi>;
type ConfirmationLevel = 'processed' | 'confirmed' | 'finalized';

// Fast blocks keep finalization (32 blocks) quick; the chain logic is the same at 400 ms.
const BLOCK_TIME_MS = 40;
const SOL = 1_000_000_000n;
const LEVELS: ConfirmationLevel[] = ['processed', 'confirmed', 'finalized'];

let dataDir: string;
let node: LocalNode;
let rpc: Rpc;

async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function waitForStatus(client: Rpc, signature: Signature, level: ConfirmationLevel) {
  return waitFor(async () => {
    const [status] = (await client.getSignatureStatuses([signature]).send()).value;
    return status && status.confirmationStatus && LEVELS.indexOf(status.confirmationStatus) >= LEVELS.indexOf(level) ? status : null;
  }, `${signature} to be ${level}`);
}

async function signedTransaction(
  client: Rpc,
  payer: TransactionSigner,
  instructions: Instruction[],
  blockhash?: { blockhash: Blockhash; lastValidBlockHeight: bigint },
) {
  const lifetime = blockhash ?? (await client.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return signTransactionMessageWithSigners(message);
}

async function send(client: Rpc, payer: TransactionSigner, instructions: Instruction[]): Promise<Signature> {
  const transaction = await signedTransaction(client, payer, instructions);
  return client.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
}

async function fundedSigner(client: Rpc, amount = 2n * SOL): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  const signature = await client.requestAirdrop(signer.address, lamports(amount)).send();
  await waitForStatus(client, signature, 'confirmed');
  return signer;
}

async function rawRpc(body: unknown): Promise<string> {
  const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.text();
}

async function preflightFailure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => {
      throw new Error('expected the transaction to be refused');
    },
    (caught: unknown) => caught,
  );
  if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) throw error;
  return error;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-node-test-'));
  node = await startLocalNode({ port: 0, dataDir, blockTimeMs: BLOCK_TIME_MS });
  rpc = createSolanaRpc(node.url);
});

afterAll(async () => {
  await node.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('local SVM node', () => {
  let payer: KeyPairSigner;
  let transferSignature: Signature;
  const recipient = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
  const transferAmount = 12_345_678n;

  test('an airdrop lands as a transaction and funds the account', async () => {
    const signer = await generateKeyPairSigner();
    const signature = await rpc.requestAirdrop(signer.address, lamports(2n * SOL)).send();
    const status = await waitForStatus(rpc, signature, 'processed');
    expect(status.err).toBeNull();
    await waitForStatus(rpc, signature, 'confirmed');
    const { value } = await rpc.getBalance(signer.address).send();
    expect(value).toBe(2n * SOL);
    payer = signer;
  });

  test('a kit-built transfer goes processed → confirmed → finalized', async () => {
    transferSignature = await send(rpc, payer, [getTransferSolInstruction({ source: payer, destination: recipient, amount: lamports(transferAmount) })]);
    const confirmed = await waitForStatus(rpc, transferSignature, 'confirmed');
    expect(confirmed.err).toBeNull();
    expect(confirmed.confirmations).not.toBeNull();
    const finalized = await waitForStatus(rpc, transferSignature, 'finalized');
    expect(finalized.confirmations).toBeNull();
    expect(finalized.slot).toBe(confirmed.slot);
  });

  test('getTransaction reports fee, balances and the transaction itself', async () => {
    const transaction = await rpc.getTransaction(transferSignature, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    expect(transaction).not.toBeNull();
    const { meta } = transaction!;
    expect(transaction!.version).toBe(0);
    expect(typeof transaction!.blockTime).toBe('bigint');
    expect(meta!.err).toBeNull();
    expect(meta!.fee).toBe(5000n);
    expect(meta!.preBalances.slice(0, 2)).toEqual([2n * SOL, 0n]);
    expect(meta!.postBalances.slice(0, 2)).toEqual([2n * SOL - 5000n - transferAmount, transferAmount]);
    expect(meta!.logMessages).toContain('Program 11111111111111111111111111111111 success');
    expect(meta!.computeUnitsConsumed).toBeGreaterThan(0n);
    expect(transaction!.transaction.signatures).toEqual([transferSignature]);
    expect(transaction!.transaction.message.accountKeys.slice(0, 2)).toEqual([payer.address, recipient]);

    const encoded = await rpc.getTransaction(transferSignature, { maxSupportedTransactionVersion: 0, encoding: 'base64' }).send();
    expect(encoded!.transaction[1]).toBe('base64');
    const unknown = await rpc
      .getTransaction('1111111111111111111111111111111111111111111111111111111111111111' as Signature, { maxSupportedTransactionVersion: 0, encoding: 'json' })
      .send();
    expect(unknown).toBeNull();
  });

  test('a failing transaction is refused by preflight with the program error, and charges nothing', async () => {
    const before = (await rpc.getBalance(payer.address, { commitment: 'processed' }).send()).value;
    const error = await preflightFailure(
      send(rpc, payer, [getTransferSolInstruction({ source: payer, destination: recipient, amount: lamports(100n * SOL) })]),
    );
    expect(isSolanaError(error.cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)).toBe(true);
    expect((error.cause as { context: { code: number } }).context.code).toBe(1);
    expect(error.context.logs?.some((line: string) => line.includes('insufficient lamports'))).toBe(true);
    const after = (await rpc.getBalance(payer.address, { commitment: 'processed' }).send()).value;
    expect(after).toBe(before);
  });

  test('a transaction already processed is refused as AlreadyProcessed', async () => {
    const transaction = await signedTransaction(rpc, payer, [getTransferSolInstruction({ source: payer, destination: recipient, amount: lamports(1n) })]);
    const wire = getBase64EncodedWireTransaction(transaction);
    const signature = await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    expect(signature).toBe(getSignatureFromTransaction(transaction));
    const error = await preflightFailure(rpc.sendTransaction(wire, { encoding: 'base64' }).send());
    expect(isSolanaError(error.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)).toBe(true);
  });

  test('an unknown blockhash is refused as BlockhashNotFound', async () => {
    const bogus = { blockhash: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' as Blockhash, lastValidBlockHeight: 10_000n };
    const transaction = await signedTransaction(
      rpc,
      payer,
      [getTransferSolInstruction({ source: payer, destination: recipient, amount: lamports(1n) })],
      bogus,
    );
    const error = await preflightFailure(rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send());
    expect(isSolanaError(error.cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);
    expect((await rpc.isBlockhashValid(bogus.blockhash, { commitment: 'processed' }).send()).value).toBe(false);
  });

  test('an expired blockhash is refused, and never lands even without preflight', async () => {
    // A separate node with very short blocks lets 150 blocks pass quickly.
    const fastNode = await startLocalNode({ blockTimeMs: 2 });
    try {
      const fastRpc = createSolanaRpc(fastNode.url);
      const signer = await fundedSigner(fastRpc);
      const lifetime = (await fastRpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
      const transaction = await signedTransaction(
        fastRpc,
        signer,
        [getTransferSolInstruction({ source: signer, destination: recipient, amount: lamports(1n) })],
        lifetime,
      );
      await waitFor(async () => (await fastRpc.getBlockHeight({ commitment: 'processed' }).send()) > lifetime.lastValidBlockHeight, 'the blockhash to expire');
      expect((await fastRpc.isBlockhashValid(lifetime.blockhash, { commitment: 'processed' }).send()).value).toBe(false);
      const wire = getBase64EncodedWireTransaction(transaction);
      const error = await preflightFailure(fastRpc.sendTransaction(wire, { encoding: 'base64' }).send());
      expect(isSolanaError(error.cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);
      const signature = await fastRpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: true }).send();
      expect((await fastRpc.getSignatureStatuses([signature]).send()).value).toEqual([null]);
    } finally {
      await fastNode.close();
    }
  });

  test.each([
    ['Token-2022', token2022.TOKEN_2022_PROGRAM_ADDRESS],
    ['SPL Token', splToken.TOKEN_PROGRAM_ADDRESS],
  ])('a %s mint and token account read back through kit', async (_name, tokenProgram: Address) => {
    const mint = await generateKeyPairSigner();
    const owner = await generateKeyPairSigner();
    const mintSpace = 82n;
    const rent = await rpc.getMinimumBalanceForRentExemption(mintSpace).send();
    const [ata] = await token2022.findAssociatedTokenPda({ mint: mint.address, owner: owner.address, tokenProgram });
    const signature = await send(rpc, payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: mintSpace, programAddress: tokenProgram }),
      token2022.getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address }, { programAddress: tokenProgram }),
      await token2022.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: owner.address, mint: mint.address, tokenProgram }),
      token2022.getMintToInstruction({ mint: mint.address, token: ata, mintAuthority: payer, amount: 1_500_000n }, { programAddress: tokenProgram }),
    ]);
    await waitForStatus(rpc, signature, 'confirmed');

    const decoded = await token2022.fetchMint(rpc, mint.address);
    expect(decoded.programAddress).toBe(tokenProgram);
    expect(decoded.data.decimals).toBe(6);
    expect(decoded.data.supply).toBe(1_500_000n);

    const { value: balance } = await rpc.getTokenAccountBalance(ata).send();
    expect(balance).toEqual({ amount: '1500000', decimals: 6, uiAmount: 1.5, uiAmountString: '1.5' });

    const transaction = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed', encoding: 'json' }).send();
    expect(transaction!.meta!.preTokenBalances).toEqual([]);
    expect(transaction!.meta!.postTokenBalances).toEqual([
      expect.objectContaining({
        mint: mint.address,
        owner: owner.address,
        programId: tokenProgram,
        uiTokenAmount: expect.objectContaining({ amount: '1500000' }),
      }),
    ]);
  });

  test('raw JSON-RPC: batches, error codes and full-width u64', async () => {
    const replies = JSON.parse(
      await rawRpc([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', id: 2, method: 'noSuchMethod', params: [] },
        { jsonrpc: '2.0', id: 3, method: 'getBalance', params: ['not-an-address'] },
        { jsonrpc: '2.0', id: 4, method: 'getSlot', params: [{ commitment: 'processed' }] },
      ]),
    );
    expect(replies.map((reply: { id: number }) => reply.id)).toEqual([1, 2, 3, 4]);
    expect(replies[0].result).toBe('ok');
    expect(replies[1].error.code).toBe(-32601);
    expect(replies[2].error.code).toBe(-32602);
    expect(typeof replies[3].result).toBe('number');

    const account = await rawRpc({ jsonrpc: '2.0', id: 5, method: 'getAccountInfo', params: [payer.address, { encoding: 'base64' }] });
    expect(account).toContain('"rentEpoch":18446744073709551615');
  });

  test('state survives close() and a restart on the same data directory', async () => {
    const balanceBefore = (await rpc.getBalance(payer.address, { commitment: 'processed' }).send()).value;
    await waitFor(async () => (await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value === balanceBefore, 'state to settle');
    const slotBefore = await rpc.getSlot({ commitment: 'processed' }).send();
    await node.close();

    node = await startLocalNode({ port: 0, dataDir, blockTimeMs: BLOCK_TIME_MS });
    rpc = createSolanaRpc(node.url);
    expect(await rpc.getSlot({ commitment: 'processed' }).send()).toBeGreaterThanOrEqual(slotBefore);
    expect((await rpc.getBalance(payer.address).send()).value).toBe(balanceBefore);
    const [status] = (await rpc.getSignatureStatuses([transferSignature], { searchTransactionHistory: true }).send()).value;
    expect(status).toEqual(expect.objectContaining({ err: null, confirmationStatus: 'finalized' }));
    const transaction = await rpc.getTransaction(transferSignature, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    expect(transaction!.meta!.fee).toBe(5000n);

    // The restarted chain keeps producing blocks that accept new transactions.
    const signature = await send(rpc, payer, [getTransferSolInstruction({ source: payer, destination: recipient, amount: lamports(1n) })]);
    await waitForStatus(rpc, signature, 'confirmed');
  });
});

describe('local SVM node storage over a long run', () => {
  test('compacts the account journal and reads evicted transaction records back from its log', () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'local-node-storage-'));
    const tuning = { journalCompactionMinBytes: 4_000, recordsInMemory: 5 };
    try {
      const runtime = NodeRuntime.open({ dataDir: directory, log: () => {}, tuning });
      const recipient = decodeBase58('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')!;
      const signatures: string[] = [];
      // Each block journals the faucet and the recipient again, so the journal outgrows the threshold.
      for (let round = 0; round < 40; round++) {
        const outcome = runtime.airdrop(recipient, 1_000_000n + BigInt(round));
        expect(outcome.status).toBe('landed');
        signatures.push(outcome.signature);
        runtime.tick();
      }
      const balance = runtime.svm.getBalance(recipient);
      runtime.close();
      expect(fs.readdirSync(directory).filter((name) => name.endsWith('.journal'))).not.toContain('accounts-0.journal');

      const restored = NodeRuntime.open({ dataDir: directory, log: () => {}, tuning });
      expect(restored.svm.getBalance(recipient)).toBe(balance);
      expect(restored.store.count).toBe(signatures.length);
      const oldest = restored.store.get(signatures[0]);
      expect(oldest?.fee).toBe(5000n);
      expect(oldest?.postBalances[1]).toBe(1_000_000n);
      restored.close();
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
