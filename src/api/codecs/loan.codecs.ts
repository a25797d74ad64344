/** Loan request bodies (spec 4.2 and 4.4). */
import { closeLoanItemData, createLoanItemData, createLoanStrategyItemData, loanDetailsItemData, refinanceLoanItemData, repayLoanItemData, swapCollateralItemData } from '../../domain/operations/loans/loan.inputs';
import { svmTransactionConfig } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const createLoanStrategyBody = strictObject('CreateLoanStrategyRequest', { itemData: createLoanStrategyItemData }, { svmTransactionConfig, tenancyConfig });
export const createLoanBody = strictObject('CreateLoanRequest', { itemData: createLoanItemData }, { svmTransactionConfig, tenancyConfig });
export const loanDetailsBody = strictObject('LoanDetailsRequest', { itemData: loanDetailsItemData }, { tenancyConfig });
export const repayLoanBody = strictObject('RepayLoanRequest', { itemData: repayLoanItemData }, { svmTransactionConfig, tenancyConfig });
export const closeLoanBody = strictObject('CloseLoanRequest', { itemData: closeLoanItemData }, { svmTransactionConfig, tenancyConfig });
export const swapCollateralBody = strictObject('SwapCollateralRequest', { itemData: swapCollateralItemData }, { svmTransactionConfig, tenancyConfig });
export const refinanceLoanBody = strictObject('RefinanceLoanRequest', { itemData: refinanceLoanItemData }, { svmTransactionConfig, tenancyConfig });
