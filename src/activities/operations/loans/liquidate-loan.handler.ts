/**
 * Liquidation (docs/loans.md), run by the loan's own workflow: an OVERDUE loan past its grace period, or
 * one whose loan-to-value passed its liquidation ratio, gives its collateral to the lender: every
 * escrow balance moves to the vault's positions, in one network transaction signed by the escrow;
 * the loan becomes LIQUIDATED (Close Loan then closes the escrow).
 */
import { Account, LoanStrategy } from '../../../db/entities';
import type { LiquidateLoanItemData } from '../../../domain/operations/loans/loan.inputs';
import {
  liquidatedLoanFields,
  pastGrace,
  requireLiquidatable,
  requirePastLiquidationRatio,
  type LiquidationReason,
} from '../../../domain/operations/loans/liquidate-loan.rules';
import { settleFreezes, type Leg } from '../../../domain/operations/positions/movement.rules';
import { resolveFeePayer } from '../fee-payer';
import { changeLoan, heldLoan, planEmptyEscrow, recordLoanLegs } from './loan-legs';
import { currentLoanToValue } from './loan-value';
import { legsInstructions, newPlanContext } from '../positions/movement-legs';
import { landed, type OperationHandler } from '../operation-handler';
import { signerSet } from '../../../domain/write';

interface LiquidateLoanData {
  legs: Leg[];
  loanId: string;
  reason: LiquidationReason;
}

export const liquidateLoanHandler: OperationHandler<LiquidateLoanItemData, LiquidateLoanData> = {
  holdsLoan: true,
  async lookup(em, deps, request) {
    const { scope, loan } = await heldLoan(em, request, requireLiquidatable);
    const now = deps.now();
    let reason: LiquidationReason = 'OVERDUE';
    if (!pastGrace(loan, now, deps.loanSecondsPerDay ?? 86_400)) {
      requirePastLiquidationRatio(loan, await currentLoanToValue(em, deps, loan, now, 'itemData.escrow'));
      reason = 'LIQUIDATION_RATIO';
    }
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig);
    const vault = await em.findOneOrFail(Account, { ...scope, address: (await em.findOneOrFail(LoanStrategy, { id: loan.strategyId })).vaultAddress });
    const ctx = newPlanContext(em, deps, request, {});
    const { planned } = await planEmptyEscrow(ctx, scope, loan.escrowAddress, vault.id);
    settleFreezes(planned.map((x) => x.leg));
    return {
      needsTransaction: planned.length > 0,
      feePayer: feePayer.address,
      signers: signerSet(
        feePayer.address,
        planned.flatMap((x) => x.signers),
      ),
      debits: [],
      webhooks: feePayer.webhooks,
      data: { legs: planned.map((x) => x.leg), loanId: loan.id, reason },
    };
  },

  instructions: legsInstructions,

  async record(em, request, resolved, outcome, tx, at) {
    // Nothing left in the escrow (no transaction): the loan is liquidated all the same.
    if (outcome && !landed(outcome)) return undefined;
    const d = resolved.data;
    const loan = await recordLoanLegs(em, request, d, tx, at);
    changeLoan(loan, liquidatedLoanFields(loan, at), tx, at);
    return undefined;
  },
};
