/**
 * jsonParsed Token-2022 extensions from the local node in the cluster's shapes (Agave's
 * account decoder): the default account state by name, optional authorities null when unset,
 * extensions without state carrying no `state` key.
 */
import {
  address,
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
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as token2022 from '@solana-program/token-2022';
import { startLocalNode, type LocalNode } from '../../dev/local-node';
import { waitFor } from '../support/wait';

const ZERO = address('11111111111111111111111111111111');
let node: LocalNode;
let rpc: Rpc<SolanaRpcApi>;
let payer: KeyPairSigner;

async function confirmed(signature: Signature) {
  await waitFor(async () => {
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    return status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized';
  });
  return signature;
}

async function send(instructions: Instruction[]): Promise<void> {
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const transaction = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );
  const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
  expect((await rpc.getSignatureStatuses([await confirmed(signature)]).send()).value[0]?.err).toBeNull();
}

beforeAll(async () => {
  node = await startLocalNode({ port: 0, blockTimeMs: 40 });
  rpc = createSolanaRpc(node.url);
  payer = await generateKeyPairSigner();
  await confirmed(await rpc.requestAirdrop(payer.address, lamports(2_000_000_000n)).send());
});

afterAll(async () => {
  await node?.close();
});

it('shows Token-2022 mint and account extensions as a cluster does', async () => {
  const mint = await generateKeyPairSigner();
  const owner = (await generateKeyPairSigner()).address;
  const tokenProgram = token2022.TOKEN_2022_PROGRAM_ADDRESS;
  const fee = { epoch: 0n, maximumFee: 1_000n, transferFeeBasisPoints: 25 };
  const extensions = [
    token2022.extension('DefaultAccountState', { state: token2022.AccountState.Initialized }),
    token2022.extension('TransferFeeConfig', {
      transferFeeConfigAuthority: payer.address,
      withdrawWithheldAuthority: ZERO,
      withheldAmount: 0n,
      olderTransferFee: fee,
      newerTransferFee: fee,
    }),
    token2022.extension('PermanentDelegate', { delegate: payer.address }),
  ];
  const space = BigInt(token2022.getMintSize(extensions));
  const [ata] = await token2022.findAssociatedTokenPda({ mint: mint.address, owner, tokenProgram });
  await send([
    getCreateAccountInstruction({
      payer,
      newAccount: mint,
      lamports: await rpc.getMinimumBalanceForRentExemption(space).send(),
      space,
      programAddress: tokenProgram,
    }),
    token2022.getInitializeDefaultAccountStateInstruction({ mint: mint.address, state: token2022.AccountState.Initialized }),
    token2022.getInitializeTransferFeeConfigInstruction({
      mint: mint.address,
      transferFeeConfigAuthority: payer.address,
      withdrawWithheldAuthority: null,
      transferFeeBasisPoints: 25,
      maximumFee: 1_000n,
    }),
    token2022.getInitializePermanentDelegateInstruction({ mint: mint.address, delegate: payer.address }),
    token2022.getInitializeMint2Instruction({ mint: mint.address, decimals: 2, mintAuthority: payer.address }),
    await token2022.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner, mint: mint.address, tokenProgram }),
  ]);

  const { value: mintAccount } = await rpc.getAccountInfo(mint.address, { encoding: 'jsonParsed' }).send();
  const mintInfo = (mintAccount!.data as { parsed: { info: { extensions: unknown[] } } }).parsed.info;
  expect(mintInfo.extensions).toEqual([
    { extension: 'defaultAccountState', state: { accountState: 'initialized' } },
    {
      extension: 'transferFeeConfig',
      state: {
        transferFeeConfigAuthority: payer.address,
        withdrawWithheldAuthority: null,
        withheldAmount: 0n,
        olderTransferFee: { epoch: 0n, maximumFee: 1_000n, transferFeeBasisPoints: 25 },
        newerTransferFee: { epoch: 0n, maximumFee: 1_000n, transferFeeBasisPoints: 25 },
      },
    },
    { extension: 'permanentDelegate', state: { delegate: payer.address } },
  ]);

  const { value: tokenAccount } = await rpc.getAccountInfo(ata, { encoding: 'jsonParsed' }).send();
  const accountInfo = (tokenAccount!.data as { parsed: { info: { extensions: unknown[]; state: string } } }).parsed.info;
  expect(accountInfo.state).toBe('initialized');
  // Unit extensions have no `state` key at all.
  expect(accountInfo.extensions).toEqual([{ extension: 'immutableOwner' }, { extension: 'transferFeeAmount', state: { withheldAmount: 0n } }]);
});
