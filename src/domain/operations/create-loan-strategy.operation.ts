/**
 * Create Loan Strategy (API.md 6): the vault is a new managed account (the strategy's account
 * payload, spec 2.3) and the terms it lends on. The request's own rules; the lookup resolves the
 * lender and the instruments.
 */
import type { CreateLoanStrategyItemData } from '../inputs/loan.inputs';
import { LedgerError, validationError } from '../errors';
import { checkCollateralTerms } from '../loans';
import { validateCreateAccount, type CreateAccountPermissions } from './create-account.operation';

/** The vault payload's own rules, their fields named under itemData.strategy. */
function validateVault(item: CreateLoanStrategyItemData, can: CreateAccountPermissions): void {
  const vault = item.strategy;
  if (vault.managed === false) throw validationError('itemData.strategy.managed', 'the vault is a managed account: the service moves the principal out of it by the loans\' rules');
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

export function validateCreateLoanStrategy(item: CreateLoanStrategyItemData, can: CreateAccountPermissions): void {
  validateVault(item, can);
  if (item.collateral.length === 0) throw validationError('itemData.collateral', 'a strategy accepts at least one collateral instrument');
  item.collateral.forEach((terms, i) => checkCollateralTerms(terms, `itemData.collateral[${i}]`));
}
