/** Financial instrument records as the API shows them. */
import type { Account, AuthorityRef, FinancialInstrument } from '../../db/entities';
import { exactNumber, presentAccount, type DetailLevel } from './account.presenter';
import type { RecordIdentifiersBody } from '../../domain/responses/account.responses';
import type {
  AuthorityReferenceBody,
  FinancialInstrumentCompactBody,
  FinancialInstrumentDetailedBody,
} from '../../domain/responses/financial-instrument.responses';

/** Spec 2.2's authority reference: onchain and offchain ids, managed, tenant. */
function authorityReference(ref: AuthorityRef | undefined, accounts: Map<string, Account>): AuthorityReferenceBody | null {
  if (!ref) return null;
  const account = ref.accountId ? accounts.get(ref.accountId) : undefined;
  return {
    onchain: { id: ref.address },
    offchain: { id: ref.accountId },
    managed: account?.managed ?? false,
    tenantOrganizationId: account?.organizationId ?? null,
  };
}

/**
 * `accounts`: the mint's account record and the authorities' records, by offchain id (for the detailed
 * level); `viewerOrganizationId`: who reads, since those account records may be another tenant's.
 */
export function presentFinancialInstrument(fi: FinancialInstrument, level: 'identifiers'): RecordIdentifiersBody;
export function presentFinancialInstrument(
  fi: FinancialInstrument,
  level: 'detailed',
  viewerOrganizationId: string,
  accounts?: Map<string, Account>,
): FinancialInstrumentDetailedBody;
export function presentFinancialInstrument(
  fi: FinancialInstrument,
  level: DetailLevel,
  viewerOrganizationId: string,
  accounts?: Map<string, Account>,
): RecordIdentifiersBody | FinancialInstrumentCompactBody | FinancialInstrumentDetailedBody;
export function presentFinancialInstrument(
  fi: FinancialInstrument,
  level: DetailLevel,
  viewerOrganizationId?: string,
  accounts: Map<string, Account> = new Map(),
): RecordIdentifiersBody | FinancialInstrumentCompactBody | FinancialInstrumentDetailedBody {
  // The spec's detailed record gives the mint account and the mint and update authorities as account records.
  const accountRecord = (field: string) => {
    const ref = fi.authorities[field];
    const account = ref?.accountId ? accounts.get(ref.accountId) : undefined;
    return account ? presentAccount(account, 'detailed', viewerOrganizationId) : authorityReference(ref, accounts);
  };
  if (level === 'identifiers') return { onchain: { id: fi.mintAddress }, offchain: { id: fi.id } };
  const compact: FinancialInstrumentCompactBody = {
    onchain: { id: fi.mintAddress, lastTransactionAt: fi.lastTransactionAt ?? null },
    offchain: { id: fi.id, alId: fi.alId, lastTransactionId: fi.lastTransactionId ?? null },
    version: fi.version,
    status: fi.status,
  };
  if (level === 'compact') return compact;
  const mintAccount = accounts.get(fi.mintAccountId);
  return {
    ...compact,
    offchain: { ...compact.offchain, financialInstrumentType: fi.financialInstrumentType ?? null, creationTransactionId: fi.creationTransactionId ?? null },
    mintAccount: mintAccount
      ? presentAccount(mintAccount, 'detailed', viewerOrganizationId)
      : { onchain: { id: fi.mintAddress }, offchain: { id: fi.mintAccountId } },
    ...Object.fromEntries(Object.entries(fi.authorities).map(([field, ref]) => [field, authorityReference(ref, accounts)])),
    mintAuthority: accountRecord('mintAuthority'),
    updateAuthority: accountRecord('updateAuthority'),
    onchainData: {
      decimals: fi.decimals,
      symbol: fi.symbol ?? null,
      name: fi.name ?? null,
      uri: fi.uri ?? null,
      simpleCustomMetadata: fi.onchainCustomMetadata,
    },
    offchainData: fi.offchainData,
    extensions: fi.extensions,
    defaultPositionState: fi.defaultPositionState ?? null,
    paused: fi.paused ?? null,
    scaledUiAmountMultiplier:
      fi.scaledUiAmountMultiplier === null || fi.scaledUiAmountMultiplier === undefined ? null : exactNumber(fi.scaledUiAmountMultiplier),
    managed: fi.managed,
    wasOnchainAlready: fi.wasOnchainAlready,
    sharedAcrossTenants: fi.sharedAcrossTenants,
    comments: fi.comments ?? null,
    offchainReferenceName: fi.offchainReferenceName ?? null,
    creationTransactionAt: fi.creationTransactionAt ?? null,
    tenantOrganizationId: fi.organizationId,
  };
}
