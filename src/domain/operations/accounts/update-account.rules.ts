/**
 * Update Account: the rules checked before anything is written. Pure; the rule that
 * needs the stored account (debit limits only on wallets) is create's checkDebitLimitsApply.
 */
import type { UpdateAccountItemData } from './account.inputs';
import { forbidden, validationError } from '../../errors';
import { checkOwnAccount, type CreateAccountPermissions } from './create-account.rules';
import { checkDebitLimitFields } from './debit-limit.rules';
import { checkWebhookFields } from './webhook-config.rules';

/** The value an `unsetFields` name refers to in the request ('offchainReferences.code' → item.offchainReferences.code). */
function valueAt(item: UpdateAccountItemData, name: string): unknown {
  return name.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), item);
}

/**
 * Checks spec 2.3/5.4's rules that need no stored record: something to change, the
 * UPDATE_DEBIT_API_KEYS role for any change of debit API keys (sending the field is a change, even
 * `[]`), a field not both set and unset, and the debit limit and webhook fields as Create Account
 * checks them. Throws VALIDATION_ERROR or FORBIDDEN naming the field.
 */
export function validateUpdateAccount(item: UpdateAccountItemData, can: CreateAccountPermissions): void {
  const f = 'itemData';
  const { account: _account, unsetFields = [], offchainReferences = {}, ...fields } = item;
  if (Object.keys(fields).length === 0 && Object.keys(offchainReferences).length === 0 && unsetFields.length === 0) {
    throw validationError(f, 'nothing to change: name at least one field of the account to set, or list fields in unsetFields');
  }
  for (const list of ['networkCurrencyDebitApiKeys', 'tokenDebitApiKeys'] as const) {
    if (item[list] !== undefined && !can.updateDebitApiKeys) throw forbidden(`changing ${list} needs the UPDATE_DEBIT_API_KEYS role`, `${f}.${list}`);
  }
  unsetFields.forEach((name, i) => {
    if (valueAt(item, name) !== undefined) throw validationError(`${f}.unsetFields.${i}`, `${name} is both given a value and listed in unsetFields`);
  });
  checkDebitLimitFields(item);
  checkWebhookFields(item);
}

/** The stored account may be changed: this organization's, and not CLOSED. */
export function checkUpdatable(account: { organizationId: string; status: string }, organizationId: string): void {
  const f = 'itemData.account';
  checkOwnAccount(account, organizationId, f, 'change it');
  if (account.status !== 'ACTIVE') throw validationError(f, `the account is ${account.status}: a closed account cannot be updated`);
}
