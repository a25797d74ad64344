/**
 * Request fields whose proof is not a test case calling their operation by route or name: a
 * mechanism shared by every operation (tested once, for all), or a rule's unit test that calls the
 * rule directly. `*.field` stands for the field in every request schema. A value is a test file
 * (which must name the field) or `src/…#export` (a rule, which must exist). The field sweep
 * (test/unit/field-sweep.test.ts) checks both.
 */
export const ruleProofs: Record<string, string> = {
  // One mechanism for every request: tenancy overrides, the transaction config, idempotency.
  '*.tenancyConfig': 'test/e2e/tenancy-sweep.test.ts',
  '*.svmTransactionConfig': 'test/e2e/fee-payer.test.ts',
  '*.idempotencyId': 'test/e2e/idempotency.test.ts',
  // V0 is the only value the codec takes (every message the service builds is V0).
  'SvmTransactionConfig.transactionVersion': 'test/unit/common.codecs.test.ts',
  // Movement options, by the movement rules' unit tests.
  'BurnItemData.unfreeze': 'test/unit/movement.operation.test.ts',
  'BurnItemData.offchainBalanceAvailabilityPrecheck': 'test/unit/movement.operation.test.ts',
  'TransferItemData.unfreezeSource': 'test/unit/movement.operation.test.ts',
  'TransferItemData.freezeDestination': 'test/unit/movement.operation.test.ts',
  'TransferOperation.unfreezeSource': 'test/unit/movement.operation.test.ts',
  'TransferOperation.freezeSource': 'test/unit/movement.operation.test.ts',
  'TransferOperation.freezeDestination': 'test/unit/movement.operation.test.ts',
  'TransferOperation.transferEntireBalance': 'test/unit/movement.operation.test.ts',
  // Loan terms and legs, by the loan rules' unit tests.
  'CreateLoanStrategyItemData.originationsEnabled': 'test/unit/loans/lending.rules.test.ts',
  'CreateLoanStrategyItemData.liquidityBuffer': 'test/unit/loans/lending.rules.test.ts',
  'ItemToPledge.transferFrom': 'test/unit/loans/create-loan.rules.test.ts',
  'LoanMovementItem.transferFrom': 'test/unit/loans/swap-collateral.rules.test.ts',
  'CloseLoanItemData.refundDestination': 'test/unit/loans/close-loan.rules.test.ts',
};
