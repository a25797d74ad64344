/**
 * A reconciliation drift finding (docs/reconciliation.md): a record whose balance differs from the
 * chain with no recorded transaction to explain it. Values are exact integers as decimal strings
 * (lamports for an account, token base units for a position); the record itself is never changed here.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const DriftFinding = defineEntity({
  name: 'DriftFinding',
  tableName: 'drift_finding',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    /** `account` (lamports of the account's address) or `position` (token amount of its token account). */
    kind: p.text(),
    recordId: p.uuid(),
    address: p.text(),
    /** Whether the record follows the chain (subscribeToNetworkEvents, of the position's owner for a position): only those are repaired. */
    subscribed: p.boolean(),
    recordedValue: p.decimal('string'),
    chainValue: p.decimal('string'),
    /** chain − recorded. */
    difference: p.decimal('string'),
    /** The chain read's context slot. */
    slot: p.bigint(),
    /** OPEN, REPAIRED (missing network transactions recorded, then equal) or RESOLVED (equal again without a repair). */
    status: p.text(),
    foundAt: p.datetime(),
    lastSeenAt: p.datetime(),
    repairedAt: p.datetime().nullable(),
    repairSignatures: p.array(),
    resolvedAt: p.datetime().nullable(),
  },
});
export type DriftFinding = InferEntity<typeof DriftFinding>;
