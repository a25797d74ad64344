/** Fetch Approvals items (docs/approvals.md). */
import * as t from 'io-ts';
import { freeObjectWith, integer, listOf, nullable, strictObject, textEnum, textWith, timestamp, uuid } from './building-blocks';
import { recordPage } from './bulk.responses';

export const approvalStatuses = ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'] as const;

export const approvalDecision = strictObject(
  'ApprovalDecision',
  {
    apiKeyId: textWith('The API key that decided (the id the admin CLI prints beside apiKey).'),
    decision: textEnum(['APPROVE', 'REJECT']),
    comment: nullable(textWith('The comment sent with the decision.')),
    at: timestamp,
  },
  {},
);

export const approval = strictObject(
  'Approval',
  {
    offchainId: uuid,
    status: textEnum(
      approvalStatuses,
      'PENDING until requiredApproversCount approvals (APPROVED: the write goes on to build), one rejection (REJECTED), the timeout (EXPIRED) or Cancel (CANCELLED); the write ends REJECTED on the last three (CANCELLED on Cancel).',
    ),
    transaction: strictObject('ApprovalTransaction', { offchainId: uuid }, {}),
    account: strictObject('ApprovalAccount', { onchainId: textWith('The debited wallet.'), offchainId: uuid }, {}),
    requiredApproversCount: integer,
    approversForOverride: listOf(textWith('An API key id.')),
    decisions: listOf(approvalDecision, 'In the order they were made; one per API key.'),
    rule: freeObjectWith(
      'The limit that fired ({limit}: destination, maxAllowedDebit), the debit (address, amount in base units, alreadyInWindow) and the headroom the limit had left (base units), with the message LIMIT_EXCEEDED would have given.',
    ),
    createdAt: timestamp,
  },
  {},
);

export const approvalsResponse = recordPage('Approvals', approval, "The organization's approvals matching the itemQuery.");
export const approvalResponse = strictObject('ApprovalDecisionAnswer', { approval }, {}, 'The approval after the decision.');
export type ApprovalBody = t.TypeOf<typeof approval>;
