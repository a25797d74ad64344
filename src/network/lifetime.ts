/**
 * The message lifetime port (docs/write-engine.md): what keeps a signed message from landing forever, and the
 * proof that it never can. Build takes a lifetime for a new message; confirm (and a replayed build)
 * asks whether it is over before anything is built again, so one write never has two live messages.
 * Two kinds: a recent blockhash, and a reserved durable nonce (advance-nonce first in the message).
 */
import {
  address,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Blockhash,
  type Nonce,
  type TransactionMessage,
  type TransactionMessageWithFeePayer,
} from '@solana/kit';
import { getNonceDecoder, getNonceSize, NonceState } from '@solana-program/system';
import { nonceLifetimeOver } from '../domain/durable-nonce';
import type { MessageLifetime } from '../domain/write';
import type { Commitment, SvmNetwork } from './svm-network';

export type { MessageLifetime };

type Message = TransactionMessage & TransactionMessageWithFeePayer;

export interface Lifetime {
  /** A lifetime for a new message of the transaction record `transactionId`. Fails on transport faults (retryable) or with a refusal (no nonce free). */
  acquire(transactionId: string): Promise<MessageLifetime>;
  /** The message with this lifetime set. Pure. */
  apply<M extends Message>(message: M, lifetime: MessageLifetime): Message;
  /**
   * True only when a message with this lifetime can never land (a blockhash: the chain's finalized
   * block height is past its last valid one; a nonce: the account's nonce is no longer the
   * message's). A transport fault throws (retryable); "not proven" is false.
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
      if (lifetime.kind !== 'BLOCKHASH') throw new Error(`a ${lifetime.kind} lifetime given to the recent-blockhash lifetime`);
      return setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight) },
        message,
      );
    },
    async isOver(lifetime) {
      if (lifetime.kind !== 'BLOCKHASH') return false;
      // At finalized: a block height seen only at `confirmed` can still be rolled back.
      return (await network.getBlockHeight('finalized')) > BigInt(lifetime.lastValidBlockHeight);
    },
    async release() {},
  };
}

/** The nonce accounts a durable-nonce lifetime reserves from (the database, in the pipeline). */
export interface NonceReservations {
  /** The nonce account and authority `transactionId` holds, reserving a free one if it holds none. Refuses (CONFLICT) when none is free. Idempotent. */
  reserve(transactionId: string): Promise<{ nonceAccount: string; nonceAuthority: string }>;
  /** Gives back what `transactionId` holds. Idempotent. */
  release(transactionId: string): Promise<void>;
  /** Keeps the nonce value read from the chain beside the account's record. */
  noted(nonceAccount: string, nonceHash: string): Promise<void>;
}

/** The nonce value a nonce account holds now, or null when it is no initialized nonce account. Transport faults throw. */
export async function readNonce(network: SvmNetwork, nonceAccount: string): Promise<{ nonce: string; authority: string } | null> {
  const account = await network.getAccount(nonceAccount);
  if (!account || account.data.length !== getNonceSize()) return null;
  const decoded = getNonceDecoder().decode(account.data);
  return decoded.state === NonceState.Initialized ? { nonce: decoded.blockhash, authority: decoded.authority } : null;
}

/** Durable-nonce lifetimes: a reserved nonce account of the organization, its current value read from the chain. */
export function durableNonceLifetime(network: SvmNetwork, reservations: NonceReservations): Lifetime {
  return {
    async acquire(transactionId) {
      const { nonceAccount, nonceAuthority } = await reservations.reserve(transactionId);
      // Read afresh at every reservation: the last transaction that used it advanced it.
      const current = await readNonce(network, nonceAccount);
      if (!current) throw new Error(`durable nonce account ${nonceAccount} holds no initialized nonce on the network`);
      await reservations.noted(nonceAccount, current.nonce);
      return { kind: 'DURABLE_NONCE', nonceAccount, nonceAuthority, nonce: current.nonce, reservedBy: transactionId };
    },
    apply(message, lifetime) {
      if (lifetime.kind !== 'DURABLE_NONCE') throw new Error(`a ${lifetime.kind} lifetime given to the durable-nonce lifetime`);
      // Puts AdvanceNonceAccount first and the nonce in place of the blockhash.
      return setTransactionMessageLifetimeUsingDurableNonce(
        { nonce: lifetime.nonce as Nonce, nonceAccountAddress: address(lifetime.nonceAccount), nonceAuthorityAddress: address(lifetime.nonceAuthority) },
        message,
      );
    },
    async isOver(lifetime) {
      // A blockhash lifetime of the same write (built before): the blockhash rule decides.
      if (lifetime.kind !== 'DURABLE_NONCE') return recentBlockhashLifetime(network).isOver(lifetime);
      const current = await readNonce(network, lifetime.nonceAccount);
      return nonceLifetimeOver(lifetime, current?.nonce ?? null);
    },
    async release(lifetime) {
      if (lifetime.kind !== 'DURABLE_NONCE') return;
      await reservations.release(lifetime.reservedBy);
    },
  };
}
