/**
 * Liquidation (API.md 7), run by the loan's own workflow: an OVERDUE loan past its grace period, or
 * one whose loan-to-value passed its liquidation ratio, gives its collateral to the lender: every
 * escrow balance moves to the vault's positions, in one network transaction signed by the escrow;
 * the loan becomes LIQUIDATED (Close Loan then closes the escrow).
 */
import { Account, FinancialInstrument, Loan, LoanStrategy, Position } from '../../db/entities';
import { conflict } from '../../domain/errors';
import type { LiquidateLoanItemData } from '../../domain/inputs/loan.inputs';
import { GRACE_HOURS, interestAt } from '../../domain/loans';
import { legInstructions } from '../../domain/operations/movement-instructions';
import { settleFreezes, type Leg } from '../../domain/operations/movement.operation';
import { resolveFeePayer } from './fee-payer';
import { holdLoanFor, loanOfEscrow, planOutOf, scopeOf, withoutDebits } from './loan-legs';
import { currentLoanToValue } from './loan-value';
import { newPlanContext, onchainBalance, recordLegs, type PlannedLeg } from './movement-legs';
import { landed, type OperationHandler } from './operation-handler';

interface LiquidateLoanData {
  legs: Leg[];
  loanId: string;
  reason: 'OVERDUE' | 'LIQUIDATION_RATIO';
}


export const liquidateLoanHandler: OperationHandler<LiquidateLoanItemData, LiquidateLoanData> = {
  async lookup(em, deps, request) {
    const scope = scopeOf(request);
    const loan = await loanOfEscrow(em, scope, request.itemData.escrow, 'itemData.escrow');
    await holdLoanFor(em, request, loan);
    if (loan.status !== 'OPEN' && loan.status !== 'OVERDUE') throw conflict('itemData.escrow', `the loan is ${loan.status}`);
    const now = deps.now();
    const graceMs = GRACE_HOURS * 3600 * 1000 * ((deps.loanSecondsPerDay ?? 86_400) / 86_400);
    const overdue = loan.status === 'OVERDUE' && now.getTime() >= loan.maturityAt.getTime() + graceMs;
    let reason: LiquidateLoanData['reason'] = 'OVERDUE';
    if (!overdue) {
      const ltv = await currentLoanToValue(em, deps, loan, now, 'itemData.escrow');
      if (ltv <= BigInt(loan.liquidationRatio)) throw conflict('itemData.escrow', `the loan is ${loan.status}, within its grace period and at a loan-to-value of ${ltv} cBPS, not past its liquidation ratio ${loan.liquidationRatio}`);
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
      signers: [...new Set([feePayer.address, ...planned.flatMap((x) => x.signers)])],
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
      status: 'LIQUIDATED',
      interestOutstanding: interestAt(loan, at).toString(),
      lastInterestUpdateTime: at,
      pledged: loan.pledged.map((p) => ({ ...p, amount: '0' })),
      lastTransactionId: tx?.id ?? loan.lastTransactionId,
      updatedAt: at,
    });
    if (tx) tx.accountIds = [...new Set([...tx.accountIds, loan.escrowAccountId])];
    return undefined;
  },
};
