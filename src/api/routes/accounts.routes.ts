/** Accounts: Create, Fetch (bulk, details, balance, private key), Update and Inactivate Account, Transfer Network Currency. */
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { Account } from '../../db/entities';
import { findAccountByLookup } from '../../db/repositories/accounts.repository';
import { addressOfSeed } from '../../custody/key-store';
import { forbidden, validationError } from '../../domain/errors';
import { singleAccountBody } from '../codecs/account.codecs';
import type { CreateAccountItemData } from '../../domain/operations/accounts/account.inputs';
import type { ApiDeps } from '../context';
import { accountFields, lamportsBalance, presentAccount } from '../presenters/account.presenter';
import type { RouteSpec } from '../route';
import { singleReadsOf } from './single-route';
import { sealWebhookSecrets } from '../../custody/webhook-secrets';
import { checkWebhookUrls } from './webhook-urls';
import { accountQuery } from './query-fields';
import { bulkRoute } from './bulk-route';
import { writeRoutes } from './write-route';
import { accountOperations } from '../../domain/operations/accounts/accounts.operations';
import { accountBalanceResponse, accountLevels, accountPrivateKeyResponse } from '../../domain/responses/account.responses';

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
  if (bytes.length === 64 && getBase58Decoder().decode(bytes.subarray(32)) !== addr)
    throw validationError(field, `${field}: its public half does not match its private half`);
  if (item.privateKeyDetails?.publickKey && item.privateKeyDetails.publickKey !== addr)
    throw validationError(`${at}.privateKeyDetails.publickKey`, 'publickKey does not match the private key');
  if (item.onchainId && item.onchainId !== addr) throw validationError(`${at}.onchainId`, 'onchainId does not match the private key');
  return bytes;
}

/**
 * A Create Account payload as it enters workflow history (Create Account's, and Create Loan
 * Strategy's `strategy`): webhook URLs checked against the policy, webhook credentials sealed, an
 * imported key checked and sealed. Fields are named under `at`.
 */
export async function sealedAccountPayload(deps: ApiDeps, item: CreateAccountItemData, at = 'itemData'): Promise<CreateAccountItemData> {
  await checkWebhookUrls(deps.webhookUrlPolicy, item, at);
  const sealed: CreateAccountItemData = sealWebhookSecrets(deps.sealer, item);
  if (item.privateKeyDetails?.privateKey) {
    sealed.privateKeyDetails = { ...item.privateKeyDetails, privateKey: deps.sealer.seal(await importedKey(item, at)) };
  }
  return sealed;
}

export function accountRoutes(deps: ApiDeps): RouteSpec[] {
  /** The single-account reads: the account the body names, within the acting tenant. */
  const accountRoute = singleReadsOf(deps, singleAccountBody, ({ em, scope, body }) =>
    findAccountByLookup(em, scope, body.itemData.account, 'itemData.account'),
  );

  return [
    ...writeRoutes(deps, accountOperations, {
      CREATE_ACCOUNT: {
        // Secrets are sealed here so that workflow histories never hold them in clear.
        prepare: (item) => sealedAccountPayload(deps, item),
      },
      UPDATE_ACCOUNT: {
        async prepare(item) {
          await checkWebhookUrls(deps.webhookUrlPolicy, item);
          // Secrets are sealed here so that workflow histories never hold them in clear.
          return sealWebhookSecrets(deps.sealer, item);
        },
      },
    }),
    bulkRoute(deps, {
      operationId: 'fetchAccounts',
      levels: accountLevels,
      path: '/api/v1/accounts/bulk',
      tag: 'Accounts',
      summary: 'Fetch Accounts with filter, sort and paging.',
      entity: Account,
      query: accountQuery,
      fields: accountFields,
      present: (a, level, _related, viewer) => presentAccount(a, level, viewer),
    }),
    accountRoute({
      operationId: 'fetchAccountDetails',
      path: '/api/v1/accounts/single',
      tag: 'Accounts',
      summary: 'Fetch Account Details.',
      response: accountLevels.detailed,
      present: (account, { caller }) => presentAccount(account, 'detailed', caller.organizationId),
    }),
    accountRoute({
      operationId: 'fetchAccountBalance',
      path: '/api/v1/accounts/balance',
      tag: 'Accounts',
      summary: 'Fetch Account Balance: live from the network, beside the offchain record.',
      response: accountBalanceResponse,
      async present(account, { scope }) {
        const onchain = await deps.networks.get(scope.cluster)!.getBalance(account.address);
        return {
          account: presentAccount(account, 'identifiers'),
          onchain: { balance: lamportsBalance(onchain) },
          offchain: { balance: lamportsBalance(account.lamportsBalance) },
        };
      },
    }),
    accountRoute({
      operationId: 'fetchAccountPrivateKey',
      path: '/api/v1/accounts/private-key',
      tag: 'Accounts',
      summary:
        'Fetch Account Private Key of a managed account (base58 of the 64-byte secret key, the Solana CLI layout). Every call is logged, without the key. An account with a threshold key (dkgKeys) answers 400: no one holds that key whole.',
      role: 'FETCH_PRIVATE_KEY',
      response: accountPrivateKeyResponse,
      async present(account, { ctx, em, caller }) {
        if (account.organizationId !== caller.organizationId) throw forbidden('only the owning organization may fetch a private key', 'itemData.account');
        if (await deps.keyStore.isThresholdKey(em, account.address))
          throw validationError(
            'itemData.account',
            'the account has a threshold key (dkgKeys): its backend players each hold a share and no one holds the whole key, so it cannot be fetched',
          );
        const seed = account.managed ? await deps.keyStore.exportPrivateKey(em, account.address) : undefined;
        if (!seed) throw validationError('itemData.account', 'the account is not managed: the service holds no private key for it');
        const by =
          caller.apiKeyOrganizationExternalId === undefined
            ? `of organization ${caller.organizationExternalId}`
            : `of organization ${caller.apiKeyOrganizationExternalId} for organization ${caller.organizationExternalId}`;
        deps.audit(`private key of ${account.address} (${account.id}) fetched by API key ${caller.apiKeyId} ${by}, request ${ctx.state.requestId}`);
        const secretKey = new Uint8Array([...seed, ...getBase58Encoder().encode(account.address)]);
        return {
          account: presentAccount(account, 'identifiers'),
          privateKey: getBase58Decoder().decode(secretKey),
          privateKeyLocation: account.privateKeyLocation,
        };
      },
    }),
  ];
}
