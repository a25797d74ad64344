/**
 * Reconciliation's drift findings (docs/reconciliation.md): one OPEN finding per record at most (a
 * partial unique index), so a pass repeated, or two passes at once, never lists a drift twice.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Drift, HoldingKind } from '../../domain/reconciliation';

export type FindingStatus = 'OPEN' | 'REPAIRED' | 'RESOLVED';

/** A finding as the CLI lists it: exact integers as decimal strings, no secrets. */
export interface FindingRow {
  id: string;
  organizationId: string;
  organizationExternalId: string | null;
  cluster: string;
  kind: HoldingKind;
  recordId: string;
  address: string;
  subscribed: boolean;
  recordedValue: string;
  chainValue: string;
  difference: string;
  slot: string;
  status: FindingStatus;
  foundAt: string;
  lastSeenAt: string;
  repairedAt: string | null;
  repairSignatures: string[];
  resolvedAt: string | null;
}

/**
 * Records a drift as the record's OPEN finding: a new one (`created`), or the open one brought up to
 * this pass's values (its foundAt kept). Idempotent; safe against a concurrent pass (one insert wins, the other updates).
 */
export async function upsertOpenFinding(em: EntityManager, cluster: string, drift: Drift, at: Date): Promise<{ id: string; created: boolean }> {
  const [row] = await em.getConnection().execute<{ id: string; created: boolean }[]>(
    `insert into drift_finding (id, organization_id, cluster, kind, record_id, address, subscribed, recorded_value, chain_value, difference, slot, status, found_at, last_seen_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'OPEN', ?, ?)
     on conflict (organization_id, cluster, kind, record_id) where status = 'OPEN'
     do update set recorded_value = excluded.recorded_value, chain_value = excluded.chain_value, difference = excluded.difference,
       slot = excluded.slot, subscribed = excluded.subscribed, last_seen_at = excluded.last_seen_at
     returning id, (xmax = 0) as created`,
    [
      randomUUID(),
      drift.organizationId,
      cluster,
      drift.kind,
      drift.recordId,
      drift.address,
      drift.subscribed,
      drift.recorded.toString(),
      drift.chain.toString(),
      drift.difference.toString(),
      drift.slot.toString(),
      at,
      at,
    ],
  );
  return row;
}

/** The OPEN findings of records now equal to the chain (without a repair of ours) become RESOLVED. Returns how many. */
export async function resolveOpenFindings(em: EntityManager, cluster: string, kind: HoldingKind, recordIds: string[], at: Date): Promise<number> {
  if (!recordIds.length) return 0;
  const rows = await em
    .getConnection()
    .execute<{ id: string }[]>(
      `update drift_finding set status = 'RESOLVED', resolved_at = ? where cluster = ? and kind = ? and status = 'OPEN' and record_id in (${recordIds.map(() => '?').join(', ')}) returning id`,
      [at, cluster, kind, ...recordIds],
    );
  return rows.length;
}

/** The repair's network transactions recorded and the record equal to the chain again: REPAIRED. Idempotent. */
export async function markRepaired(em: EntityManager, id: string, signatures: string[], at: Date): Promise<void> {
  await em
    .getConnection()
    .execute(
      `update drift_finding set status = 'REPAIRED', repaired_at = ?, resolved_at = ?, repair_signatures = array(select jsonb_array_elements_text(?::jsonb)) where id = ? and status = 'OPEN'`,
      [at, at, JSON.stringify(signatures), id],
    );
}

/** A repair that recorded transactions but left the record off: the finding stays OPEN with what was recorded. */
export async function noteRepairSignatures(em: EntityManager, id: string, signatures: string[]): Promise<void> {
  if (!signatures.length) return;
  await em
    .getConnection()
    .execute(
      `update drift_finding set repair_signatures = array(select distinct unnest(repair_signatures || array(select jsonb_array_elements_text(?::jsonb)))) where id = ?`,
      [JSON.stringify(signatures), id],
    );
}

/** Findings, OPEN first, then the newest; `cluster`/`status` narrow the list. */
export async function listFindings(em: EntityManager, filter: { cluster?: string; status?: FindingStatus; limit?: number } = {}): Promise<FindingRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.cluster) {
    where.push('f.cluster = ?');
    params.push(filter.cluster);
  }
  if (filter.status) {
    where.push('f.status = ?');
    params.push(filter.status);
  }
  params.push(filter.limit ?? 1000);
  const rows = await em.getConnection().execute<Record<string, unknown>[]>(
    `select f.*, o.external_id as organization_external_id from drift_finding f left join organization o on o.id = f.organization_id
     ${where.length ? `where ${where.join(' and ')}` : ''}
     order by (f.status = 'OPEN') desc, f.found_at desc, f.id limit ?`,
    params,
  );
  const iso = (value: unknown) => (value ? new Date(value as string).toISOString() : null);
  return rows.map((r) => ({
    id: r.id as string,
    organizationId: r.organization_id as string,
    organizationExternalId: (r.organization_external_id as string | null) ?? null,
    cluster: r.cluster as string,
    kind: r.kind as HoldingKind,
    recordId: r.record_id as string,
    address: r.address as string,
    subscribed: r.subscribed as boolean,
    recordedValue: String(r.recorded_value),
    chainValue: String(r.chain_value),
    difference: String(r.difference),
    slot: String(r.slot),
    status: r.status as FindingStatus,
    foundAt: iso(r.found_at)!,
    lastSeenAt: iso(r.last_seen_at)!,
    repairedAt: iso(r.repaired_at),
    repairSignatures: (r.repair_signatures as string[]) ?? [],
    resolvedAt: iso(r.resolved_at),
  }));
}

/** OPEN findings by cluster (the open-findings gauge). */
export async function countOpenFindings(em: EntityManager, cluster: string): Promise<number> {
  const [row] = await em.getConnection().execute<{ n: string }[]>(`select count(*) as n from drift_finding where cluster = ? and status = 'OPEN'`, [cluster]);
  return Number(row.n);
}
