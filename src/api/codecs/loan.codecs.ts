/** Loan request bodies of the reads (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { loanDetailsItemData } from '../../domain/operations/loans/loan.inputs';
import { itemDataBody } from './common.codecs';

export const loanDetailsBody = itemDataBody('LoanDetailsRequest', loanDetailsItemData);
