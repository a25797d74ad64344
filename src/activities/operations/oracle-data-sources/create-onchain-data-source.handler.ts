/**
 * Create Onchain Data Source (`LEDGER_FEED`): runs the job once for the first value, then creates
 * the feed mint with its self-pointing metadata holding every feed field, signed by the data
 * source's authority (a managed key this organization may use); records the mint's account and the
 * data source, and starts its schedule when refreshEverySeconds asks for one.
 */
import { OracleDataSource } from '../../../db/entities';
import { assertMaySign, createAccountRecord, createdBy, findAccountByLookup, payloadFields } from '../../../db/repositories/accounts.repository';
import { keyLocationOf } from '../../../domain/operations/accounts/create-account.rules';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import type { CreateOnchainDataSourceItemData } from '../../../domain/operations/oracle-data-sources/oracle-data-source.inputs';
import { feedHash } from '../../../domain/oracle-job';
import {
  createdDataSourceFields,
  feedAccountFields,
  feedFields,
  feedMintLamports,
  feedName,
  planCreateFeed,
  requireNewFeedAccount,
  type CreatedFeed,
} from '../../../domain/operations/oracle-data-sources/oracle-data-source.rules';
import { checkedDefinition, runFeedJob } from '../../oracle/feed-job';
import { resolveFeePayer } from '../fee-payer';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { signerSet } from '../../../domain/write';

export const createOnchainDataSourceHandler: OperationHandler<CreateOnchainDataSourceItemData, CreatedFeed> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const network = deps.networks.get(request.cluster)!;
    const definition = checkedDefinition(deps, item.providerDetails.jobDefinition);
    const instrument = await findInstrumentByLookup(em, scope, item.financialInstrument, 'itemData.financialInstrument');
    const authority = await findAccountByLookup(em, scope, item.onchainDataSourceAuthority, 'itemData.onchainDataSourceAuthority');
    // The authority writes every value, scheduled ones included: a key the service holds for this organization.
    assertMaySign(authority, request.organizationId, request.organizationExternalId, 'itemData.onchainDataSourceAuthority');
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const value = await runFeedJob(deps, network, definition);
    const fields = feedFields(
      { kind: item.dataDetails.kind, ratingProvider: item.dataDetails.ratingProvider ?? null, feedHash: feedHash(item.providerDetails.jobDefinition) },
      value,
    );
    const mint = await deps.keyStore.generate(em, request.organizationId, `${request.transactionId}:feed`, keyLocationOf(item.onchainDataSource));
    requireNewFeedAccount(await network.accountExists(mint), mint);
    const name = feedName(item.onchainDataSource.offchainReferences?.name, item.dataDetails.kind, instrument.symbol ?? null);
    const lamports = feedMintLamports(name, fields);
    const data: CreatedFeed = {
      dataSourceId: request.newRecordId!,
      mintAccountId: request.extraRecordIds!.mintAccount,
      mint,
      name,
      authority: authority.address,
      authorityAccountId: authority.id,
      instrumentId: instrument.id,
      instrumentAddress: instrument.mintAddress,
      fields,
      lamports: lamports.toString(),
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: signerSet(feePayer.address, mint, authority.address),
      debits: [
        {
          accountId: feePayer.accountId,
          address: feePayer.address,
          asset: 'NETWORK_CURRENCY',
          amount: data.lamports,
          destination: { address: mint, class: 'MANAGED' },
        },
      ],
      webhooks: feePayer.webhooks,
      reservesAddress: mint,
      data,
    };
  },

  tooLargeHint: 'Use a shorter onchainDataSource.offchainReferences.name, or a value with fewer digits (roundTask).',

  instructions(_request, resolved) {
    const data = resolved.data;
    return planCreateFeed({ feePayer: resolved.feePayer, mint: data.mint, authority: data.authority, name: data.name, fields: data.fields });
  },

  async record(em, request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const item = request.itemData;
    const data = resolved.data;
    // The payload's labels and flags, then what makes it the feed mint.
    const account = { ...payloadFields(item.onchainDataSource), ...feedAccountFields(item, data), privateKeyLocation: [keyLocationOf(item.onchainDataSource)] };
    createAccountRecord(em, { id: data.mintAccountId, ...scopeOf(request), ...account, ...createdBy(tx, at) }, at);
    await em.flush();
    em.create(OracleDataSource, {
      ...scopeOf(request),
      ...createdDataSourceFields(item, data),
      lastTransactionId: tx?.id ?? null,
      lastTransactionAt: at,
      creationTransactionId: tx?.id ?? null,
      creationTransactionAt: at,
      createdAt: at,
      updatedAt: at,
    });
    linkRecords(tx, [data.dataSourceId, data.mintAccountId], true);
    return { onchainId: data.mint, offchainId: data.dataSourceId };
  },

  async reconcile(_em, deps, request, resolved) {
    const seconds = request.itemData.refreshEverySeconds;
    if (seconds) await deps.oracleSchedules?.sync(refreshTarget(request, resolved.data.dataSourceId), seconds);
  },
};

/** The schedule's target: the data source, written in the name of the organization and API key that created it. */
export function refreshTarget(request: { organizationId: string; organizationExternalId: string; apiKeyId: string; cluster: string }, dataSourceId: string) {
  return {
    dataSourceId,
    organizationId: request.organizationId,
    organizationExternalId: request.organizationExternalId,
    apiKeyId: request.apiKeyId,
    cluster: request.cluster,
  };
}
