/**
 * Finding a loan's workflow (docs/loans.md, "Its workflow id"): loans created since workflow ids name
 * the organization by its external id run as `loanWorkflowId`; older loans keep the
 * `legacyLoanWorkflowId` they were started with. Nothing stores the id, so whoever reaches a loan's
 * workflow tries the current id first, then the legacy one.
 */
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { legacyLoanWorkflowId, loanWorkflowId } from '../domain/loan-lifecycle';
import type { OrganizationIds } from '../domain/workflow-ids';

/** Both ids a loan's workflow may have, current first. */
export function loanWorkflowIds(organization: OrganizationIds, escrow: string): [string, string] {
  return [loanWorkflowId(organization, escrow), legacyLoanWorkflowId(organization.id, escrow)];
}

/**
 * Runs `act` on the loan's workflow under its current id, or under the legacy id when no workflow
 * has the current one (WorkflowNotFoundError: never started, or already closed). Rethrows the last
 * attempt's failure.
 */
export async function onLoanWorkflow<T>(
  client: Client,
  organization: OrganizationIds,
  escrow: string,
  act: (handle: WorkflowHandle) => Promise<T>,
): Promise<T> {
  const [current, legacy] = loanWorkflowIds(organization, escrow);
  try {
    return await act(client.workflow.getHandle(current));
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return act(client.workflow.getHandle(legacy));
  }
}

/** Whether a loan created before the current ids already has its workflow (a Create Loan of the old release replayed on this one). */
export async function hasLegacyLoanWorkflow(client: Client, organization: OrganizationIds, escrow: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(legacyLoanWorkflowId(organization.id, escrow)).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
