/** The loan operations (spec 4.2 and 4.4, docs/loans.md): loan strategies, Create, Repay, Swap Collateral, Refinance, Close and Liquidate Loan. */
import { loanExamples } from '../../examples/loan.examples';
import { GRACE_HOURS, durationDays } from '../../loans';
import { createLoanResponse, createLoanStrategyResponse } from '../../responses/loan.responses';
import { transactionResult } from '../../responses/write.responses';
import { defineOperation } from '../define-operation';
import * as closeLoanRules from './close-loan.rules';
import * as createLoanRules from './create-loan.rules';
import * as liquidateLoanRules from './liquidate-loan.rules';
import {
  closeLoanItemData,
  createLoanItemData,
  createLoanStrategyItemData,
  liquidateLoanItemData,
  refinanceLoanItemData,
  repayLoanItemData,
  swapCollateralItemData,
} from './loan.inputs';
import * as loanRequestRules from './loan-request.rules';
import * as loanStrategyRules from './loan-strategy.rules';
import * as refinanceLoanRules from './refinance-loan.rules';
import * as repayLoanRules from './repay-loan.rules';
import * as swapCollateralRules from './swap-collateral.rules';

const PROTOCOL = `defiProtocol LEDGER_ESCROW: rates and ratios in cBPS (1,000,000 = 100 %); duration indexes ${durationDays.map((d, i) => `${i} = ${d} day${d > 1 ? 's' : ''}`).join(', ')}; simple interest per second, principalDue × apy / 1,000,000 / 31,536,000. See docs/loans.md.`;

export const loanOperations = {
  CREATE_LOAN_STRATEGY: defineOperation({
    input: createLoanStrategyItemData,
    validate: loanStrategyRules.validateCreateLoanStrategy,
    rules: loanStrategyRules,
    route: {
      operationId: 'createLoanStrategy',
      method: 'post',
      path: '/api/v1/loans/strategies',
      tag: 'Loans',
      summary: `Create Loan Strategy: a lender vault. strategy is the vault's account payload (spec 2.3; a new managed account, offchain reference type DEFI_SETTLEMENT_WALLET by default, debit limits and webhooks as any account); lender the lending account; principal the instrument it lends; collateral the instruments it accepts with apy per duration index, loanToValueRatio (the limit a loan may open at) and liquidationRatio (above it). originationsEnabled (default true) switches new loans; originationCap caps the principal owed on its OPEN and OVERDUE loans; liquidityBuffer is what the vault keeps; rollover (default false) starts a new term at maturity. The lender funds the vault with Transfer into the vault's position of the principal (initializeDestinationPositionIfNeeded). ${PROTOCOL}`,
      successStatus: 201,
      body: 'CreateLoanStrategyRequest',
      response: createLoanStrategyResponse,
      example: loanExamples.createLoanStrategy,
      creates: true,
      answer: 'newLoanStrategy',
    },
  }),
  CREATE_LOAN: defineOperation({
    input: createLoanItemData,
    validate: (item) => loanRequestRules.validateCreateLoan(item),
    rules: createLoanRules,
    route: {
      operationId: 'createLoan',
      method: 'post',
      path: '/api/v1/loans',
      tag: 'Loans',
      summary: `Create Loan (spec 4.4): a new escrow wallet (a managed account the service holds); the pledged items move from the borrower's positions into the escrow (topped up first in the same transaction by transferFrom, another of the borrower's positions, or mintAsset), the principal from the strategy's vault to the borrower's position (transferTo, or positionLookup), in one network transaction. svmTransactionConfig.feePayer must be the borrower, who owns every position named. Refused before anything is signed: a strategy that does not accept a collateral or lend for the duration (400), originations off, the origination cap or the liquidity buffer exceeded, a missing price (409 CONFLICT), expectedLoanValues that are not the current quote (409 CONFLICT: expectedApy is the highest APY of the pledged instruments at durationIndex, expectedLqt their liquidation ratios in order), a loan-to-value above the strategy's limit (400; a loan whose collateral is its principal needs no price). A frozen-by-default collateral is thawed in the same transaction (no transferFrom or mintAsset for it). Debit limits, approvals and webhooks apply as to any transfer. The term runs from the landing of the transaction; OVERDUE ${GRACE_HOURS} h of grace after maturity. ${PROTOCOL}`,
      successStatus: 201,
      body: 'CreateLoanRequest',
      response: createLoanResponse,
      example: loanExamples.createLoan,
      creates: true,
      extraRecords: ['escrow'],
    },
  }),
  REPAY_LOAN: defineOperation({
    input: repayLoanItemData,
    validate: (item) => loanRequestRules.validateRepayLoan(item),
    rules: repayLoanRules,
    route: {
      operationId: 'repayLoan',
      method: 'patch',
      path: '/api/v1/loans/repay',
      tag: 'Loans',
      summary:
        "Repay Loan (spec 4.4): itemsToRepay (one, in the principal) moves from the borrower's position (topped up first by transferFrom or mintAsset) into the strategy's vault, interest first (accrued to the landing of the transaction), then principal; repayAll pays everything owed when the request is looked up and settles the loan (REPAID). itemsToRelease move collateral from the escrow back to the borrower's positions, only while what remains keeps the loan's loan-to-value (principal due and interest over the collateral) within its limit (400 otherwise), any amount once repaid. One network transaction; the fee payer must be the borrower. A loan that is not OPEN or OVERDUE: 409.",
      successStatus: 200,
      body: 'RepayLoanRequest',
      response: transactionResult,
      example: loanExamples.repayLoan,
    },
  }),
  SWAP_COLLATERAL: defineOperation({
    input: swapCollateralItemData,
    validate: (item) => loanRequestRules.validateSwapCollateral(item),
    rules: swapCollateralRules,
    route: {
      operationId: 'swapCollateral',
      method: 'patch',
      path: '/api/v1/loans/swap-collateral',
      tag: 'Loans',
      summary:
        "Swap Collateral (spec 4.4): itemsToDeposit move from the borrower's positions into the escrow (collateral the strategy accepts; topped up first by transferFrom or mintAsset), itemsToWithdraw from the escrow back to the borrower's positions (positionLookup and value only), in one network transaction, only while the loan stays within its loan-to-value limit afterwards (400 naming itemData.itemsToWithdraw). The fee payer must be the borrower, who owns every position named. A loan that is not OPEN or OVERDUE: 409.",
      successStatus: 200,
      body: 'SwapCollateralRequest',
      response: transactionResult,
      example: loanExamples.swapCollateral,
    },
  }),
  REFINANCE_LOAN: defineOperation({
    input: refinanceLoanItemData,
    rules: refinanceLoanRules,
    route: {
      operationId: 'refinanceLoan',
      method: 'patch',
      path: '/api/v1/loans/refinance',
      tag: 'Loans',
      summary:
        "Refinance Loan (spec 4.4) with the same lender (toLender omitted or the loan's lender): a new term of durationIndex from now at the strategy's current rate for the loan's collateral, the accrued interest added to principalDue; the loan is OPEN again. No value moves, so no network transaction: the answer is the write's transaction record (success true, onchainId null, status FINALIZED). The fee payer, when named, must be the borrower. To another lender's strategy (toLender: its vault account): in one network transaction the new vault pays the old vault principal and interest accrued until the request is looked up, and the loan becomes the new strategy's (lender, rate for durationIndex, a new term from the landing, principalDue = what was paid), with Create Loan's guards on the new strategy (accepted collateral, originations on, cap, buffer, loan-to-value at oracle prices within its limit); the fee payer must be the borrower. A strategy with rollover: true does this at maturity on its own.",
      successStatus: 200,
      body: 'RefinanceLoanRequest',
      response: transactionResult,
      example: loanExamples.refinanceLoan,
    },
  }),
  CLOSE_LOAN: defineOperation({
    input: closeLoanItemData,
    rules: closeLoanRules,
    route: {
      operationId: 'closeLoan',
      method: 'patch',
      path: '/api/v1/loans/close',
      tag: 'Loans',
      summary:
        "Close Loan: a REPAID loan's remaining collateral goes back to the borrower's positions (a LIQUIDATED loan's, if any is left, to the lender's vault), the escrow's token accounts are closed with their rent refunded to refundDestination (default: the fee payer, who must be the borrower); the escrow account record becomes CLOSED and the loan CLOSED. Another status: 409.",
      successStatus: 200,
      body: 'CloseLoanRequest',
      response: transactionResult,
      example: loanExamples.closeLoan,
    },
  }),
  LIQUIDATE_LOAN: defineOperation({
    input: liquidateLoanItemData,
    rules: liquidateLoanRules,
    route: { internal: "run by the loan's own workflow (docs/loans.md)" },
  }),
};
