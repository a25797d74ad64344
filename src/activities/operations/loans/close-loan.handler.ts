/**
 * Close Loan (docs/loans.md) in the pipeline: a REPAID loan's remaining collateral goes back to the
 * borrower's positions (a LIQUIDATED loan's, if any is left, to the vault), the escrow's token
 * accounts are closed with their rent refunded (refundDestination, or the borrower who pays the
 * fees), in one network transaction; the escrow's record becomes CLOSED and the loan CLOSED.
 */
import { getCloseAccountInstruction, type TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import { address, createNoopSigner } from '@solana/kit';
import { Account, FinancialInstrument, Loan, Position } from '../../../db/entities';
import { closeAccountRecord, findAccountByLookup, offPlatformAddress } from '../../../db/repositories/accounts.repository';
import type { CloseLoanItemData } from '../../../domain/operations/loans/loan.inputs';
import { closedLoanFields, leftoverGoesToBorrower, requireClosable, requireRefundElsewhere } from '../../../domain/operations/loans/close-loan.rules';
import { legInstructions } from '../../../domain/operations/positions/movement-instructions';
import { settleFreezes, type Leg } from '../../../domain/operations/positions/movement.rules';
import { borrowersLoan, changeLoan, planEmptyEscrow } from './loan-legs';
import { legsResolution, recordLegs } from '../positions/movement-legs';
import { landed, type OperationHandler } from '../operation-handler';
import { tokenProgramOf } from '../positions/token-movement';

interface CloseLoanData {
  legs: Leg[];
  loanId: string;
  escrow: string;
  escrowAccountId: string;
  refundTo: string;
  closes: { positionId: string; address: string; tokenProgram: string }[];
}

export const closeLoanHandler: OperationHandler<CloseLoanItemData, CloseLoanData> = {
  holdsLoan: true,
  async lookup(em, deps, request) {
    const item = request.itemData;
    const { scope, loan, strategy, feePayer, ctx } = await borrowersLoan(em, deps, request, requireClosable);
    const escrow = await em.findOneOrFail(Account, { id: loan.escrowAccountId });
    let refundTo = feePayer.address;
    if (item.refundDestination) {
      const field = 'itemData.refundDestination';
      refundTo = item.refundDestination.offPlatform
        ? offPlatformAddress(item.refundDestination, field)
        : (await findAccountByLookup(em, scope, item.refundDestination, field)).address;
      requireRefundElsewhere(refundTo, escrow.address);
    }
    // What is left goes back to the borrower (repaid) or to the lender's vault (liquidated).
    const to = leftoverGoesToBorrower(loan) ? loan.borrowerAddress : strategy.vaultAddress;
    const toAccount = await em.findOneOrFail(Account, { ...scope, address: to });
    const { positions, planned } = await planEmptyEscrow(ctx, scope, escrow.address, toAccount.id);
    settleFreezes(planned.map((x) => x.leg));
    const closes = [];
    for (const position of positions)
      closes.push({
        positionId: position.id,
        address: position.address,
        tokenProgram: tokenProgramOf(await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId })),
      });
    // The escrow signs its positions' closes; its legs carry no debits (withoutDebits).
    return legsResolution(
      ctx,
      feePayer,
      planned,
      { legs: planned.map((x) => x.leg), loanId: loan.id, escrow: escrow.address, escrowAccountId: escrow.id, refundTo, closes },
      [escrow.address],
    );
  },

  instructions(_request, resolved) {
    const d = resolved.data;
    return [
      ...d.legs.flatMap((leg) => legInstructions(leg, resolved.feePayer)),
      ...d.closes.map((c) =>
        getCloseAccountInstruction(
          { account: address(c.address), destination: address(d.refundTo), owner: createNoopSigner(address(d.escrow)) },
          { programAddress: address(c.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS },
        ),
      ),
    ];
  },

  async record(em, request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const d = resolved.data;
    await recordLegs(em, request, d.legs, tx, at);
    for (const c of d.closes) {
      const position = await em.findOneOrFail(Position, { id: c.positionId });
      Object.assign(position, { status: 'INACTIVE', frozen: false, balance: '0', lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
    }
    await closeAccountRecord(em, d.escrowAccountId, '0', tx, at);
    const loan = await em.findOneOrFail(Loan, { id: d.loanId });
    changeLoan(loan, closedLoanFields(loan), tx, at, [d.escrowAccountId, ...d.closes.map((c) => c.positionId)]);
    return undefined;
  },

  /** The loan's workflow reads the loan again (a settled loan ends it). */
  async reconcile(em, deps, request, resolved) {
    const loan = await em.findOneOrFail(Loan, { id: resolved.data.loanId });
    await deps.loans?.changed(request.organizationId, loan.escrowAddress);
  },
};
