/**
 * Swap Collateral (spec 4.4) in the pipeline: deposits from the borrower's positions into the escrow
 * (topped up first by transferFrom or mintAsset, collateral the strategy accepts), withdrawals from
 * the escrow back to the borrower's positions, in one network transaction, only while the loan stays
 * within its loan-to-value limit afterwards. The loan's pledged items move in the record step.
 */
import { FinancialInstrument, Position } from '../../../db/entities';
import type { SwapCollateralItemData } from '../../../domain/operations/loans/loan.inputs';
import { interestAt } from '../../../domain/loans';
import {
  checkSwapLoanToValue,
  depositUnits,
  requireCollateralChangeable,
  requireDepositOrWithdraw,
  swappedCollateralFields,
} from '../../../domain/operations/loans/swap-collateral.rules';
import { settleFreezes, type Leg } from '../../../domain/operations/positions/movement.rules';
import { borrowersLoan, changeLoan, existingPosition, planIntoEscrow, planOutOfEscrow, planTopUp, recordLoanLegs, requireBorrowerOwns } from './loan-legs';
import { heldCollateral, loanToValueAt } from './loan-value';
import { legsInstructions, legsResolution, type PlannedLeg } from '../positions/movement-legs';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';

interface SwapCollateralData {
  legs: Leg[];
  loanId: string;
  /** Base units by instrument: deposits positive, withdrawals negative. */
  changes: { financialInstrumentId: string; mintAddress: string; amount: string }[];
}

export const swapCollateralHandler: OperationHandler<SwapCollateralItemData, SwapCollateralData> = {
  holdsLoan: true,
  tooLargeHint:
    "Swap fewer items at once (a frozen-by-default collateral adds thaw instructions), or prefund the borrower's positions instead of transferFrom or mintAsset.",

  async lookup(em, deps, request) {
    const item = request.itemData;
    const { scope, loan, strategy, borrower, feePayer, ctx } = await borrowersLoan(em, deps, request, requireCollateralChangeable);
    const deposits = item.itemsToDeposit ?? [];
    const withdrawals = item.itemsToWithdraw ?? [];
    requireDepositOrWithdraw(deposits, withdrawals);
    const held = new Map(loan.pledged.map((p) => [p.financialInstrumentId, BigInt(p.amount)]));
    const planned: PlannedLeg[] = [];
    const changes: SwapCollateralData['changes'] = [];

    for (const [i, deposit] of deposits.entries()) {
      const p = `itemData.itemsToDeposit[${i}]`;
      const instrument = await requireBorrowerOwns(em, scope, borrower.address, deposit.positionLookup, `${p}.positionLookup`);
      if (deposit.transferFrom) await requireBorrowerOwns(em, scope, borrower.address, deposit.transferFrom, `${p}.transferFrom`);
      const { value, units: amount } = depositUnits(strategy, instrument, deposit, p);
      planned.push(...(await planTopUp(ctx, { ...deposit, value }, p)));
      const source = await existingPosition(em, scope, deposit.positionLookup, `${p}.positionLookup`);
      planned.push(await planIntoEscrow(ctx, deposit.positionLookup, loan.escrowAddress, instrument, value, p, source?.frozen ?? false));
      held.set(instrument.id, (held.get(instrument.id) ?? 0n) + amount);
      changes.push({ financialInstrumentId: instrument.id, mintAddress: instrument.mintAddress, amount: amount.toString() });
    }
    for (const [i, withdrawal] of withdrawals.entries()) {
      const p = `itemData.itemsToWithdraw[${i}]`;
      const { instrument, amount, planned: leg } = await planOutOfEscrow(em, ctx, scope, loan, borrower.address, withdrawal, p, 'withdrawal', held);
      planned.push(leg);
      changes.push({ financialInstrumentId: instrument.id, mintAddress: instrument.mintAddress, amount: (-amount).toString() });
    }

    const principal = await em.findOneOrFail(FinancialInstrument, { id: loan.principalInstrumentId });
    const collateral = await heldCollateral(em, held, 'itemData.itemsToWithdraw');
    checkSwapLoanToValue(
      loan,
      await loanToValueAt(deps, request.organizationId, principal, BigInt(loan.principalDue) + interestAt(loan, deps.now()), 'itemData.escrow', collateral),
    );
    settleFreezes(planned.map((x) => x.leg));
    return legsResolution(ctx, feePayer, planned, { legs: planned.map((x) => x.leg), loanId: loan.id, changes });
  },

  instructions: legsInstructions,

  async record(em, request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const d = resolved.data;
    const loan = await recordLoanLegs(em, request, d, tx, at);
    await em.flush();
    // A deposit of a new instrument opened an escrow position before the loan's record named it.
    const escrowPositions = await em.find(Position, { ...scopeOf(request), ownerAddress: loan.escrowAddress });
    for (const position of escrowPositions) position.ownerAccountId = loan.escrowAccountId;
    changeLoan(loan, swappedCollateralFields(loan.pledged, d.changes, escrowPositions), tx, at);
    return undefined;
  },
};
