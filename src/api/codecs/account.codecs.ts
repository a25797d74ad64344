/** Account request bodies: Create Account (spec 2.3), Update and Inactivate Account, the single-account reads. */
import { createAccountItemData, inactivateAccountItemData, transferNetworkCurrencyItemData, updateAccountItemData } from '../../domain/operations/accounts/account.inputs';
import { accountLookup, svmTransactionConfig } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const createAccountBody = strictObject('CreateAccountRequest', { itemData: createAccountItemData }, { svmTransactionConfig, tenancyConfig });

export const singleAccountBody = strictObject('SingleAccountRequest', { itemData: strictObject('SingleAccountItemData', { account: accountLookup }, {}) }, { tenancyConfig });

/** Transfer Network Currency. */
export const transferNetworkCurrencyBody = strictObject('TransferNetworkCurrencyRequest', { itemData: transferNetworkCurrencyItemData }, { svmTransactionConfig, tenancyConfig });

/**
 * Update Account: patch semantics. A field sent replaces the stored value (lists whole);
 * a field left out stays; `unsetFields` empties the named nullable fields.
 */
export const updateAccountBody = strictObject('UpdateAccountRequest', { itemData: updateAccountItemData }, { svmTransactionConfig, tenancyConfig });

/** Inactivate Account. */
export const inactivateAccountBody = strictObject('InactivateAccountRequest', { itemData: inactivateAccountItemData }, { svmTransactionConfig, tenancyConfig });
