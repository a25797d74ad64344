/**
 * The loan writes' rules on the request alone (the registry's validate, run before any lookup): what
 * each item carries, and values no instrument's decimals could make right or that move nothing. The
 * handlers' rules check them again with the instrument (its decimals, the loan's holdings).
 */
import { validationError } from '../../errors';
import { checkValueAlone, type ValueInput } from '../../money';
import { requirePledges } from './create-loan.rules';
import type { CreateLoanItemData, LoanMovementItem, RepayLoanItemData, SwapCollateralItemData } from './loan.inputs';
import { requireRepayOrRelease } from './repay-loan.rules';
import { requireDepositOrWithdraw } from './swap-collateral.rules';

/** A value more than zero at every decimals (positiveUnits, before the instrument is known). */
function positiveValue(value: ValueInput, field: string): void {
  if (checkValueAlone(value, field).zero) throw validationError(field, 'the amount must be more than zero');
}

/** An item out of the escrow (a release, a withdrawal): positionLookup and value only (checkOutOfEscrow). */
function outOfEscrow(item: LoanMovementItem, p: string, what: 'release' | 'withdraw'): void {
  if (item.repayAll || item.transferFrom || item.mintAsset)
    throw validationError(
      `${p}.${item.repayAll ? 'repayAll' : item.transferFrom ? 'transferFrom' : 'mintAsset'}`,
      `a ${what === 'release' ? 'release' : 'withdrawal'} takes positionLookup and value only`,
    );
  if (!item.value) throw validationError(`${p}.value`, `give the value to ${what}`);
  positiveValue(item.value, `${p}.value`);
}

export function validateCreateLoan(item: CreateLoanItemData): void {
  requirePledges(item.itemsToPledge);
  item.itemsToBorrow.forEach((borrow, i) => positiveValue(borrow.value, `itemData.itemsToBorrow[${i}].value`));
  item.itemsToPledge.forEach((pledge, i) => positiveValue(pledge.value, `itemData.itemsToPledge[${i}].value`));
}

export function validateRepayLoan(item: RepayLoanItemData): void {
  const repays = item.itemsToRepay ?? [];
  requireRepayOrRelease(repays, item.itemsToRelease ?? []);
  repays.forEach((repay, i) => {
    const p = `itemData.itemsToRepay[${i}]`;
    if (!!repay.repayAll === !!repay.value) throw validationError(`${p}.value`, 'give value or repayAll (one of them)');
    if (repay.value) positiveValue(repay.value, `${p}.value`);
  });
  item.itemsToRelease?.forEach((release, i) => outOfEscrow(release, `itemData.itemsToRelease[${i}]`, 'release'));
}

export function validateSwapCollateral(item: SwapCollateralItemData): void {
  const deposits = item.itemsToDeposit ?? [];
  requireDepositOrWithdraw(deposits, item.itemsToWithdraw ?? []);
  deposits.forEach((deposit, i) => {
    const p = `itemData.itemsToDeposit[${i}]`;
    if (deposit.repayAll) throw validationError(`${p}.repayAll`, 'repayAll belongs to Repay Loan');
    if (!deposit.value) throw validationError(`${p}.value`, 'give the value to deposit');
    positiveValue(deposit.value, `${p}.value`);
  });
  item.itemsToWithdraw?.forEach((withdrawal, i) => outOfEscrow(withdrawal, `itemData.itemsToWithdraw[${i}]`, 'withdraw'));
}
