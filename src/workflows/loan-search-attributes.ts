/** The search attributes of a loan's workflow (operators find loans in the Temporal UI by them). */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import { loanSearchAttributeNames, type LoanLifecycleInput } from '../domain/loan-lifecycle';
import { searchAttributeNames } from '../domain/write';

export const loanKeys = {
  organization: defineSearchAttributeKey(searchAttributeNames.organization, SearchAttributeType.KEYWORD),
  escrow: defineSearchAttributeKey(loanSearchAttributeNames.escrow, SearchAttributeType.KEYWORD),
  borrower: defineSearchAttributeKey(loanSearchAttributeNames.borrower, SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey(loanSearchAttributeNames.status, SearchAttributeType.KEYWORD),
  nextMaturity: defineSearchAttributeKey(loanSearchAttributeNames.nextMaturity, SearchAttributeType.DATETIME),
  lender: defineSearchAttributeKey(loanSearchAttributeNames.lender, SearchAttributeType.KEYWORD),
  strategy: defineSearchAttributeKey(loanSearchAttributeNames.strategy, SearchAttributeType.KEYWORD),
};

/**
 * LedgerOrganization holds the organization's external id, as on writes (the one operators know);
 * LedgerLender and LedgerLoanStrategy the addresses (absent for a loan whose run began before them).
 */
export function loanSearchAttributes(
  input: Pick<LoanLifecycleInput, 'organizationExternalId' | 'escrow' | 'borrower' | 'lender' | 'strategy' | 'status' | 'maturityAt'>,
): SearchAttributePair[] {
  return [
    { key: loanKeys.organization, value: input.organizationExternalId },
    { key: loanKeys.escrow, value: input.escrow },
    { key: loanKeys.borrower, value: input.borrower },
    { key: loanKeys.status, value: input.status },
    { key: loanKeys.nextMaturity, value: new Date(input.maturityAt) },
    ...(input.lender ? [{ key: loanKeys.lender, value: input.lender }] : []),
    ...(input.strategy ? [{ key: loanKeys.strategy, value: input.strategy }] : []),
  ];
}
