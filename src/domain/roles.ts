/** API key roles: `<PLATFORM>_<ROLE>`, the platform name configurable (default LEDGER). */
export const roleNames = ['READ', 'WRITE', 'FETCH_PRIVATE_KEY', 'UPDATE_DEBIT_API_KEYS', 'APPROVE', 'ADMIN'] as const;
export type Role = (typeof roleNames)[number];

export const qualifiedRole = (platform: string, role: Role) => `${platform}_${role}`;

/** Parses `LEDGER_READ,LEDGER_WRITE` into roles; unknown names or another platform's prefix are refused. */
export function parseRoles(platform: string, text: string): Role[] {
  const roles = text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (roles.length === 0) throw new Error('at least one role is needed');
  return roles.map((qualified) => {
    const role = roleNames.find((name) => qualifiedRole(platform, name) === qualified);
    if (!role) throw new Error(`unknown role "${qualified}"; roles are ${roleNames.map((n) => qualifiedRole(platform, n)).join(', ')}`);
    return role;
  });
}

/** ADMIN holds every role. */
export function hasRole(granted: readonly string[], platform: string, needed: Role): boolean {
  return granted.includes(qualifiedRole(platform, needed)) || granted.includes(qualifiedRole(platform, 'ADMIN'));
}
