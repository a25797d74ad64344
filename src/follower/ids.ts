/**
 * Stable ids of what the chain follower records: the same network transaction always gets the same
 * record id per organization, and the same webhook eventId per account, however often a batch is
 * replayed. Name-based UUIDs (RFC 9562 version 5, SHA-1) from node:crypto: ten lines, where the
 * `uuid` package is not a dependency of the service.
 */
import { createHash } from 'node:crypto';

/** The namespace of the ledger's name-based ids (a fixed random UUID). */
const LEDGER_NAMESPACE = Buffer.from('6c4b9f8e2d3a4f1bb0e5a7c9d1f3e5a7', 'hex');

export function uuidV5(name: string, namespace: Buffer = LEDGER_NAMESPACE): string {
  const hash = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The record of a network transaction for one organization. */
export const networkTransactionId = (organizationId: string, cluster: string, signature: string) =>
  uuidV5(`network-transaction:${organizationId}:${cluster}:${signature}`);

/** The NETWORK_TRANSACTION event of one record for one account. */
export const networkEventId = (transactionId: string, accountId: string) => uuidV5(`network-event:${transactionId}:${accountId}`);

/** A record's second event, sent when its transaction left the chain before finalization (docs/finality.md). */
export const LEFT_CHAIN_SUFFIX = ':LEFT_CHAIN';
export const leftChainEventId = (eventId: string) => `${eventId}${LEFT_CHAIN_SUFFIX}`;

/** The delivery workflow of a record's left-chain events. */
export const leftChainEventsWorkflowId = (transactionId: string) => `left-chain-webhooks-${transactionId}`;

/** The chain follower's workflow: one per cluster and task queue (each test stack has its own queue on a shared server). */
export const chainFollowerWorkflowId = (cluster: string, taskQueue: string) => `chain-follower-${cluster}-${taskQueue}`;

/** The delivery workflow of a network transaction's events. */
export const networkEventsWorkflowId = (transactionId: string) => `network-transaction-webhooks-${transactionId}`;

/** The `operation` a network transaction's record shows (it was not a write of the service). */
export const NETWORK_OPERATION = 'NETWORK_TRANSACTION';
