/**
 * tenancyConfig.overrideOrganizationExternalId: the platform's operators may act inside another
 * organization (docs/tenancy.md). Only a key of the configured operator organization
 * (OPERATOR_ORGANIZATION) holding ADMIN may; it still needs the route's role held explicitly (ADMIN
 * does not stand in for it there), and acts without ADMIN. An override naming the caller's own
 * organization changes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization } from '../db/entities';
import { forbidden, notFound } from '../domain/errors';
import { qualifiedRole } from '../domain/roles';
import type { ApiDeps, Caller, LedgerContext } from './context';

const FIELD = 'tenancyConfig.overrideOrganizationExternalId';

/** Whether the key may act for another organization: an ADMIN key of the operator organization. */
function isOperator(caller: Caller, deps: ApiDeps): boolean {
  return (
    deps.operatorOrganization !== undefined &&
    caller.organizationExternalId === deps.operatorOrganization &&
    caller.roles.includes(qualifiedRole(deps.platformName, 'ADMIN'))
  );
}

/**
 * The caller the request acts as. Naming another organization: 403 for any key but an operator's
 * ADMIN key (before the organization is looked up, so the answer says nothing of which exist), 404
 * when it does not exist, 403 without one of the route's roles held explicitly. Decided once per
 * request (mountRoutes asks first, the handler again).
 */
export async function actingCaller(
  ctx: LedgerContext,
  deps: ApiDeps,
  em: EntityManager,
  tenancyConfig?: { overrideOrganizationExternalId?: string },
): Promise<Caller> {
  const caller = ctx.state.caller!;
  const override = tenancyConfig?.overrideOrganizationExternalId;
  if (!override || override === caller.organizationExternalId) return caller;
  const decided = ctx.state.acting;
  if (decided) {
    if (decided.organizationExternalId !== override) throw forbidden('a request acts for one organization', FIELD);
    return decided;
  }
  if (!isOperator(caller, deps)) {
    throw forbidden(`only an API key of the platform operators' organization holding ${deps.platformName}_ADMIN may act for another organization`, FIELD);
  }
  const org = await em.findOne(Organization, { externalId: override });
  if (!org) throw notFound(FIELD, `organization "${override}" does not exist`);
  // Fail closed: a route that did not say which roles it needs (mountRoutes sets them) lets no one act for another.
  const needed = ctx.state.routeRoles ?? [];
  if (!needed.length || !needed.some((role) => caller.roles.includes(qualifiedRole(deps.platformName, role)))) {
    const names = needed.map((role) => qualifiedRole(deps.platformName, role)).join(' or ');
    throw forbidden(
      `acting for another organization needs the role ${names || '(none declared)'} held by the API key itself (${deps.platformName}_ADMIN does not stand in for it there)`,
    );
  }
  const admin = qualifiedRole(deps.platformName, 'ADMIN');
  const acting: Caller = {
    ...caller,
    organizationId: org.id,
    organizationExternalId: org.externalId,
    apiKeyOrganizationExternalId: caller.organizationExternalId,
    roles: caller.roles.filter((role) => role !== admin),
  };
  ctx.state.acting = acting;
  return acting;
}

/** A read's acting tenant: a fresh EntityManager, the acting caller, and the scope (organization, cluster) its lookups run in. */
export async function actingScope(ctx: LedgerContext, deps: ApiDeps, tenancyConfig?: { overrideOrganizationExternalId?: string }) {
  const em = deps.orm.em.fork();
  const caller = await actingCaller(ctx, deps, em, tenancyConfig);
  return { em, caller, scope: { organizationId: caller.organizationId, cluster: ctx.state.cluster } };
}
