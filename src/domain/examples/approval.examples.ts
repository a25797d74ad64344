/** Fetch Approvals, Approve, Reject examples: a transfer over a 100-per-transaction limit, 2 of 3 approvers. */
import type { OperationExample } from './operation-examples';
import { ids } from './example-values';

const at = '2026-03-02T10:15:00.000Z';
const approvers = ['3b1f7c9e-2a4d-4e8b-9c6f-1d5a8e2b7c30', '7e2a9c4b-6d1f-4b3e-a8c5-9f2d6b1e4a71', 'c4d8e1f3-5a7b-4c2e-9d6f-3b8a1e7c5d92'];
const approval = {
  offchainId: '2c7e9a1d-4b6f-4e3a-8d5c-7a1f3e9b2d64',
  status: 'PENDING',
  transaction: { offchainId: ids.transaction },
  account: ids.treasury,
  requiredApproversCount: 2,
  approversForOverride: approvers,
  decisions: [{ apiKeyId: approvers[0], decision: 'APPROVE', comment: 'quarter-end rebalancing', at }],
  rule: {
    limit: {
      destination: 'ANY',
      maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '100', approversForOverride: approvers, requiredApproversCount: 2 },
    },
    address: ids.treasury.onchainId,
    amount: '250000000000',
    alreadyInWindow: '0',
    headroom: '100000000000',
    message: `debit of 250 from ${ids.treasury.onchainId} to a MANAGED destination exceeds the ANY per-transaction limit of 100`,
  },
  createdAt: '2026-03-02T10:00:00.000Z',
};

/** Approve or Reject by one more approver: the request with its comment, and the approval with the decision added. */
function decided(apiKeyId: string, decision: 'APPROVE' | 'REJECT', status: 'APPROVED' | 'REJECTED', comment: string): OperationExample {
  return {
    request: { itemData: { approval: { offchainId: approval.offchainId }, comment } },
    response: { approval: { ...approval, status, decisions: [...approval.decisions, { apiKeyId, decision, comment, at: '2026-03-02T10:20:00.000Z' }] } },
  };
}

export const approvalExamples: Record<string, OperationExample> = {
  fetchApprovals: {
    request: { itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: 'PENDING' }] }] } },
    response: { count: 1, items: [approval] },
  },
  approve: decided(approvers[1], 'APPROVE', 'APPROVED', 'confirmed with the desk'),
  reject: decided(approvers[2], 'REJECT', 'REJECTED', 'not planned'),
};
