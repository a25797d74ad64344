/** The account operations (the spec's 2.3): Create, Update and Inactivate Account, Transfer Network Currency. */
import { accountExamples } from '../../examples/account.examples';
import { createAccountResponse, inactivateAccountResponse, updateAccountResponse } from '../../responses/account.responses';
import { transactionResult } from '../../responses/write.responses';
import { defineOperation } from '../define-operation';
import { createAccountItemData, inactivateAccountItemData, transferNetworkCurrencyItemData, updateAccountItemData } from './account.inputs';
import * as createAccountRules from './create-account.rules';
import * as inactivateAccountRules from './inactivate-account.rules';
import * as transferNetworkCurrencyRules from './transfer-network-currency.rules';
import * as updateAccountRules from './update-account.rules';

export const accountOperations = {
  CREATE_ACCOUNT: defineOperation({
    input: createAccountItemData,
    validate: createAccountRules.validateCreateAccount,
    rules: createAccountRules,
    route: {
      operationId: 'createAccount',
      method: 'post',
      path: '/api/v1/accounts',
      tag: 'Accounts',
      summary:
        "Create Account: a managed account with a new or imported key, or a non-managed one onboarded by address. networkCurrencyDebitApiKeys / tokenDebitApiKeys hold API key ids (as the admin CLI prints them): when not empty, only requests made with one of them may debit the account (network currency / tokens), others get 403 naming the debited account's field. globalFeePayerForOrgs lists organization external ids whose writes naming no fee payer this account pays (when managed, ACTIVE and canPayFees). See docs/custody-policy.md. privateKeyDetails.dkgKeys (one entry: keyUsage SIGNING, the default key) gives a new managed account a threshold Ed25519 key (FROST) generated among the backend players useBackendPlayersCodes (default: all configured), session.threshold (at least 2) of which sign; no one holds the whole key, so Fetch Account Private Key refuses it (docs/threshold-keys.md).",
      successStatus: 201,
      body: 'CreateAccountRequest',
      response: createAccountResponse,
      example: accountExamples.createAccount,
      creates: true,
      answer: 'newAccount',
    },
  }),
  UPDATE_ACCOUNT: defineOperation({
    input: updateAccountItemData,
    validate: updateAccountRules.validateUpdateAccount,
    rules: updateAccountRules,
    route: {
      operationId: 'updateAccount',
      method: 'patch',
      path: '/api/v1/accounts',
      tag: 'Accounts',
      summary:
        'Update Account: the changeable fields of spec 2.3 (offchainReferences code/name/accountNumber/organizationExternalId, comments, domain, flags, fee-payer and signing organizations, webhooks, debit limits, debit API keys) with patch semantics: a field sent replaces the stored value (lists whole; webhook credentials must be sent in full again), a field left out stays, `unsetFields` empties nullable ones (debit limits back to the defaults). Debit API keys need the UPDATE_DEBIT_API_KEYS role. Only the owning organization; not a CLOSED account. No network transaction.',
      successStatus: 200,
      body: 'UpdateAccountRequest',
      response: updateAccountResponse,
      example: accountExamples.updateAccount,
      answer: 'updatedAccount',
    },
  }),
  INACTIVATE_ACCOUNT: defineOperation({
    input: inactivateAccountItemData,
    rules: inactivateAccountRules,
    route: {
      operationId: 'inactivateAccount',
      method: 'patch',
      path: '/api/v1/accounts/inactivate',
      tag: 'Accounts',
      summary:
        "Inactivate Account: the record becomes CLOSED. A managed account's remaining network currency is swept to transferRemainingNetworkCurrencyTo (onboarded or offPlatform) in one transaction signed by the account, the fee payer paying the fee, so the account leaves the chain; the sweep is a debit under the account's limits like Transfer Network Currency. Refused: lamports left and no destination, an account with data or owned by another program, active positions, an already CLOSED account. A non-managed account only has its record closed. A closed account no longer signs, pays fees or is debited.",
      successStatus: 200,
      body: 'InactivateAccountRequest',
      response: inactivateAccountResponse,
      example: accountExamples.inactivateAccount,
      answer: 'inactivatedAccount',
    },
  }),
  TRANSFER_NETWORK_CURRENCY: defineOperation({
    input: transferNetworkCurrencyItemData,
    validate: (item) => transferNetworkCurrencyRules.validateTransferNetworkCurrency(item),
    rules: transferNetworkCurrencyRules,
    route: {
      operationId: 'transferNetworkCurrency',
      method: 'post',
      path: '/api/v1/accounts/transfer-network-currency',
      tag: 'Accounts',
      summary:
        "Transfer Network Currency from a managed account, signed by it; debit limits of spec 8 apply (per transaction: OFF_PLATFORM 0, NON_MANAGED 1, MANAGED unlimited, unless the account configures its own). A source the service may not sign for (off-platform, non-managed, another organization's key not shared with this one) or looked up with autoSign: false makes the write wait in AWAITING_SIGNATURES (202; its missingSignatureWebhooks are called) until Sign Transaction supplies the signature, Cancel, or its blockhash expires (EXPIRED); the fee payer must be a key the service may use. Refused before anything is signed (no fee paid): a source holding data (dataLength > 0, spec 2.3 rule 2) or owned by another program (400 naming itemData.source), and more than the source holds minus the fee it pays and the rent-exempt minimum it keeps unless it sends everything (INSUFFICIENT_BALANCE naming itemData.value).",
      successStatus: 201,
      body: 'TransferNetworkCurrencyRequest',
      response: transactionResult,
      example: accountExamples.transferNetworkCurrency,
    },
  }),
};
