/** Approve and Reject (docs/approvals.md): the approval by offchainId, an optional comment kept with the decision. */
import { nonEmptyString, strictObject, uuid } from '../../domain/inputs/primitives';
import { itemDataBody } from './common.codecs';

export const approvalDecisionBody = itemDataBody(
  'ApprovalDecisionRequest',
  strictObject('ApprovalDecisionItemData', { approval: strictObject('ApprovalLookup', { offchainId: uuid }, {}) }, { comment: nonEmptyString(2000) }),
);
