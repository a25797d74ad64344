/** Threshold keys' public packages and the signatures they gave (tables `threshold_key`, `threshold_signature`); no share is ever here. */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface ThresholdKeyRow {
  address: string;
  organizationId: string;
  requestKey: string;
  threshold: number;
  playerCodes: string[];
  keyUsage: string | null;
  isDefault: boolean;
  /** The FROST public package (hex-encoded points): group key, commitments, verifying shares. */
  publicPackage: unknown;
}

/** Idempotent by request key (an array binding expands to a list, hence `array[?]`): a retry or a concurrent run keeps the first key. */
export async function insertThresholdKey(em: EntityManager, row: ThresholdKeyRow): Promise<void> {
  await em.getConnection().execute(
    `insert into threshold_key (address, organization_id, request_key, threshold, player_codes, key_usage, is_default, public_package)
     values (?, ?, ?, ?, array[?]::text[], ?, ?, ?) on conflict do nothing`,
    [row.address, row.organizationId, row.requestKey, row.threshold, row.playerCodes, row.keyUsage, row.isDefault, JSON.stringify(row.publicPackage)],
  );
}

type Raw = {
  address: string;
  organization_id: string;
  request_key: string;
  threshold: number;
  player_codes: string[];
  key_usage: string | null;
  is_default: boolean;
  public_package: unknown;
};
const fromRaw = (r: Raw): ThresholdKeyRow => ({
  address: r.address,
  organizationId: r.organization_id,
  requestKey: r.request_key,
  threshold: r.threshold,
  playerCodes: r.player_codes,
  keyUsage: r.key_usage,
  isDefault: r.is_default,
  publicPackage: r.public_package,
});

export async function thresholdKeyByRequest(em: EntityManager, requestKey: string): Promise<ThresholdKeyRow | undefined> {
  const rows = await em.getConnection().execute<Raw[]>(`select * from threshold_key where request_key = ?`, [requestKey]);
  return rows[0] ? fromRaw(rows[0]) : undefined;
}

export async function thresholdKeys(em: EntityManager, addresses: string[]): Promise<ThresholdKeyRow[]> {
  if (addresses.length === 0) return [];
  const rows = await em.getConnection().execute<Raw[]>(`select * from threshold_key where address in (?)`, [addresses]);
  return rows.map(fromRaw);
}

/** The signature already given over a message, so a replayed sign step sends the same transaction. */
export async function recordedThresholdSignature(em: EntityManager, address: string, messageHash: string): Promise<string | undefined> {
  const rows = await em
    .getConnection()
    .execute<{ signature: string }[]>(`select signature from threshold_signature where address = ? and message_hash = ?`, [address, messageHash]);
  return rows[0]?.signature;
}

/** Keeps the first signature over a message; returns the one that is recorded. */
export async function recordThresholdSignature(em: EntityManager, address: string, messageHash: string, signature: string): Promise<string> {
  await em
    .getConnection()
    .execute(`insert into threshold_signature (address, message_hash, signature) values (?, ?, ?) on conflict do nothing`, [address, messageHash, signature]);
  return (await recordedThresholdSignature(em, address, messageHash))!;
}
