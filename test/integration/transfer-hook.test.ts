/**
 * Transfers of a Token-2022 mint with the TransferHook extension, for real: the local node runs
 * a hook program (test/fixtures/programs/noop.so, loaded the way LOCAL_NODE_PROGRAMS does), and
 * the extra accounts come from resolveTransferHookAccounts over the service's JSON-RPC network.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  getProgramDerivedAddress,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__INSTRUCTION_ERROR__MISSING_ACCOUNT,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as token2022 from '@solana-program/token-2022';
import { programsFromSpec, startLocalNode, type LocalNode } from '../../dev/local-node';
import { createJsonRpcNetwork } from '../../src/network/json-rpc-network';
import type { SvmNetwork } from '../../src/network/svm-network';
import {
  EXECUTE_DISCRIMINATOR,
  resolveTransferHookAccounts,
  toAccountMetas,
  transferHookValidationAddress,
  type TransferHookAccountMeta,
} from '../../src/network/transfer-hook';
import { returnCodeProgramElf } from '../support/sbpf-program';

const BLOCK_TIME_MS = 40;
const DECIMALS = 2;
const REFUSAL_CODE = 0x7e57;
const ACCOUNT_RESOLUTION_INCORRECT_ACCOUNT = 0xa261c2c0; // spl-tlv-account-resolution's IncorrectAccount

let dataDir: string;
let node: LocalNode;
let rpc: Rpc<SolanaRpcApi>;
let network: SvmNetwork;
let payer: KeyPairSigner;
let hook: Address;
let refusingHook: Address;

async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const confirmed = (signature: Signature) =>
  waitFor(async () => {
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    if (status?.err) throw new Error(`${signature} failed: ${JSON.stringify(status.err)}`);
    return status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized' ? status : null;
  }, `${signature} to be confirmed`);

async function send(instructions: Instruction[]): Promise<Signature> {
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  return rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
}

async function refusal(instructions: Instruction[]) {
  const error = await send(instructions).then(
    () => {
      throw new Error('expected the transaction to be refused');
    },
    (caught: unknown) => caught,
  );
  if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) throw error;
  return error;
}

const balance = async (tokenAccount: Address) => BigInt((await rpc.getTokenAccountBalance(tokenAccount, { commitment: 'confirmed' }).send()).value.amount);

/** A mint whose TransferHook points at `program`, an owner holding 10,000 units and a recipient with an empty account. */
async function hookedMint(program: Address) {
  const mint = await generateKeyPairSigner();
  const owner = await generateKeyPairSigner();
  const recipient = (await generateKeyPairSigner()).address;
  const extensions = [token2022.extension('TransferHook', { authority: payer.address, programId: program })];
  const size = token2022.getMintSize(extensions);
  const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(size)).send();
  await confirmed(
    await send([
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: size, programAddress: token2022.TOKEN_2022_PROGRAM_ADDRESS }),
      token2022.getInitializeTransferHookInstruction({ mint: mint.address, authority: payer.address, programId: program }),
      token2022.getInitializeMintInstruction({ mint: mint.address, decimals: DECIMALS, mintAuthority: payer.address }),
    ]),
  );
  const [source] = await token2022.findAssociatedTokenPda({ owner: owner.address, mint: mint.address, tokenProgram: token2022.TOKEN_2022_PROGRAM_ADDRESS });
  const [destination] = await token2022.findAssociatedTokenPda({ owner: recipient, mint: mint.address, tokenProgram: token2022.TOKEN_2022_PROGRAM_ADDRESS });
  await confirmed(
    await send([
      await token2022.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: owner.address, mint: mint.address }),
      await token2022.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: recipient, mint: mint.address }),
      token2022.getMintToCheckedInstruction({ mint: mint.address, token: source, mintAuthority: payer, amount: 10_000n, decimals: DECIMALS }),
    ]),
  );
  const transferChecked = (amount: bigint, extraAccounts: TransferHookAccountMeta[]): Instruction => {
    const transfer = token2022.getTransferCheckedInstruction({ source, mint: mint.address, destination, authority: owner, amount, decimals: DECIMALS });
    return { ...transfer, accounts: [...transfer.accounts, ...toAccountMetas(extraAccounts)] };
  };
  const resolve = (amount: bigint) =>
    resolveTransferHookAccounts(network, { hookProgram: program, mint: mint.address, source, destination, authority: owner.address, amount });
  return { mint: mint.address, source, destination, transferChecked, resolve };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'transfer-hook-test-'));
  hook = (await generateKeyPairSigner()).address;
  refusingHook = (await generateKeyPairSigner()).address;
  const fixture = path.join(__dirname, '../fixtures/programs/noop.so');
  node = await startLocalNode({
    port: 0,
    dataDir,
    blockTimeMs: BLOCK_TIME_MS,
    programs: [...programsFromSpec(`${hook}=${path.relative(process.cwd(), fixture)}`), { programId: refusingHook, elf: returnCodeProgramElf(REFUSAL_CODE) }],
  });
  rpc = createSolanaRpc(node.url);
  network = createJsonRpcNetwork('LOCAL', node.url);
  payer = await generateKeyPairSigner();
  await confirmed(await rpc.requestAirdrop(payer.address, lamports(10_000_000_000n)).send());
});

afterAll(async () => {
  await node?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('transfer hook instruments on the local node', () => {
  test('the fixture is the generated no-op program, and the node deploys it as an executable program', async () => {
    expect(new Uint8Array(fs.readFileSync(path.join(__dirname, '../fixtures/programs/noop.so')))).toEqual(returnCodeProgramElf(0));
    const { value } = await rpc.getAccountInfo(hook, { encoding: 'base64' }).send();
    expect(value?.executable).toBe(true);
  });

  test('without a validation account: refused without the hook program, lands with it, and the hook runs', async () => {
    const { source, destination, transferChecked, resolve } = await hookedMint(hook);
    const missing = await refusal([transferChecked(100n, [])]);
    expect(isSolanaError(missing.cause, SOLANA_ERROR__INSTRUCTION_ERROR__MISSING_ACCOUNT)).toBe(true);

    const accounts = await resolve(100n);
    expect(accounts).toEqual([{ address: hook, role: 'readonly' }]);
    const signature = await send([transferChecked(100n, accounts)]);
    await confirmed(signature);
    expect(await balance(source)).toBe(9_900n);
    expect(await balance(destination)).toBe(100n);
    const landed = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed', encoding: 'json' }).send();
    expect(landed?.meta?.logMessages).toContain(`Program ${hook} invoke [2]`);
  });

  test('with a validation account listing extras: they are resolved over JSON-RPC and the transfer lands; leaving them out is refused', async () => {
    const { mint, source, destination, transferChecked, resolve } = await hookedMint(hook);
    const validation = await transferHookValidationAddress(hook, mint);
    const fixed = (await generateKeyPairSigner()).address;
    const extras: token2022.ExtraAccountMeta[] = [
      { config: { __kind: 'Literal', address: fixed }, isSigner: false, isWritable: false },
      // ["counter", destination] of the hook program, writable.
      {
        config: {
          __kind: 'ProgramPda',
          seeds: [
            { __kind: 'Literal', bytes: new TextEncoder().encode('counter') },
            { __kind: 'AccountKey', index: 2 },
          ],
        },
        isSigner: false,
        isWritable: true,
      },
    ];
    // The encoder leaves the TLV header (discriminator, length) to the caller.
    const data = new Uint8Array(token2022.getExtraAccountMetasEncoder().encode(extras));
    data.set(EXECUTE_DISCRIMINATOR, 0);
    new DataView(data.buffer).setUint32(8, data.length - 12, true);
    node.setAccount({ address: validation, owner: hook, data });

    const accounts = await resolve(250n);
    const [counter] = await getProgramDerivedAddress({ programAddress: hook, seeds: ['counter', getAddressEncoder().encode(destination)] });
    expect(accounts).toEqual([
      { address: fixed, role: 'readonly' },
      { address: counter, role: 'writable' },
      { address: hook, role: 'readonly' },
      { address: validation, role: 'readonly' },
    ]);

    const incomplete = await refusal([transferChecked(250n, accounts.slice(2))]);
    expect(isSolanaError(incomplete.cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)).toBe(true);
    expect((incomplete.cause as { context: { code: number } }).context.code).toBe(ACCOUNT_RESOLUTION_INCORRECT_ACCOUNT);

    await confirmed(await send([transferChecked(250n, accounts)]));
    expect(await balance(source)).toBe(9_750n);
    expect(await balance(destination)).toBe(250n);
  });

  test('after a restart the programs are deployed again and a written validation account is still there', async () => {
    const { mint, source, transferChecked, resolve } = await hookedMint(hook);
    const validation = await transferHookValidationAddress(hook, mint);
    const data = new Uint8Array(12 + 4);
    data.set(EXECUTE_DISCRIMINATOR, 0);
    new DataView(data.buffer).setUint32(8, 4, true); // an empty list
    node.setAccount({ address: validation, owner: hook, data });
    // Same port, so the clients made in beforeAll keep working.
    const port = node.port;
    await node.close();
    node = await startLocalNode({
      port,
      dataDir,
      blockTimeMs: BLOCK_TIME_MS,
      programs: [
        { programId: hook, elf: returnCodeProgramElf(0) },
        { programId: refusingHook, elf: returnCodeProgramElf(REFUSAL_CODE) },
      ],
    });
    const accounts = await resolve(5n);
    expect(accounts).toEqual([
      { address: hook, role: 'readonly' },
      { address: validation, role: 'readonly' },
    ]);
    await confirmed(await send([transferChecked(5n, accounts)]));
    expect(await balance(source)).toBe(9_995n);
  });

  test("a hook that refuses fails the transfer with the hook's own code", async () => {
    const { source, transferChecked, resolve } = await hookedMint(refusingHook);
    const refused = await refusal([transferChecked(1n, await resolve(1n))]);
    expect(isSolanaError(refused.cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)).toBe(true);
    expect((refused.cause as { context: { code: number } }).context.code).toBe(REFUSAL_CODE);
    expect(await balance(source)).toBe(10_000n);
  });
});
