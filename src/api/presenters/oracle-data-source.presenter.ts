/** Onchain data source records as the API shows them (spec 2.7 plus latestValue, docs/oracle-data-sources.md). */
import { LosslessNumber } from 'lossless-json';
import type { Account, OracleDataSource } from '../../db/entities';
import type { LatestValueBody, OnchainDataSourceRecordBody } from '../../domain/responses/oracle-data-source.responses';
import { offchainDetails } from './offchain-details';

export function presentLatestValue(source: Pick<OracleDataSource, 'latestValue' | 'latestValueAt' | 'latestSlot'>): LatestValueBody | null {
  if (source.latestValue == null || !source.latestValueAt) return null;
  return { value: new LosslessNumber(source.latestValue), updatedAt: source.latestValueAt, slot: source.latestSlot ? Number(source.latestSlot) : null };
}

/** `authority`: the authority's account record, when onboarded. */
export function presentOnchainDataSource(source: OracleDataSource, authority: Account | undefined): OnchainDataSourceRecordBody {
  return {
    defiProtocol: source.defiProtocol,
    onchainDataSource: {
      onchain: { id: source.address, lastTransactionAt: source.lastTransactionAt ?? null },
      offchain: { id: source.id, accountId: source.accountId, ...offchainDetails(source) },
    },
    financialInstrument: { onchain: { id: source.financialInstrumentAddress }, offchain: { id: source.financialInstrumentId } },
    onchainDataSourceAuthority: {
      onchain: { id: source.authorityAddress },
      offchain: { id: authority?.id ?? source.authorityAccountId ?? null },
      managed: authority?.managed ?? false,
      tenantOrganizationId: authority?.organizationId ?? null,
    },
    dataDetails: { kind: source.kind, ratingProvider: source.ratingProvider ?? null },
    providerDetails: { kind: source.providerKind, jobDefinition: source.jobDefinition },
    feedHash: source.feedHash,
    refreshEverySeconds: source.refreshEverySeconds ?? null,
    latestValue: presentLatestValue(source),
    lastRefreshFailure: source.lastRefreshError && source.lastRefreshErrorAt ? { reason: source.lastRefreshError, at: source.lastRefreshErrorAt } : null,
  };
}
