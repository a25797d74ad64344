/** Loan request bodies of the reads (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { loanDetailsItemData } from '../../domain/operations/loans/loan.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const loanDetailsBody = strictObject('LoanDetailsRequest', { itemData: loanDetailsItemData }, { tenancyConfig });
