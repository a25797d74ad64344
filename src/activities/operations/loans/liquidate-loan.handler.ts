/**
 * Liquidation (API.md 7), run by the loan's own workflow: an OVERDUE loan past its grace period, or
 * one whose loan-to-value passed its liquidation ratio, gives its collateral to the lender: every
 * escrow balance moves to the vault's positions, in one network transaction signed by the escrow;
 * the loan becomes LIQUIDATED (Close Loan then closes the escrow).
 */
import { Account, FinancialInstrument, Loan, LoanStrategy, Position } from '../../../db/entities';
import type { LiquidateLoanItemData } from '../../../domain/operations/loans/loan.inputs';
import { liquidatedLoanFields, pastGrace, requireLiquidatable, requirePastLiquidationRatio, type LiquidationReason } from '../../../domain/operations/loans/liquidate-loan.rules';
import { legInstructions } from '../../../domain/operations/positions/movement-instructions';
import { settleFreezes, type Leg } from '../../../domain/operations/positions/movement.rules';
import { resolveFeePayer } from '../fee-payer';
import { holdLoanFor, loanOfEscrow, planOutOf, withoutDebits } from './loan-legs';
import { currentLoanToValue } from './loan-value';
import { newPlanContext, onchainBalance, recordLegs, type PlannedLeg } from '../positions/movement-legs';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { signerSet } from '../../../domain/write';

interface LiquidateLoanData {
  legs: Leg[];
  loanId: string;
  reason: LiquidationReason;
}


export const liquidateLoanHandler: OperationHandler<LiquidateLoanItemData, LiquidateLoanData> = {
  async lookup(em, deps, request) {
    const scope = scopeOf(request);
    const loan = await loanOfEscrow(em, scope, request.itemData.escrow, 'itemData.escrow');
    await holdLoanFor(em, request, loan);
    requireLiquidatable(loan);
    const now = deps.now();
    let reason: LiquidationReason = 'OVERDUE';
    if (!pastGrace(loan, now, deps.loanSecondsPerDay ?? 86_400)) {
      requirePastLiquidationRatio(loan, await currentLoanToValue(em, deps, loan, now, 'itemData.escrow'));
      reason = 'LIQUIDATION_RATIO';
    }
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig);
    const vault = await em.findOneOrFail(Account, { ...scope, address: (await em.findOneOrFail(LoanStrategy, { id: loan.strategyId })).vaultAddress });
    const ctx = newPlanContext(em, deps, request, {});
    const planned: PlannedLeg[] = [];
    for (const position of await em.find(Position, { ...scope, ownerAddress: loan.escrowAddress, status: 'ACTIVE' }, { orderBy: { address: 'asc' } })) {
      const units = await onchainBalance(ctx, position);
      if (units === 0n) continue;
      const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
      const destination = { owner: { offchainId: vault.id }, financialInstrument: { offchainId: instrument.id } };
      planned.push(withoutDebits(await planOutOf(ctx, position, instrument, destination, { lamports: units.toString() }, 'itemData', { source: 'itemData.escrow', destination: 'itemData.escrow' })));
    }
    settleFreezes(planned.map((x) => x.leg));
    return {
      needsTransaction: planned.length > 0,
      feePayer: feePayer.address,
      signers: signerSet(feePayer.address, planned.flatMap((x) => x.signers)),
      debits: [],
      webhooks: feePayer.webhooks,
      data: { legs: planned.map((x) => x.leg), loanId: loan.id, reason },
    };
  },

  instructions(_request, resolved) {
    return resolved.data.legs.flatMap((leg) => legInstructions(leg, resolved.feePayer));
  },

  async record(em, request, resolved, outcome, tx, at) {
    // Nothing left in the escrow (no transaction): the loan is liquidated all the same.
    if (outcome && !landed(outcome)) return undefined;
    const d = resolved.data;
    await recordLegs(em, request, d.legs, tx, at);
    const loan = await em.findOneOrFail(Loan, { id: d.loanId });
    Object.assign(loan, {
      ...liquidatedLoanFields(loan, at),
      lastTransactionId: tx?.id ?? loan.lastTransactionId,
      updatedAt: at,
    });
    linkRecords(tx, [loan.escrowAccountId]);
    return undefined;
  },
};
