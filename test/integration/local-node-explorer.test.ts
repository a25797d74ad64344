/**
 * What explorers and wallets ask of a node, through an unmodified kit client: an account's
 * transactions (getSignaturesForAddress, with memos and paging), blocks (getBlock), program
 * accounts with filters, and jsonParsed token accounts and mints, before and after a restart.
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
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Rpc,
  type SolanaRpcApi,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getAddMemoInstruction } from '@solana-program/memo';
import * as token2022 from '@solana-program/token-2022';
import { startLocalNode, type LocalNode } from '../../dev/local-node';
import { waitFor } from '../support/wait';

let dataDir: string;
let node: LocalNode;
let rpc: Rpc<SolanaRpcApi>;
let payer: KeyPairSigner;
const owner = generateKeyPairSigner();
const mint = generateKeyPairSigner();
let ata: Address;
let mintSignature: Signature;
const MEMO = 'invoice 42';
/** The memo program the local node (LiteSVM) carries, as the service uses it. */
const memo = (text: string, signers: KeyPairSigner[] = []) =>
  getAddMemoInstruction({ memo: text, signers }, { programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr') });

async function confirmed(signature: Signature) {
  await waitFor(async () => {
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    return status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized';
  });
  return signature;
}

async function send(instructions: Instruction[]): Promise<Signature> {
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const transaction = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );
  return confirmed(await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send());
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-node-explorer-'));
  node = await startLocalNode({ port: 0, dataDir, blockTimeMs: 40 });
  rpc = createSolanaRpc(node.url);
  payer = await generateKeyPairSigner();
  await confirmed(await rpc.requestAirdrop(payer.address, lamports(2_000_000_000n)).send());
  // A Token-2022 mint with one extension (a close authority), an associated account and a minted balance with a memo.
  const tokenProgram = token2022.TOKEN_2022_PROGRAM_ADDRESS;
  const [mintSigner, ownerSigner] = [await mint, await owner];
  const extensions = [token2022.extension('MintCloseAuthority', { closeAuthority: payer.address })];
  const space = BigInt(token2022.getMintSize(extensions));
  [ata] = await token2022.findAssociatedTokenPda({ mint: mintSigner.address, owner: ownerSigner.address, tokenProgram });
  mintSignature = await send([
    getCreateAccountInstruction({
      payer,
      newAccount: mintSigner,
      lamports: await rpc.getMinimumBalanceForRentExemption(space).send(),
      space,
      programAddress: tokenProgram,
    }),
    token2022.getInitializeMintCloseAuthorityInstruction({ mint: mintSigner.address, closeAuthority: payer.address }),
    token2022.getInitializeMint2Instruction({ mint: mintSigner.address, decimals: 6, mintAuthority: payer.address }),
    await token2022.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: ownerSigner.address, mint: mintSigner.address, tokenProgram }),
    token2022.getMintToInstruction({ mint: mintSigner.address, token: ata, mintAuthority: payer, amount: 1_500_000n }),
    memo(MEMO),
  ]);
});

afterAll(async () => {
  await node?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it("lists an account's transactions newest first, with memo, slot, block time and status, and pages with before/until", async () => {
  const second = await send([memo('second', [payer])]);
  const listed = await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed' }).send();
  // The airdrop, the mint, the memo: newest first.
  expect(listed).toHaveLength(3);
  expect(listed.slice(0, 2).map((entry) => entry.signature)).toEqual([second, mintSignature]);
  expect(listed[1]).toMatchObject({ err: null, memo: `[${MEMO.length}] ${MEMO}` });
  expect(['confirmed', 'finalized']).toContain(listed[1].confirmationStatus);
  const { value: landed } = await rpc.getSignatureStatuses([mintSignature]).send();
  expect(listed[1].slot).toBe(landed[0]!.slot);
  expect(Number(listed[1].blockTime)).toBeGreaterThan(1_700_000_000);

  expect((await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed', limit: 1 }).send()).map((e) => e.signature)).toEqual([second]);
  expect((await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed', before: second, limit: 1 }).send()).map((e) => e.signature)).toEqual([
    mintSignature,
  ]);
  expect((await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed', until: mintSignature }).send()).map((e) => e.signature)).toEqual([
    second,
  ]);
  // Accounts the transaction only wrote to list it too; an untouched one lists nothing.
  expect((await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed' }).send()).map((e) => e.signature)).toEqual([mintSignature]);
  expect(await rpc.getSignaturesForAddress((await generateKeyPairSigner()).address, { commitment: 'confirmed' }).send()).toEqual([]);
});

it('serves a block with its transactions, signatures only, and refuses blocks not yet confirmed', async () => {
  const {
    value: [status],
  } = await rpc.getSignatureStatuses([mintSignature]).send();
  const slot = status!.slot;
  const block = await rpc.getBlock(slot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, rewards: false }).send();
  expect(block!.transactions.map((t) => t.transaction.signatures[0])).toContain(mintSignature);
  const ours = block!.transactions.find((t) => t.transaction.signatures[0] === mintSignature)!;
  expect(ours.meta!.err).toBeNull();
  expect(ours.meta!.fee).toBe(10_000n);
  expect(block!.parentSlot).toBe(slot - 1n);
  const { value: known } = await rpc.isBlockhashValid(block!.blockhash, { commitment: 'confirmed' }).send();
  expect(known).toBe(true);
  const signaturesOnly = await rpc.getBlock(slot, { commitment: 'confirmed', transactionDetails: 'signatures', rewards: false }).send();
  expect(signaturesOnly!.signatures).toContain(mintSignature);

  const future = (await rpc.getSlot({ commitment: 'processed' }).send()) + 1_000n;
  const error = await rpc
    .getBlock(future, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 })
    .send()
    .catch((e: unknown) => e);
  expect(isSolanaError(error)).toBe(true);
  expect((error as Error).message).toMatch(/not available/i);
});

it('reads token accounts and mints as jsonParsed, and finds them by program with filters and by owner', async () => {
  const [mintAddress, ownerAddress] = [(await mint).address, (await owner).address];
  const { value: account } = await rpc.getAccountInfo(ata, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
  expect(account!.data).toMatchObject({
    program: 'spl-token-2022',
    parsed: {
      type: 'account',
      info: {
        mint: mintAddress,
        owner: ownerAddress,
        state: 'initialized',
        isNative: false,
        tokenAmount: { amount: '1500000', decimals: 6, uiAmountString: '1.5' },
      },
    },
  });
  const { value: mintAccount } = await rpc.getAccountInfo(mintAddress, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
  expect(mintAccount!.data).toMatchObject({
    program: 'spl-token-2022',
    parsed: {
      type: 'mint',
      info: {
        supply: '1500000',
        decimals: 6,
        isInitialized: true,
        mintAuthority: payer.address,
        freezeAuthority: null,
        extensions: [{ extension: 'mintCloseAuthority', state: { closeAuthority: payer.address } }],
      },
    },
  });
  // A plain wallet has no parser: base64, as on a cluster.
  const { value: wallet } = await rpc.getAccountInfo(payer.address, { encoding: 'jsonParsed' }).send();
  expect(wallet!.data).toEqual(['', 'base64']);

  const byMint = await rpc
    .getProgramAccounts(token2022.TOKEN_2022_PROGRAM_ADDRESS, {
      encoding: 'base64',
      filters: [{ memcmp: { offset: 0n, bytes: mintAddress as string as never, encoding: 'base58' } }, { dataSize: 170n }],
    })
    .send();
  expect(byMint.map((entry) => entry.pubkey)).toEqual([ata]);
  expect(await rpc.getProgramAccounts(token2022.TOKEN_2022_PROGRAM_ADDRESS, { encoding: 'base64', filters: [{ dataSize: 1n }] }).send()).toEqual([]);

  const { value: owned } = await rpc.getTokenAccountsByOwner(ownerAddress, { mint: mintAddress }, { encoding: 'jsonParsed' }).send();
  expect(owned.map((entry) => [entry.pubkey, entry.account.data.parsed.info.tokenAmount.amount])).toEqual([[ata, '1500000']]);
  const { value: none } = await rpc
    .getTokenAccountsByOwner(payer.address, { programId: token2022.TOKEN_2022_PROGRAM_ADDRESS }, { encoding: 'jsonParsed' })
    .send();
  expect(none).toEqual([]);
});

it("keeps an account's history across a restart (rebuilt from the transaction log)", async () => {
  const before = (await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed' }).send()).map((e) => e.signature);
  await node.close();
  node = await startLocalNode({ port: 0, dataDir, blockTimeMs: 40 });
  rpc = createSolanaRpc(node.url);
  expect((await rpc.getSignaturesForAddress(ata, { commitment: 'confirmed' }).send()).map((e) => e.signature)).toEqual(before);
  expect(
    (await rpc.getProgramAccounts(token2022.TOKEN_2022_PROGRAM_ADDRESS, { encoding: 'base64', filters: [{ dataSize: 170n }] }).send()).map((e) => e.pubkey),
  ).toEqual([ata]);
});
