/** What a write's workflow starts with, whoever starts it (the write client, a loan's own workflow). */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import { searchAttributeNames, type WriteRequest } from '../../domain/write';
import { writeSummary } from '../../domain/write-summary';

const keys = {
  organization: defineSearchAttributeKey(searchAttributeNames.organization, SearchAttributeType.KEYWORD),
  operation: defineSearchAttributeKey(searchAttributeNames.operation, SearchAttributeType.KEYWORD),
  transaction: defineSearchAttributeKey(searchAttributeNames.transaction, SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey(searchAttributeNames.status, SearchAttributeType.KEYWORD),
};

/**
 * The write's search attributes (LedgerOrganization: the organization's external id; LedgerStatus
 * PENDING until its first wait or its end) and the static summary and details the Web UI lists and
 * heads it by (operation, organization, amounts and ends).
 */
export function writeStartOptions(request: WriteRequest, organizationExternalId = request.organizationExternalId) {
  const typedSearchAttributes: SearchAttributePair[] = [
    { key: keys.organization, value: organizationExternalId },
    { key: keys.operation, value: request.operation },
    { key: keys.transaction, value: request.transactionId },
    { key: keys.status, value: 'PENDING' },
  ];
  return { typedSearchAttributes, ...writeSummary(request, organizationExternalId) };
}
