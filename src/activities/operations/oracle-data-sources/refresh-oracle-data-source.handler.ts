/**
 * Refresh Oracle Data Source: runs the job now and writes value, decimals, updatedAt and slot into
 * the feed's metadata (the rent its grown metadata needs topped up by the fee payer). A job that
 * gives no value refuses the write: the value onchain stays, the reason is kept on the record.
 * Scheduled refreshes are this same write.
 */
import { Loan, OracleDataSource } from '../../../db/entities';
import { requireSigner } from '../../../db/repositories/accounts.repository';
import { findDataSourceByLookup } from '../../../db/repositories/oracle-data-sources.repository';
import type { OnchainDataSourceItemData } from '../../../domain/operations/oracle-data-sources/oracle-data-source.inputs';
import { changedFields, feedTopUp, refreshedDataSourceFields, type FeedValue } from '../../../domain/operations/oracle-data-sources/oracle-data-source.rules';
import { feedWriteInstructions, type FeedWriteData } from './feed-write';
import { checkedDefinition, recordRefreshFailure, runFeedJob } from '../../oracle/feed-job';
import { paidBy, resolveFeePayer } from '../fee-payer';
import { readFeedMint } from '../../../network/feed-mint';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';

interface RefreshData extends FeedWriteData {
  value: FeedValue;
}

export const refreshOracleDataSourceHandler: OperationHandler<OnchainDataSourceItemData, RefreshData> = {
  async lookup(em, deps, request) {
    const field = 'itemData.onchainDataSource';
    const scope = scopeOf(request);
    const network = deps.networks.get(request.cluster)!;
    const source = await findDataSourceByLookup(em, scope, request.itemData.onchainDataSource, field);
    const authority = await requireSigner(em, source.authorityAccountId, field, "data source's authority");
    let value: FeedValue;
    try {
      value = await runFeedJob(deps, network, checkedDefinition(deps, source.jobDefinition, `${field}.providerDetails.jobDefinition`));
    } catch (error) {
      await recordRefreshFailure(em, source.id, error, deps.now());
      throw error;
    }
    const chain = await readFeedMint(network, source.address, field);
    // updatedAt and slot change with every refresh, so there is always something to write.
    const fields = changedFields(chain, { value: value.value, decimals: String(value.decimals), updatedAt: value.updatedAt, slot: value.slot });
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    return paidBy(
      feePayer,
      { dataSourceId: source.id, mint: source.address, authority, extensions: [...chain.extensions], topUp: feedTopUp(chain, fields), fields, value },
      authority,
    );
  },

  instructions: feedWriteInstructions,

  async record(em, _request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const data = resolved.data;
    const source = await em.findOneOrFail(OracleDataSource, { id: data.dataSourceId });
    Object.assign(source, { ...refreshedDataSourceFields(data.value), lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
    linkRecords(tx, [source.id, source.accountId], true);
    return { onchainId: data.mint, offchainId: data.dataSourceId };
  },

  /** Loans valued in this instrument read the loan again at the new price (and are liquidated past their ratio). */
  async reconcile(em, deps, request, resolved) {
    const source = await em.findOneOrFail(OracleDataSource, { id: resolved.data.dataSourceId });
    const loans = await em.find(Loan, { organizationId: source.organizationId, status: { $in: ['OPEN', 'OVERDUE'] } });
    for (const loan of loans) {
      if (loan.principalInstrumentId === source.financialInstrumentId || loan.pledged.some((p) => p.financialInstrumentId === source.financialInstrumentId)) {
        await deps.loans?.changed(loan.organizationId, loan.escrowAddress);
      }
    }
  },
};
