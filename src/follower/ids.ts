/**
 * Stable ids of what the chain follower records: the same network transaction always gets the same
 * record id per organization, and the same webhook eventId per account, however often a batch is
 * replayed. Name-based UUIDs (RFC 9562 version 5, SHA-1) in the ledger's namespace; stored records
 * and delivered eventIds depend on them, so the namespace and the names never change
 * (test/unit/follower-ids.test.ts pins them).
 */
import { v5 } from 'uuid';

/** The namespace of the ledger's name-based ids (a fixed random UUID). */
const LEDGER_NAMESPACE = '6c4b9f8e-2d3a-4f1b-b0e5-a7c9d1f3e5a7';

/** The name-based id of `name` in the ledger's namespace. */
export const uuidV5 = (name: string): string => v5(name, LEDGER_NAMESPACE);

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
