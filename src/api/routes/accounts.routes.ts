/** Accounts: Create, Fetch (bulk, details, balance, private key), Update and Inactivate Account, Transfer Network Currency. */
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { Account } from '../../db/entities';
import { findAccountByLookup } from '../../db/repositories/accounts.repository';
import { addressOfSeed } from '../../custody/key-store';
import { forbidden, validationError } from '../../domain/errors';
import { createAccountBody, inactivateAccountBody, singleAccountBody, transferNetworkCurrencyBody, updateAccountBody } from '../codecs/account.codecs';
import type { CreateAccountItemData } from '../../domain/operations/accounts/account.inputs';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { ApiDeps, LedgerContext } from '../context';
import { accountFields, lamportsBalance, presentAccount } from '../presenters/account.presenter';
import { route, type RouteSpec } from '../route';
import { actingScope } from '../tenancy';
import { sealWebhookSecrets } from '../../custody/webhook-secrets';
import { checkWebhookUrls } from './webhook-urls';
import { accountQuery } from './query-fields';
import { bulkRoute } from './bulk-route';
import { writeRoute } from './write-route';
import { accountBalanceResponse, accountLevels, accountPrivateKeyResponse, createAccountResponse, inactivateAccountResponse, updateAccountResponse } from '../../domain/responses/account.responses';
import { transactionResult } from '../../domain/responses/write.responses';

/** Decodes an imported private key (base58 of a 32-byte seed or 64-byte secret key) and checks it against the given addresses. */
export async function importedKey(item: CreateAccountItemData, at = 'itemData'): Promise<Uint8Array> {
  const field = `${at}.privateKeyDetails.privateKey`;
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(getBase58Encoder().encode(item.privateKeyDetails!.privateKey!));
  } catch {
    throw validationError(field, `${field} must be base58`);
  }
  if (bytes.length !== 32 && bytes.length !== 64) throw validationError(field, `${field} must decode to 32 or 64 bytes, not ${bytes.length}`);
  const addr = await addressOfSeed(bytes.subarray(0, 32));
  if (bytes.length === 64 && getBase58Decoder().decode(bytes.subarray(32)) !== addr) throw validationError(field, `${field}: its public half does not match its private half`);
  if (item.privateKeyDetails?.publickKey && item.privateKeyDetails.publickKey !== addr) throw validationError(`${at}.privateKeyDetails.publickKey`, 'publickKey does not match the private key');
  if (item.onchainId && item.onchainId !== addr) throw validationError(`${at}.onchainId`, 'onchainId does not match the private key');
  return bytes;
}

export function accountRoutes(deps: ApiDeps): RouteSpec[] {
  /** The account a single-account read names, within the acting tenant. */
  const lookedUp = async (ctx: LedgerContext, body: { itemData: { account: AccountLookupInput }; tenancyConfig?: { overrideOrganizationExternalId?: string } }) => {
    const { em, caller, scope } = await actingScope(ctx, deps, body.tenancyConfig);
    return { em, caller, account: await findAccountByLookup(em, scope, body.itemData.account, 'itemData.account') };
  };

  return [
    writeRoute(deps, {
      operationId: 'createAccount',
      method: 'post',
      path: '/api/v1/accounts',
      tag: 'Accounts',
      summary: 'Create Account: a managed account with a new or imported key, or a non-managed one onboarded by address. networkCurrencyDebitApiKeys / tokenDebitApiKeys hold API key ids (as the admin CLI prints them): when not empty, only requests made with one of them may debit the account (network currency / tokens), others get 403 naming the debited account\'s field. globalFeePayerForOrgs lists organization external ids whose writes naming no fee payer this account pays (when managed, ACTIVE and canPayFees). See docs/custody-policy.md. privateKeyDetails.dkgKeys (one entry: keyUsage SIGNING, the default key) gives a new managed account a threshold Ed25519 key (FROST) generated among the backend players useBackendPlayersCodes (default: all configured), session.threshold (at least 2) of which sign; no one holds the whole key, so Fetch Account Private Key refuses it (docs/threshold-keys.md).',
      body: createAccountBody,
      successStatus: 201,
      response: createAccountResponse,
      operation: 'CREATE_ACCOUNT',
      creates: true,
      answer: 'newAccount',
      async prepare(item) {
        await checkWebhookUrls(deps.webhookUrlPolicy, item);
        // Secrets are sealed here so that workflow histories never hold them in clear.
        const sealed: CreateAccountItemData = sealWebhookSecrets(deps.sealer, item);
        if (item.privateKeyDetails?.privateKey) {
          sealed.privateKeyDetails = { ...item.privateKeyDetails, privateKey: deps.sealer.seal(await importedKey(item)) };
        }
        return sealed;
      },
    }),
    writeRoute(deps, {
      operationId: 'updateAccount',
      method: 'patch',
      path: '/api/v1/accounts',
      tag: 'Accounts',
      summary:
        'Update Account: the changeable fields of spec 2.3 (offchainReferences code/name/accountNumber/organizationExternalId, comments, domain, flags, fee-payer and signing organizations, webhooks, debit limits, debit API keys) with patch semantics: a field sent replaces the stored value (lists whole; webhook credentials must be sent in full again), a field left out stays, `unsetFields` empties nullable ones (debit limits back to the defaults). Debit API keys need the UPDATE_DEBIT_API_KEYS role. Only the owning organization; not a CLOSED account. No network transaction.',
      body: updateAccountBody,
      successStatus: 200,
      response: updateAccountResponse,
      operation: 'UPDATE_ACCOUNT',
      answer: 'updatedAccount',
      async prepare(item) {
        await checkWebhookUrls(deps.webhookUrlPolicy, item);
        // Secrets are sealed here so that workflow histories never hold them in clear.
        return sealWebhookSecrets(deps.sealer, item);
      },
    }),
    writeRoute(deps, {
      operationId: 'inactivateAccount',
      method: 'patch',
      path: '/api/v1/accounts/inactivate',
      tag: 'Accounts',
      summary:
        "Inactivate Account: the record becomes CLOSED. A managed account's remaining network currency is swept to transferRemainingNetworkCurrencyTo (onboarded or offPlatform) in one transaction signed by the account, the fee payer paying the fee, so the account leaves the chain; the sweep is a debit under the account's limits like Transfer Network Currency. Refused: lamports left and no destination, an account with data or owned by another program, active positions, an already CLOSED account. A non-managed account only has its record closed. A closed account no longer signs, pays fees or is debited.",
      body: inactivateAccountBody,
      successStatus: 200,
      response: inactivateAccountResponse,
      operation: 'INACTIVATE_ACCOUNT',
      answer: 'inactivatedAccount',
    }),
    bulkRoute(deps, { operationId: 'fetchAccounts', levels: accountLevels, path: '/api/v1/accounts/bulk', tag: 'Accounts', summary: 'Fetch Accounts with filter, sort and paging.', entity: Account, query: accountQuery, fields: accountFields, present: (a, level, _related, viewer) => presentAccount(a, level, viewer) }),
    route({
      operationId: 'fetchAccountDetails',
      method: 'post',
      path: '/api/v1/accounts/single',
      tag: 'Accounts',
      summary: 'Fetch Account Details.',
      role: 'READ',
      body: singleAccountBody,
      successStatus: 200,
      response: accountLevels.detailed,
      async handler(ctx, body) {
        const { caller, account } = await lookedUp(ctx, body);
        return presentAccount(account, 'detailed', caller.organizationId);
      },
    }),
    route({
      operationId: 'fetchAccountBalance',
      method: 'post',
      path: '/api/v1/accounts/balance',
      tag: 'Accounts',
      summary: 'Fetch Account Balance: live from the network, beside the offchain record.',
      role: 'READ',
      body: singleAccountBody,
      successStatus: 200,
      response: accountBalanceResponse,
      async handler(ctx, body) {
        const { account } = await lookedUp(ctx, body);
        const onchain = await deps.networks.get(ctx.state.cluster)!.getBalance(account.address);
        return {
          account: presentAccount(account, 'identifiers'),
          onchain: { balance: lamportsBalance(onchain) },
          offchain: { balance: lamportsBalance(account.lamportsBalance) },
        };
      },
    }),
    writeRoute(deps, {
      operationId: 'transferNetworkCurrency',
      method: 'post',
      path: '/api/v1/accounts/transfer-network-currency',
      tag: 'Accounts',
      summary: 'Transfer Network Currency from a managed account, signed by it; debit limits of spec 8 apply (per transaction: OFF_PLATFORM 0, NON_MANAGED 1, MANAGED unlimited, unless the account configures its own). A source the service may not sign for (off-platform, non-managed, another organization\'s key not shared with this one) or looked up with autoSign: false makes the write wait in AWAITING_SIGNATURES (202; its missingSignatureWebhooks are called) until Sign Transaction supplies the signature, Cancel, or its blockhash expires (EXPIRED); the fee payer must be a key the service may use.',
      body: transferNetworkCurrencyBody,
      successStatus: 201,
      response: transactionResult,
      operation: 'TRANSFER_NETWORK_CURRENCY',
    }),
    route({
      operationId: 'fetchAccountPrivateKey',
      method: 'post',
      path: '/api/v1/accounts/private-key',
      tag: 'Accounts',
      summary: 'Fetch Account Private Key of a managed account (base58 of the 64-byte secret key, the Solana CLI layout). Every call is logged, without the key. An account with a threshold key (dkgKeys) answers 400: no one holds that key whole.',
      role: 'FETCH_PRIVATE_KEY',
      body: singleAccountBody,
      successStatus: 200,
      response: accountPrivateKeyResponse,
      async handler(ctx, body) {
        const { em, caller, account } = await lookedUp(ctx, body);
        if (account.organizationId !== caller.organizationId) throw forbidden('only the owning organization may fetch a private key', 'itemData.account');
        if (await deps.keyStore.isThresholdKey(em, account.address)) throw validationError('itemData.account', 'the account has a threshold key (dkgKeys): its backend players each hold a share and no one holds the whole key, so it cannot be fetched');
        const seed = account.managed ? await deps.keyStore.exportPrivateKey(em, account.address) : undefined;
        if (!seed) throw validationError('itemData.account', 'the account is not managed: the service holds no private key for it');
        const by = caller.apiKeyOrganizationExternalId === undefined ? `of organization ${caller.organizationExternalId}` : `of organization ${caller.apiKeyOrganizationExternalId} for organization ${caller.organizationExternalId}`;
        deps.audit(`private key of ${account.address} (${account.id}) fetched by API key ${caller.apiKeyId} ${by}, request ${ctx.state.requestId}`);
        const secretKey = new Uint8Array([...seed, ...getBase58Encoder().encode(account.address)]);
        return { account: presentAccount(account, 'identifiers'), privateKey: getBase58Decoder().decode(secretKey), privateKeyLocation: account.privateKeyLocation };
      },
    }),
  ];
}
