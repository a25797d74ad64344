/**
 * The all-roles API key `npm start` prints for the organization "dev": one key, kept in the data
 * directory (mode 0600, beside the development key-encryption key) and printed again at every start
 * while the database still knows it unrevoked. A new one is minted only when that is not so (first
 * start, database reset, key revoked, roles changed), and then every other unrevoked all-roles key of
 * "dev" is revoked: those are earlier starts' keys, and none stays valid unseen.
 */
import fs from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createApiKey, hashApiKey } from '../src/custody/credentials';
import { writeFileAtomically } from '../src/custody/atomic-file';
import { listApiKeys, revokeApiKey } from '../src/db/repositories/organizations.repository';
import type { Organization } from '../src/db/entities';
import { qualifiedRole, roleNames } from '../src/domain/roles';

/** What the database holds of one of the organization's keys. */
export interface KnownKey {
  id: string;
  keyHash: string;
  roles: readonly string[];
  revokedAt?: Date | null;
}

export type DevKeyPlan = { action: 'reuse'; apiKey: string } | { action: 'mint'; revoke: string[] };

const sameRoles = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** Reuse the saved key when it is an unrevoked key of `roles`; otherwise mint, revoking the keys of `roles` there are. */
export function planDevApiKey(saved: string | null, keys: readonly KnownKey[], roles: readonly string[]): DevKeyPlan {
  const launcherKeys = keys.filter((k) => !k.revokedAt && sameRoles(k.roles, roles));
  if (saved && launcherKeys.some((k) => k.keyHash === hashApiKey(saved))) return { action: 'reuse', apiKey: saved };
  return { action: 'mint', revoke: launcherKeys.map((k) => k.id) };
}

/** Applies the plan: the key to print, whether it is the saved one, and how many earlier keys were revoked. */
export async function devApiKey(
  em: () => EntityManager,
  organization: Organization,
  platformName: string,
  file: string,
): Promise<{ apiKey: string; reused: boolean; revoked: number }> {
  const saved = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() || null : null;
  const roles = roleNames.map((r) => qualifiedRole(platformName, r));
  const plan = planDevApiKey(saved, await listApiKeys(em(), { organizationId: organization.id, includeRevoked: false }), roles);
  if (plan.action === 'reuse') return { apiKey: plan.apiKey, reused: true, revoked: 0 };
  const key = await createApiKey(em(), organization, [...roleNames], platformName);
  // Saved before the old ones go: a stop in between leaves a key that works and is printed next time.
  writeFileAtomically(file, `${key.apiKey}\n`);
  for (const id of plan.revoke) await revokeApiKey(em(), id, new Date());
  return { apiKey: key.apiKey, reused: false, revoked: plan.revoke.length };
}
