/**
 * An onchain data source (spec 2.7, docs/oracle-data-sources.md `LEDGER_FEED`): a Token-2022 mint whose own metadata
 * holds the value, with its job definition, its schedule and its latest value as written onchain.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const OracleDataSource = defineEntity({
  name: 'OracleDataSource',
  tableName: 'oracle_data_source',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    cluster: p.text(),
    defiProtocol: p.text(),
    /** The feed mint, and its account record. */
    address: p.text(),
    accountId: p.uuid(),
    financialInstrumentId: p.uuid(),
    financialInstrumentAddress: p.text(),
    /** Writes the metadata (its update authority). */
    authorityAddress: p.text(),
    authorityAccountId: p.uuid().nullable(),
    /** PRICE or RATING. */
    kind: p.text(),
    ratingProvider: p.text().nullable(),
    providerKind: p.text(),
    jobDefinition: p.text(),
    /** SHA-256 (hex) of jobDefinition, as the metadata holds it. */
    feedHash: p.text(),
    /** null: not refreshed on a schedule. */
    refreshEverySeconds: p.integer().nullable(),
    /** The value as written onchain (exact decimal text), when, and the slot the job ran at. */
    latestValue: p.text().nullable(),
    latestValueAt: p.datetime().nullable(),
    latestSlot: p.text().nullable(),
    /** The last refresh that gave no value (the value onchain stayed): why and when; cleared by the next good one. */
    lastRefreshError: p.text().nullable(),
    lastRefreshErrorAt: p.datetime().nullable(),
    code: p.text().nullable(),
    name: p.text().nullable(),
    comments: p.text().nullable(),
    lastTransactionId: p.uuid().nullable(),
    lastTransactionAt: p.datetime().nullable(),
    creationTransactionId: p.uuid().nullable(),
    creationTransactionAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type OracleDataSource = InferEntity<typeof OracleDataSource>;
