/** The search attributes of a loan's workflow (operators find loans in the Temporal UI by them). */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import { loanSearchAttributeNames, type LoanLifecycleInput } from '../domain/loan-lifecycle';
import { searchAttributeNames, type WriteRequest } from '../domain/write';

export const loanKeys = {
  organization: defineSearchAttributeKey(searchAttributeNames.organization, SearchAttributeType.KEYWORD),
  escrow: defineSearchAttributeKey(loanSearchAttributeNames.escrow, SearchAttributeType.KEYWORD),
  borrower: defineSearchAttributeKey(loanSearchAttributeNames.borrower, SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey(loanSearchAttributeNames.status, SearchAttributeType.KEYWORD),
  nextMaturity: defineSearchAttributeKey(loanSearchAttributeNames.nextMaturity, SearchAttributeType.DATETIME),
};

/** LedgerOrganization holds the organization's external id, as on writes (the one operators know). */
export function loanSearchAttributes(
  input: Pick<LoanLifecycleInput, 'organizationExternalId' | 'escrow' | 'borrower' | 'status' | 'maturityAt'>,
): SearchAttributePair[] {
  return [
    { key: loanKeys.organization, value: input.organizationExternalId },
    { key: loanKeys.escrow, value: input.escrow },
    { key: loanKeys.borrower, value: input.borrower },
    { key: loanKeys.status, value: input.status },
    { key: loanKeys.nextMaturity, value: new Date(input.maturityAt) },
  ];
}

const writeKeys = {
  operation: defineSearchAttributeKey(searchAttributeNames.operation, SearchAttributeType.KEYWORD),
  transaction: defineSearchAttributeKey(searchAttributeNames.transaction, SearchAttributeType.KEYWORD),
};

/** The search attributes of a loan movement's write: those the API gives a write it starts itself (src/client/write-client.ts). */
export function movementSearchAttributes(request: WriteRequest): SearchAttributePair[] {
  return [
    { key: loanKeys.organization, value: request.organizationExternalId },
    { key: writeKeys.operation, value: request.operation },
    { key: writeKeys.transaction, value: request.transactionId },
  ];
}
