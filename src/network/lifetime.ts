/**
 * The message lifetime port (DESIGN.md): what keeps a signed message from landing forever, and the
 * proof that it never can. Build takes a lifetime for a new message; confirm (and a replayed build)
 * asks whether it is over before anything is built again, so one write never has two live messages.
 * A recent blockhash is the one kind today; a reserved durable nonce plugs in beside it.
 */
import { setTransactionMessageLifetimeUsingBlockhash, type Blockhash, type TransactionMessage, type TransactionMessageWithFeePayer } from '@solana/kit';
import type { MessageLifetime } from '../domain/write';
import type { Commitment, SvmNetwork } from './svm-network';

export type { MessageLifetime };


type Message = TransactionMessage & TransactionMessageWithFeePayer;

export interface Lifetime {
  /** A lifetime for a new message. Fails only on transport faults (retryable). */
  acquire(): Promise<MessageLifetime>;
  /** The message with this lifetime set. Pure. */
  apply<M extends Message>(message: M, lifetime: MessageLifetime): Message;
  /**
   * True only when a message with this lifetime can never land: the chain's finalized block height
   * is past its last valid one. A transport fault throws (retryable); "not proven" is false.
   */
  isOver(lifetime: MessageLifetime): Promise<boolean>;
  /** Gives back what `acquire` held, once the message landed, failed or was replaced (nothing for a blockhash). */
  release(lifetime: MessageLifetime): Promise<void>;
}

/** Recent-blockhash lifetimes on one network; `commitment` is the one the blockhash is read at. */
export function recentBlockhashLifetime(network: SvmNetwork, commitment: Commitment = 'confirmed'): Lifetime {
  return {
    async acquire() {
      const latest = await network.getLatestBlockhash(commitment === 'finalized' ? 'finalized' : 'confirmed');
      return { kind: 'BLOCKHASH', blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight.toString() };
    },
    apply(message, lifetime) {
      return setTransactionMessageLifetimeUsingBlockhash({ blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight) }, message);
    },
    async isOver(lifetime) {
      // At finalized: a block height seen only at `confirmed` can still be rolled back.
      return (await network.getBlockHeight('finalized')) > BigInt(lifetime.lastValidBlockHeight);
    },
    async release() {},
  };
}
