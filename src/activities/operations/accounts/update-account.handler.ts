/**
 * Update Account: the changeable offchain fields of spec 2.3 (patch semantics), recorded without a
 * network transaction. Only the owning organization may change an account, and not a CLOSED one.
 */
import { offchainOnly } from '../fee-payer';
import type { UnsettableAccountField, UpdateAccountItemData } from '../../../domain/operations/accounts/account.inputs';
import { Account } from '../../../db/entities';
import { findAccountByLookup } from '../../../db/repositories/accounts.repository';
import { checkDebitLimitsApply } from '../../../domain/operations/accounts/create-account.rules';
import { checkUpdatable } from '../../../domain/operations/accounts/update-account.rules';
import { checkApprovers, type DebitLimit } from '../../../domain/debit-limits';
import { storedTokenDebitLimits } from './token-debit-limits';
import { usableApprovers } from '../../../db/repositories/organizations.repository';
import { scopeOf, type OperationHandler } from '../operation-handler';

type Fields = Omit<UpdateAccountItemData, 'account' | 'offchainReferences' | 'unsetFields'>;
type References = NonNullable<UpdateAccountItemData['offchainReferences']>;

/** Request field → record column. */
const columns: { [K in keyof Required<Fields>]: keyof Account } = {
  networkCurrencyDebitApiKeys: 'solDebitApiKeys',
  tokenDebitApiKeys: 'tokenDebitApiKeys',
  networkCurrencyDebitLimits: 'networkCurrencyDebitLimits',
  tokenDebitLimits: 'tokenDebitLimits',
  subscribeToNetworkEvents: 'subscribeToNetworkEvents',
  canPayFees: 'canPayFees',
  globalFeePayerForOrgs: 'globalFeePayerForOrgs',
  orgsAllowedToSignWithPrivateKey: 'orgsAllowedToSignWithPrivateKey',
  shareAcrossTenants: 'sharedAcrossTenants',
  comments: 'comments',
  domain: 'domain',
  missingSignatureWebhooks: 'missingSignatureWebhooks',
  preTransactionSubmitWebhooks: 'preTransactionSubmitWebhooks',
  postTransactionSubmitWebhooks: 'postTransactionSubmitWebhooks',
};
const referenceColumns: { [K in keyof Required<References>]: keyof Account } = {
  accountNumber: 'accountNumber',
  code: 'code',
  name: 'name',
  organizationExternalId: 'referenceOrganizationExternalId',
};

function columnOf(name: UnsettableAccountField): keyof Account {
  return name.startsWith('offchainReferences.')
    ? referenceColumns[name.slice('offchainReferences.'.length) as keyof References]
    : columns[name as keyof Fields];
}

/** What Update Account's lookup resolves: the account to change. */
interface UpdateAccountData {
  accountId: string;
  /** The request's token limits with their mint authorities resolved to addresses. */
  tokenDebitLimits?: DebitLimit[];
}

export const updateAccountHandler: OperationHandler<UpdateAccountItemData, UpdateAccountData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const f = 'itemData.account';
    const account = await findAccountByLookup(em, scopeOf(request), item.account, f);
    checkUpdatable(account, request.organizationId);
    checkDebitLimitsApply(item, account.type);
    checkApprovers(item, await usableApprovers(em, account.organizationId, item));
    const tokenDebitLimits = await storedTokenDebitLimits(em, scopeOf(request), item.tokenDebitLimits);
    return offchainOnly(deps.feePayerAddress, { accountId: account.id, tokenDebitLimits });
  },
  instructions: () => [],
  async record(em, request, resolved, _outcome, tx) {
    const item = request.itemData;
    const account = await em.findOneOrFail(Account, { id: resolved.data.accountId });
    // The request's codec and the columns map keep each value of the type of its column.
    const patch: Partial<Record<keyof Account, unknown>> = {};
    for (const [field, column] of Object.entries(columns)) {
      const value = item[field as keyof Fields];
      if (value !== undefined) patch[column] = value;
    }
    for (const [field, column] of Object.entries(referenceColumns)) {
      const value = item.offchainReferences?.[field as keyof References];
      if (value !== undefined) patch[column] = value;
    }
    if (resolved.data.tokenDebitLimits) patch.tokenDebitLimits = resolved.data.tokenDebitLimits;
    for (const name of item.unsetFields ?? []) patch[columnOf(name)] = null;
    Object.assign(account, patch);
    // The record of a keyed or async write names what it changed (a replayed record step answers it).
    if (tx) tx.accountIds = [account.id];
    return { onchainId: account.address, offchainId: account.id };
  },
};
