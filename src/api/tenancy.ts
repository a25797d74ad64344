/** tenancyConfig.overrideOrganizationExternalId: an ADMIN key may act inside another organization. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization } from '../db/entities';
import { forbidden, notFound } from '../domain/errors';
import { hasRole } from '../domain/roles';
import type { ApiDeps, Caller, LedgerContext } from './context';

export async function actingCaller(ctx: LedgerContext, deps: ApiDeps, em: EntityManager, tenancyConfig?: { overrideOrganizationExternalId?: string }): Promise<Caller> {
  const caller = ctx.state.caller!;
  const override = tenancyConfig?.overrideOrganizationExternalId;
  if (!override || override === caller.organizationExternalId) return caller;
  if (!hasRole(caller.roles, deps.platformName, 'ADMIN')) {
    throw forbidden(`overriding the organization needs the ${deps.platformName}_ADMIN role`, 'tenancyConfig.overrideOrganizationExternalId');
  }
  const org = await em.findOne(Organization, { externalId: override });
  if (!org) throw notFound('tenancyConfig.overrideOrganizationExternalId', `organization "${override}" does not exist`);
  return { ...caller, organizationId: org.id, organizationExternalId: org.externalId };
}

/** A read's acting tenant: a fresh EntityManager, the acting caller, and the scope (organization, cluster) its lookups run in. */
export async function actingScope(ctx: LedgerContext, deps: ApiDeps, tenancyConfig?: { overrideOrganizationExternalId?: string }) {
  const em = deps.orm.em.fork();
  const caller = await actingCaller(ctx, deps, em, tenancyConfig);
  return { em, caller, scope: { organizationId: caller.organizationId, cluster: ctx.state.cluster } };
}
