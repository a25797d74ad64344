/**
 * Repay Loan (spec 4.4) in the pipeline: the repayment from the borrower's position into the
 * strategy's vault (interest first, then principal), and collateral released from the escrow to the
 * borrower's positions while what remains keeps the loan within its loan-to-value limit; one
 * network transaction. The loan's balances move in the record step, with interest to the landing.
 */
import { FinancialInstrument, Loan } from '../../../db/entities';
import type { RepayLoanItemData } from '../../../domain/operations/loans/loan.inputs';
import { interestAt } from '../../../domain/loans';
import {
  balanceAfterRepayment,
  checkReleaseLoanToValue,
  repaidLoanFields,
  repaymentUnits,
  requireOwing,
  requireRepayOrRelease,
} from '../../../domain/operations/loans/repay-loan.rules';
import { settleFreezes, type Leg } from '../../../domain/operations/positions/movement.rules';
import { borrowersLoan, changeLoan, planOutOfEscrow, recordLoanLegs, planTopUp, renamed, requireBorrowerOwns, vaultPosition } from './loan-legs';
import { heldCollateral, loanToValueAt } from './loan-value';
import { legsInstructions, legsResolution, type PlannedLeg, planTransfer } from '../positions/movement-legs';
import { landed, type OperationHandler } from '../operation-handler';

interface RepayLoanData {
  legs: Leg[];
  loanId: string;
  /** Base units paid into the vault (0: a release only). */
  paid: string;
  repayAll: boolean;
  released: { financialInstrumentId: string; amount: string }[];
}

export const repayLoanHandler: OperationHandler<RepayLoanItemData, RepayLoanData> = {
  holdsLoan: true,
  async lookup(em, deps, request) {
    const item = request.itemData;
    const { scope, loan, strategy, borrower, feePayer, ctx } = await borrowersLoan(em, deps, request, requireOwing);
    const repays = item.itemsToRepay ?? [];
    const releases = item.itemsToRelease ?? [];
    requireRepayOrRelease(repays, releases);

    const principal = await em.findOneOrFail(FinancialInstrument, { id: loan.principalInstrumentId });
    const planned: PlannedLeg[] = [];
    const interest = interestAt(loan, deps.now());
    const owed = BigInt(loan.principalDue) + interest;
    let paid = 0n;
    const repayAll = repays[0]?.repayAll ?? false;
    for (const [i, repay] of repays.entries()) {
      const p = `itemData.itemsToRepay[${i}]`;
      const instrument = await requireBorrowerOwns(em, scope, borrower.address, repay.positionLookup, `${p}.positionLookup`);
      paid = repaymentUnits(principal, instrument, repay, p, owed);
      const value = { lamports: paid.toString() };
      planned.push(...(await planTopUp(ctx, { ...repay, value }, p)));
      const vault = await vaultPosition(em, scope, strategy.vaultAddress, principal, 'itemData.escrow');
      planned.push(
        await renamed(() => planTransfer(ctx, { source: repay.positionLookup, destination: { position: { offchainId: vault.id } }, value }, p), {
          [`${p}.source`]: `${p}.positionLookup`,
          [`${p}.destination`]: 'itemData.escrow',
          [`${p}.value`]: repay.repayAll ? `${p}.repayAll` : `${p}.value`,
        }),
      );
    }

    const after = balanceAfterRepayment(loan, interest, paid, repayAll);
    const remaining = new Map(loan.pledged.map((p) => [p.financialInstrumentId, BigInt(p.amount)]));
    const released: RepayLoanData['released'] = [];
    for (const [i, release] of releases.entries()) {
      const p = `itemData.itemsToRelease[${i}]`;
      const { instrument, amount, planned: leg } = await planOutOfEscrow(em, ctx, scope, loan, borrower.address, release, p, 'release', remaining);
      planned.push(leg);
      released.push({ financialInstrumentId: instrument.id, amount: amount.toString() });
    }
    if (releases.length && !after.settled) {
      const collateral = await heldCollateral(em, remaining, 'itemData.itemsToRelease');
      checkReleaseLoanToValue(
        loan,
        await loanToValueAt(deps, request.organizationId, principal, after.principalDue + after.interestOutstanding, 'itemData.itemsToRelease', collateral),
      );
    }
    settleFreezes(planned.map((x) => x.leg));
    return legsResolution(ctx, feePayer, planned, { legs: planned.map((x) => x.leg), loanId: loan.id, paid: paid.toString(), repayAll, released });
  },

  instructions: legsInstructions,

  async record(em, request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const d = resolved.data;
    const loan = await recordLoanLegs(em, request, d, tx, at);
    changeLoan(loan, repaidLoanFields(loan, BigInt(d.paid), d.repayAll, d.released, at), tx, at);
    return undefined;
  },

  /** The loan's workflow reads the loan again (a settled loan ends it). */
  async reconcile(em, deps, request, resolved) {
    const loan = await em.findOneOrFail(Loan, { id: resolved.data.loanId });
    await deps.loans?.changed(request.organizationId, loan.escrowAddress);
  },
};
