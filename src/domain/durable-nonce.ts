/**
 * Durable nonce rules (spec 2.8, docs/durable-nonces.md): how many nonce accounts one request and one network
 * transaction create, and when a nonce-lifetime message can no longer land. Pure.
 */
import type { MessageLifetime } from './write';

/** Nonce accounts one Create Durable Nonce Accounts request may create (documented in the OpenAPI description). */
export const MAX_NONCE_ACCOUNTS_PER_REQUEST = 20;
/** Nonce accounts per network transaction: each adds a signature, a key and two instructions (about 200 bytes of 1232). */
export const NONCE_ACCOUNTS_PER_TRANSACTION = 4;

/** The network transactions creating `count` nonce accounts need. */
export const nonceTransactionCount = (count: number): number => Math.ceil(count / NONCE_ACCOUNTS_PER_TRANSACTION);

/** The indexes (0-based, of the request's accounts) that transaction `part` creates. */
export function nonceBatch(count: number, part: number): number[] {
  const start = part * NONCE_ACCOUNTS_PER_TRANSACTION;
  return Array.from({ length: Math.max(0, Math.min(NONCE_ACCOUNTS_PER_TRANSACTION, count - start)) }, (_, i) => start + i);
}

type NonceLifetime = Extract<MessageLifetime, { kind: 'DURABLE_NONCE' }>;

/**
 * Whether a message built on `lifetime` can never land, given the nonce the chain holds now (null:
 * the nonce account is gone or no longer a nonce). Advancing the nonce is the only way it changes,
 * and landing advances it too: the caller must have seen the signature unknown first.
 */
export function nonceLifetimeOver(lifetime: NonceLifetime, onchainNonce: string | null): boolean {
  return onchainNonce !== lifetime.nonce;
}
