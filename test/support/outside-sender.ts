/**
 * Transactions from outside the service: built and signed with the kit, paid by a keypair the local
 * node's faucet funded, sent straight to the node, never through the API (deposits the chain
 * follower and reconciliation must find, accounts and tables made outside to be onboarded).
 */
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type BlockhashLifetimeConstraint,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { waitFor } from './wait';

/** A transaction the node confirmed: its signature and slot. */
export interface Sent {
  signature: Signature;
  slot: bigint;
}

export interface OutsideSender {
  /** The faucet-funded keypair that pays for (and by default signs) what is sent. */
  payer: KeyPairSigner;
  /** Sends `instructions` paid and signed by `signer`; answers once confirmed without error. */
  send(instructions: Instruction[], signer?: KeyPairSigner): Promise<Sent>;
  /** A plain system transfer of `amount` lamports from the payer to `to`. */
  deposit(to: string, amount: bigint): Promise<Sent>;
}

/** A new kit keypair holding `funds` lamports from the node's faucet (its airdrop), once confirmed. */
export async function fundedKeypair(rpc: Rpc<SolanaRpcApi>, funds: bigint): Promise<KeyPairSigner> {
  const keypair = await generateKeyPairSigner();
  await rpc.requestAirdrop(keypair.address, lamports(funds)).send();
  await waitFor(async () => (await rpc.getBalance(keypair.address, { commitment: 'confirmed' }).send()).value > 0n);
  return keypair;
}

/** `instructions` as a transaction paid by `feePayer` for `blockhash`, signed by every signer they name. */
export const signedOutside = (instructions: Instruction[], feePayer: KeyPairSigner, blockhash: BlockhashLifetimeConstraint) =>
  signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );

/** Sends a signed transaction straight to the node; answers its signature (not waiting for it to land). */
export async function sendSigned(rpc: Rpc<SolanaRpcApi>, signed: Awaited<ReturnType<typeof signedOutside>>): Promise<Signature> {
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
  return getSignatureFromTransaction(signed);
}

/** An outside sender paying with a new keypair the faucet funded with `funds` lamports. */
export async function fundOutsideSender(rpc: Rpc<SolanaRpcApi>, funds: bigint): Promise<OutsideSender> {
  const payer = await fundedKeypair(rpc, funds);
  const send = async (instructions: Instruction[], signer: KeyPairSigner = payer): Promise<Sent> => {
    const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const signature = await sendSigned(rpc, await signedOutside(instructions, signer, blockhash));
    const status = await waitFor(async () => {
      const s = (await rpc.getSignatureStatuses([signature]).send()).value[0];
      return s && s.confirmationStatus !== 'processed' ? s : null;
    });
    if (status.err)
      throw new Error(`the transaction sent from outside failed: ${JSON.stringify(status.err, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    return { signature, slot: status.slot };
  };
  return {
    payer,
    send,
    deposit: (to, amount) => send([getTransferSolInstruction({ source: payer, destination: address(to), amount })]),
  };
}
