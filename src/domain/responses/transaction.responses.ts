/** Transaction records at the three detail levels, and Fetch Transaction Status (docs/behaviour/transactions.md). */
import * as t from 'io-ts';
import {
  address,
  baseUnits,
  boolean,
  constant,
  integer,
  listOf,
  nullable,
  signature,
  strictObject,
  textEnum,
  textWith,
  timestamp,
  uuid,
} from './building-blocks';
import { recordPage } from './bulk.responses';
import { operations } from '../operations/registry';
import { offchainIdentifier } from './account.responses';
import { transactionResultProps, transactionStatus } from './write.responses';

export const transactionIdentifiers = strictObject(
  'TransactionIdentifiers',
  {
    onchain: strictObject('TransactionOnchainIdentifier', { id: nullable(signature) }, {}, 'id: null before the transaction is signed.'),
    offchain: offchainIdentifier,
  },
  {},
  'The identifiers detail level of a transaction.',
);

const operation = textEnum(
  [...operations, 'NETWORK_TRANSACTION'],
  'The write that made the transaction; NETWORK_TRANSACTION for a network transaction the service did not send (origin NETWORK).',
);
/** API.md section 9: the service's own write, or a network transaction the chain follower recorded for a subscribed account. */
const origin = textEnum(
  ['SERVICE', 'NETWORK'],
  'SERVICE: a write of the service; NETWORK: a network transaction sent by others that touched an account with subscribeToNetworkEvents (docs/chain-follower.md).',
);

export const transactionCompact = strictObject(
  'TransactionCompact',
  { ...transactionResultProps, operation, origin, createdAt: timestamp },
  {},
  'The compact detail level: the transaction result, its operation, its origin and when it was made.',
);

const statusChange = strictObject('StatusChange', { status: transactionStatus, at: timestamp }, { signature }, 'One status change, in order.');

export const transactionDetailed = strictObject(
  'TransactionDetailed',
  {
    ...transactionResultProps,
    operation,
    origin,
    cluster: t.string,
    statusHistory: listOf(statusChange),
    idempotencyId: nullable(textWith('The idempotency key of the write (idempotencyId, Idempotency-Key or x-request-id).')),
    workflowId: t.string,
    feePayer: nullable(address),
    computeUnitConfig: nullable(
      strictObject(
        'ComputeUnitConfigBuilt',
        {
          limit: nullable(integer),
          limitSource: nullable(
            textEnum(
              ['GIVEN', 'SIMULATED'],
              'GIVEN: computeUnitConfig.limit; SIMULATED: the units a simulation of the message consumed plus 10 % (at least 1,000 units), capped at 1,400,000.',
            ),
          ),
          simulatedUnits: nullable(integer),
          price: nullable(textWith('Compute unit price in micro-lamports, as decimal text: given, or estimated.')),
          priceEstimate: nullable(
            strictObject(
              'PriceEstimateBuilt',
              { provider: nullable(t.string), calculationStrategy: t.string, priorityLevel: t.string, source: constant('CLUSTER_RPC') },
              {},
              "The estimate asked for (provider, calculationStrategy, priorityLevel); its price comes from the cluster's getRecentPrioritizationFees for the message's writable accounts.",
            ),
          ),
        },
        {},
        'svmTransactionConfig.computeUnitConfig as the message was built: the limit (simulatedUnits: what the simulation consumed, when the limit came from it), the price used and the estimate with its provider (null: no compute budget instructions).',
      ),
    ),
    computeUnitsConsumed: nullable(integer),
    fee: nullable(baseUnits),
    signers: listOf(address),
    slot: nullable(baseUnits),
    lastValidBlockHeight: nullable(baseUnits),
    accountOffchainIds: listOf(uuid, 'Offchain ids of the records the write touched (accounts, positions).'),
    webhookFailures: listOf(
      strictObject(
        'WebhookFailure',
        { webhookName: nullable(t.string), eventType: t.string, httpStatus: nullable(integer), error: t.string, at: timestamp },
        {},
        'A pre-submit webhook delivery that failed: the transaction went on (or, for a webhook with doNotSubmitTransactionOnFailure, was REJECTED).',
      ),
      'Pre-submit webhook failures of this transaction (docs/webhooks.md); every attempt of every webhook is in Fetch Webhook Deliveries.',
    ),
    tenantOrganizationId: uuid,
    createdAt: timestamp,
    updatedAt: timestamp,
  },
  {},
  "The detailed level of a transaction record. computeUnitsConsumed and fee (lamports) are the landed transaction's own (its meta), null before it landed, or when the network kept no confirmed record of it (a write answered at processed waits up to 20 s for one).",
);
export type TransactionDetailedBody = t.TypeOf<typeof transactionDetailed>;

export const transactionLevels = { identifiers: transactionIdentifiers, compact: transactionCompact, detailed: transactionDetailed };

export const transactionStatusResponse = strictObject(
  'TransactionStatusResponse',
  {
    offchainId: uuid,
    onchainId: nullable(signature),
    status: transactionStatus,
    success: nullable(boolean),
    errorMessage: nullable(t.string),
    statusHistory: listOf(statusChange),
  },
  {},
  "The transaction's status now and every change before it.",
);

export { transactionResult } from './write.responses';

export const positionHistoryResponse = recordPage(
  'PositionHistoryPage',
  transactionDetailed,
  'The transactions that touched the position, as detailed records: count matches the filter (all pages), items are this page.',
);

/** Cancel (docs/signatures.md): the cancelled write's transaction. */
export const cancelledTransactionResponse = strictObject(
  'CancelledTransaction',
  { transaction: strictObject('CancelledTransactionStatus', { offchainId: uuid, status: constant('CANCELLED') }, {}) },
  {},
  'The write stopped waiting and ended CANCELLED; its debits and its message lifetime were given back. Nothing was sent.',
);
