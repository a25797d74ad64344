/**
 * Swap Collateral's rules (spec 4.4, docs/loans.md) over the request and the loan and strategy the
 * handler looked up: deposits of collateral the strategy accepts (a value, not topped up when frozen
 * by default), and the loan within its loan-to-value limit afterwards. Pure; withdrawals are checked
 * by loan.rules.ts's checkOutOfEscrow.
 */
import { validationError } from '../../errors';
import type { ValueInput } from '../../money';
import type { LoanMovementItem } from './loan.inputs';
import { acceptedTerms, positiveUnits, requireUnsettled, type InstrumentFacts, type LoanFacts, type PledgedItem, type StrategyFacts } from './loan.rules';

/** Only an OPEN or OVERDUE loan's collateral changes. */
export function requireCollateralChangeable(loan: Pick<LoanFacts, 'status'>): void {
  requireUnsettled(loan.status, `the loan is ${loan.status}: its collateral no longer changes`);
}

/** A swap deposits, withdraws, or both. */
export function requireDepositOrWithdraw(deposits: LoanMovementItem[], withdrawals: LoanMovementItem[]): void {
  if (deposits.length + withdrawals.length === 0) throw validationError('itemData', 'give itemsToDeposit, itemsToWithdraw or both');
}

/**
 * One deposit (`p`: its field) of `instrument`: a collateral the strategy accepts, a value (no
 * repayAll), not topped up when frozen by default, more than zero. Answers its value and units.
 */
export function depositUnits(
  strategy: Pick<StrategyFacts, 'collateral'>,
  instrument: InstrumentFacts,
  deposit: LoanMovementItem,
  p: string,
): { value: ValueInput; units: bigint } {
  acceptedTerms(strategy, instrument, `${p}.positionLookup`);
  if (deposit.repayAll) throw validationError(`${p}.repayAll`, 'repayAll belongs to Repay Loan');
  if (!deposit.value) throw validationError(`${p}.value`, 'give the value to deposit');
  if (instrument.defaultPositionState === 'FROZEN' && (deposit.transferFrom || deposit.mintAsset))
    throw validationError(
      deposit.transferFrom ? `${p}.transferFrom` : `${p}.mintAsset`,
      `${instrument.mintAddress} is frozen by default: prefund the position instead`,
    );
  return { value: deposit.value, units: positiveUnits(deposit.value, instrument.decimals, `${p}.value`) };
}

/** After the swap the loan (principal and interest over what the escrow holds) is at `ltv` cBPS, at most its limit. */
export function checkSwapLoanToValue(loan: Pick<LoanFacts, 'loanToValueRatio'>, ltv: bigint): void {
  if (ltv > BigInt(loan.loanToValueRatio))
    throw validationError(
      'itemData.itemsToWithdraw',
      `after the swap the loan-to-value would be ${ltv} cBPS, above its limit of ${loan.loanToValueRatio}: withdraw less or deposit more`,
    );
}

/**
 * The loan's pledged items after the swap's `changes` (base units, withdrawals negative): a new
 * instrument becomes an item held in the escrow's position of it (`escrowPositions`).
 */
export function swappedCollateralFields(
  pledged: PledgedItem[],
  changes: { financialInstrumentId: string; mintAddress: string; amount: string }[],
  escrowPositions: { financialInstrumentId: string; address: string }[],
) {
  const after: PledgedItem[] = pledged.map((p) => ({ ...p }));
  for (const change of changes) {
    const item = after.find((p) => p.financialInstrumentId === change.financialInstrumentId);
    if (item) item.amount = (BigInt(item.amount) + BigInt(change.amount)).toString();
    else
      after.push({
        financialInstrumentId: change.financialInstrumentId,
        mintAddress: change.mintAddress,
        amount: change.amount,
        escrowPosition: escrowPositions.find((x) => x.financialInstrumentId === change.financialInstrumentId)!.address,
      });
  }
  return { pledged: after, collateralMints: after.map((p) => p.mintAddress), collateralInstrumentIds: after.map((p) => p.financialInstrumentId) };
}
