/**
 * Create Loan Strategy (docs/loans.md): the vault is a new managed account (the strategy's account
 * payload, spec 2.3) and the terms it lends on. The request's own rules (`validateCreateLoanStrategy`,
 * run by the API), and those over what the lookup resolves: the lender and the instruments.
 */
import type { CreateLoanStrategyItemData } from './loan.inputs';
import { LedgerError, validationError } from '../../errors';
import { durationDays, type CollateralTerms } from '../../loans';
import { validateCreateAccount, type CreateAccountPermissions } from '../accounts/create-account.rules';
import type { InstrumentFacts } from './loan.rules';

/**
 * A strategy's collateral terms on the request alone: a rate per duration index it lends for (1 to
 * 5 of them), a loan-to-value limit above 0 and a liquidation ratio above it, both at most 100 %.
 */
export function checkCollateralTerms(terms: Pick<CollateralTerms, 'apy' | 'loanToValueRatio' | 'liquidationRatio'>, p: string): void {
  if (terms.apy.length === 0 || terms.apy.length > durationDays.length)
    throw validationError(
      `${p}.apy`,
      `${p}.apy holds one rate (cBPS) per duration index, 1 to ${durationDays.length} of them (index 0 = 1 day … 4 = 180 days)`,
    );
  if (terms.loanToValueRatio <= 0) throw validationError(`${p}.loanToValueRatio`, `${p}.loanToValueRatio must be more than 0`);
  if (terms.liquidationRatio <= terms.loanToValueRatio)
    throw validationError(
      `${p}.liquidationRatio`,
      `${p}.liquidationRatio must be more than loanToValueRatio (a loan opened at the limit would be liquidated at once)`,
    );
}

/** The vault payload's own rules, their fields named under itemData.strategy. */
function validateVault(item: CreateLoanStrategyItemData, can: CreateAccountPermissions): void {
  const vault = item.strategy;
  if (vault.managed === false)
    throw validationError('itemData.strategy.managed', "the vault is a managed account: the service moves the principal out of it by the loans' rules");
  if (vault.alreadyOnchain) throw validationError('itemData.strategy.alreadyOnchain', 'the vault is a new account made by this request');
  if (vault.offchainReferences?.type && vault.offchainReferences.type !== 'DEFI_SETTLEMENT_WALLET' && vault.offchainReferences.type !== 'WALLET') {
    throw validationError('itemData.strategy.offchainReferences.type', 'a vault is a WALLET or DEFI_SETTLEMENT_WALLET (the default)');
  }
  try {
    validateCreateAccount(vault, can);
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    throw new LedgerError(error.code, error.message.replaceAll('itemData.', 'itemData.strategy.'), error.field?.replace(/^itemData\./, 'itemData.strategy.'));
  }
}

/** The request's own rules (the registry's `validate`): the vault payload, at least one collateral, terms a loan can live by. */
export function validateCreateLoanStrategy(item: CreateLoanStrategyItemData, can: CreateAccountPermissions): void {
  validateVault(item, can);
  if (item.collateral.length === 0) throw validationError('itemData.collateral', 'a strategy accepts at least one collateral instrument');
  item.collateral.forEach((terms, i) => checkCollateralTerms(terms, `itemData.collateral[${i}]`));
}

/** The lender's account is ACTIVE. */
export function requireActiveLender(status: string): void {
  if (status !== 'ACTIVE') throw validationError('itemData.lender', `the lender account is ${status}`);
}

/** A collateral instrument is listed once (`listed`: the instrument ids of the items before it). */
export function requireListedOnce(listed: string[], instrument: InstrumentFacts, field: string): void {
  if (listed.includes(instrument.id)) throw validationError(field, `the instrument ${instrument.mintAddress} is listed twice`);
}

/** What Create Loan Strategy's lookup resolved of the strategy (the vault's part is Create Account's). */
export interface NewStrategy {
  lender: { address: string; id: string };
  principal: { id: string; mint: string };
  collateral: CollateralTerms[];
  originationCap: string | null;
  liquidityBuffer: string | null;
}

/** The strategy's record once its vault landed at `at`: lending on by default, no rollover unless asked. */
export function loanStrategyRecord(
  item: Pick<CreateLoanStrategyItemData, 'originationsEnabled' | 'rollover'>,
  strategy: NewStrategy,
  vaultAddress: string,
  transactionId: string | null,
  at: Date,
) {
  return {
    vaultAddress,
    lenderAddress: strategy.lender.address,
    lenderAccountId: strategy.lender.id,
    principalInstrumentId: strategy.principal.id,
    principalMint: strategy.principal.mint,
    collateral: strategy.collateral,
    collateralMints: strategy.collateral.map((c) => c.mintAddress),
    originationsEnabled: item.originationsEnabled ?? true,
    originationCap: strategy.originationCap,
    liquidityBuffer: strategy.liquidityBuffer,
    rollover: item.rollover ?? false,
    creationTransactionId: transactionId,
    createdAt: at,
    updatedAt: at,
  };
}
