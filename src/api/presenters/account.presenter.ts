/** Account records as the API shows them, at the three detail levels (spec 2.2, docs/behaviour/conventions.md). */
import { LosslessNumber } from 'lossless-json';
import type { Account, WebhookConfig } from '../../db/entities';
import { fromBaseUnits, NETWORK_CURRENCY_DECIMALS } from '../../domain/money';
import {
  accountOwnerOnlyFields,
  type AccountCompactBody,
  type AccountDetailedBody,
  type NetworkCurrencyAmountBody,
  type NetworkCurrencyDebitLimitBody,
  type RecordIdentifiersBody,
  type TokenDebitLimitBody,
} from '../../domain/responses/account.responses';

export const detailLevels = ['detailed', 'compact', 'identifiers'] as const;
export type DetailLevel = (typeof detailLevels)[number];

/** A decimal amount written as a JSON number with its exact text. */
export const exactNumber = (text: string) => new LosslessNumber(text);

export function lamportsBalance(lamports: bigint): NetworkCurrencyAmountBody {
  return { amount: exactNumber(fromBaseUnits(lamports, NETWORK_CURRENCY_DECIMALS)), lamports };
}

const maskWebhook = (hook: WebhookConfig) => ({
  ...hook,
  ...(hook.apiKeyAuthConfig ? { apiKeyAuthConfig: { httpHeaderName: hook.apiKeyAuthConfig.httpHeaderName, keyValue: '***' } } : {}),
  ...(hook.oauth2AuthConfig
    ? {
        oauth2AuthConfig: {
          ...hook.oauth2AuthConfig,
          clientSecret: hook.oauth2AuthConfig.clientSecret ? '***' : undefined,
          password: hook.oauth2AuthConfig.password ? '***' : undefined,
        },
      }
    : {}),
});

/** What presentAccount reads at the levels below detailed (bulk reads load only these). */
export const accountFields = {
  identifiers: ['id', 'address'],
  compact: [
    'id',
    'address',
    'lastTransactionSignature',
    'lastTransactionAt',
    'type',
    'code',
    'alId',
    'referenceOrganizationExternalId',
    'accountNumber',
    'lastTransactionId',
  ],
} as const satisfies Partial<Record<DetailLevel, readonly (keyof Account)[]>>;

/** How the service and its owner's systems know the account offchain, at the compact and detailed levels. */
const offchainReference = (a: Account) => ({
  id: a.id,
  type: a.type,
  code: a.code ?? null,
  alId: a.alId ?? null,
  organizationExternalId: a.referenceOrganizationExternalId ?? null,
  accountNumber: a.accountNumber ?? null,
});

/**
 * The account record at a detail level, typed by the response codecs (account.responses.ts), as
 * `viewerOrganizationId` sees it: another organization (a shared account, an authority of a shared
 * instrument) does not see the owner's configuration (accountOwnerOnlyFields, docs/custody-policy.md);
 * neither does an unnamed viewer.
 */
export function presentAccount(a: Account, level: 'identifiers', viewerOrganizationId?: string): RecordIdentifiersBody;
export function presentAccount(a: Account, level: 'compact', viewerOrganizationId?: string): AccountCompactBody;
export function presentAccount(a: Account, level: 'detailed', viewerOrganizationId: string | undefined): AccountDetailedBody;
export function presentAccount(
  a: Account,
  level: DetailLevel,
  viewerOrganizationId: string | undefined,
): RecordIdentifiersBody | AccountCompactBody | AccountDetailedBody;
export function presentAccount(
  a: Account,
  level: DetailLevel,
  viewerOrganizationId?: string,
): RecordIdentifiersBody | AccountCompactBody | AccountDetailedBody {
  if (level === 'identifiers') return { onchain: { id: a.address }, offchain: { id: a.id } };
  if (level === 'compact') {
    return {
      onchain: { id: a.address, lastTransactionId: a.lastTransactionSignature ?? null, lastTransactionAt: a.lastTransactionAt ?? null },
      offchain: { ...offchainReference(a), lastTransactionId: a.lastTransactionId ?? null },
    };
  }
  const detailed: AccountDetailedBody = {
    onchain: {
      id: a.address,
      lastTransactionId: a.lastTransactionSignature ?? null,
      lastTransactionAt: a.lastTransactionAt ?? null,
      creationTransactionId: a.creationTransactionSignature ?? null,
      creationTransactionAt: a.creationTransactionAt ?? null,
    },
    offchain: {
      ...offchainReference(a),
      name: a.name ?? null,
      balance: lamportsBalance(a.lamportsBalance),
      tokenDecimals: a.tokenDecimals,
      lastTransactionId: a.lastTransactionId ?? null,
      creationTransactionId: a.creationTransactionId ?? null,
    },
    managed: a.managed,
    status: a.status,
    privateKeyLocation: a.privateKeyLocation,
    isDerived: a.isDerived,
    isGenesis: a.isGenesis,
    comments: a.comments ?? null,
    subscribeToNetworkEvents: a.subscribeToNetworkEvents,
    sharedAcrossTenants: a.sharedAcrossTenants,
    wasOnchainAlready: a.wasOnchainAlready,
    canPayFees: a.canPayFees,
    globalFeePayerForOrgs: a.globalFeePayerForOrgs,
    orgsAllowedToSignWithPrivateKey: a.orgsAllowedToSignWithPrivateKey,
    solDebitApiKeys: a.solDebitApiKeys,
    tokenDebitApiKeys: a.tokenDebitApiKeys,
    // JSON columns: the limits as Create/Update Account decoded them.
    networkCurrencyDebitLimits: (a.networkCurrencyDebitLimits as NetworkCurrencyDebitLimitBody[] | null) ?? null,
    tokenDebitLimits: (a.tokenDebitLimits as TokenDebitLimitBody[] | null) ?? null,
    missingSignatureWebhooks: a.missingSignatureWebhooks.map(maskWebhook),
    preTransactionSubmitWebhooks: a.preTransactionSubmitWebhooks.map(maskWebhook),
    postTransactionSubmitWebhooks: a.postTransactionSubmitWebhooks.map(maskWebhook),
    dataLength: a.dataLength,
    tokenVersion: a.tokenVersion ?? null,
    domain: a.domain ?? null,
    tenantOrganizationId: a.organizationId,
  };
  if (a.organizationId === viewerOrganizationId) return detailed;
  for (const field of accountOwnerOnlyFields) delete detailed[field];
  return detailed;
}
