/**
 * Fetch Approvals, Approve, Reject (docs/approvals.md). A decision is kept on the approval
 * record first; the one that settles it (requiredApproversCount approvals, or one rejection) then
 * signals the waiting write. Should that signal be lost, a later decision on the settled approval (a
 * repeat of the settling one) signals again, and the write finds the decision on the record when its
 * timeout comes anyway.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Approval } from '../../db/entities';
import { signalApprovalDecided } from '../../client/approvals';
import { decide } from '../../db/repositories/approvals.repository';
import { conflict, forbidden, LedgerError, notFound } from '../../domain/errors';
import { translateItemQuery } from '../../domain/item-query';
import { approvalDecisionBody } from '../codecs/approval.codecs';
import { bulkBody } from '../codecs/common.codecs';
import type { ApiDeps, LedgerContext } from '../context';
import { approvalResponse, approvalsResponse, type ApprovalBody } from '../../domain/responses/approval.responses';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
import { approvalQuery } from './query-fields';
import { findPage, pageFields } from '../../db/repositories/bulk-pages.repository';

function present(approval: Approval, accounts: Map<string, string>): ApprovalBody {
  return {
    offchainId: approval.id,
    status: approval.status,
    transaction: { offchainId: approval.transactionId },
    account: { onchainId: accounts.get(approval.accountId) ?? '', offchainId: approval.accountId },
    requiredApproversCount: approval.requiredApproversCount,
    approversForOverride: approval.approversForOverride,
    decisions: approval.decisions,
    rule: approval.rule,
    createdAt: approval.createdAt.toISOString(),
  };
}

async function addressesOf(em: EntityManager, approvals: Approval[]): Promise<Map<string, string>> {
  const ids = [...new Set(approvals.map((a) => a.accountId))];
  const accounts = ids.length ? await em.find(Account, { id: { $in: ids } }) : [];
  return new Map(accounts.map((a) => [a.id, a.address]));
}

type DecisionBody = { itemData: { approval: { offchainId: string }; comment?: string }; tenancyConfig?: { overrideOrganizationExternalId?: string } };

export function approvalRoutes(deps: ApiDeps): RouteSpec[] {
  const fork = (): EntityManager => deps.orm.em.fork();

  async function decision(ctx: LedgerContext, body: DecisionBody, kind: 'APPROVE' | 'REJECT') {
    const em = fork();
    const caller = await actingCaller(ctx, deps, em, body.tenancyConfig);
    const apiKeyId = ctx.state.caller!.apiKeyId;
    const field = 'itemData.approval.offchainId';
    const approvalId = { id: body.itemData.approval.offchainId, organizationId: caller.organizationId };
    let decided: Awaited<ReturnType<typeof decide>>;
    try {
      decided = await decide(em, approvalId, { apiKeyId, decision: kind, comment: body.itemData.comment ?? null, at: deps.now().toISOString() }, (approval) => {
        if (!approval.approversForOverride.includes(apiKeyId)) throw forbidden("this API key is not among the approval's approversForOverride", field);
        if (approval.decisions.some((d) => d.apiKeyId === apiKeyId))
          throw conflict(field, 'this API key already decided on this approval (one decision per approver)');
        if (approval.status !== 'PENDING') throw conflict(field, `the approval is ${approval.status}`);
      });
    } catch (error) {
      // A decision that met a settled approval may be the settling one sent again because its answer
      // was lost, or whose signal was (the API died, or Temporal was away, after the decision was
      // stored): the write is signalled again before the 409, so it never waits for its timeout.
      if (error instanceof LedgerError && error.code === 'CONFLICT') {
        const settled = await fork().findOne(Approval, approvalId);
        if (settled && (settled.status === 'APPROVED' || settled.status === 'REJECTED')) await signalApprovalDecided(deps, settled);
      }
      throw error;
    }
    if (!decided) throw notFound(field, 'no approval with this offchainId');
    if (decided.settled) await signalApprovalDecided(deps, decided.approval);
    return { approval: present(decided.approval, await addressesOf(fork(), [decided.approval])) };
  }

  const decisionSummary = (what: string) =>
    `${what} (role APPROVE, and the API key must be listed in the approval's approversForOverride, else 403). One decision per key: a second decision by the same key, or any decision on an approval that is no longer PENDING, is 409 CONFLICT. requiredApproversCount approvals release the write (it goes on to build, sign and send); one rejection ends it REJECTED with its held debits given back. Answers the approval after the decision.`;

  return [
    route({
      operationId: 'fetchApprovals',
      method: 'post',
      path: '/api/v1/approvals/bulk',
      tag: 'Approvals',
      summary:
        "Fetch Approvals: the organization's approvals (pending and decided), newest first unless sorted. A debit over a debit limit that names approversForOverride waits in AWAITING_APPROVAL (before build) for one. itemQuery fields: status, transactionOffchainId, accountOffchainId, createdAt.",
      role: ['READ', 'APPROVE'],
      body: bulkBody,
      successStatus: 200,
      response: approvalsResponse,
      usesCluster: false,
      async handler(ctx, body) {
        const em = fork();
        const caller = await actingCaller(ctx, deps, em, body.tenancyConfig);
        const query = translateItemQuery(approvalQuery, body.itemQuery, { organizationId: caller.organizationId });
        const page = await findPage(em, Approval, query);
        const items = page.items;
        const accounts = await addressesOf(em, items);
        return { ...pageFields(page), items: items.map((a) => present(a, accounts)) };
      },
    }),
    route({
      operationId: 'approve',
      method: 'patch',
      path: '/api/v1/approvals/approve',
      tag: 'Approvals',
      summary: decisionSummary('Approve: approves a debit held over its limit'),
      role: 'APPROVE',
      body: approvalDecisionBody,
      successStatus: 200,
      response: approvalResponse,
      usesCluster: false,
      handler: (ctx, body) => decision(ctx, body, 'APPROVE'),
    }),
    route({
      operationId: 'reject',
      method: 'patch',
      path: '/api/v1/approvals/reject',
      tag: 'Approvals',
      summary: decisionSummary('Reject: rejects a debit held over its limit'),
      role: 'APPROVE',
      body: approvalDecisionBody,
      successStatus: 200,
      response: approvalResponse,
      usesCluster: false,
      handler: (ctx, body) => decision(ctx, body, 'REJECT'),
    }),
  ];
}
