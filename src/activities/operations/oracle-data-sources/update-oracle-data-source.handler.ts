/**
 * Update Oracle Data Source Definition (spec 4.5, patch): provided fields replace, others stay. A new
 * job definition is checked and its feedHash written onchain at once (the value changes at the next
 * refresh); kind and ratingProvider are written too; a new authority takes over the metadata and
 * the mint; the instrument link and the schedule change offchain. Nothing onchain to change: an
 * offchain write.
 */
import { OracleDataSource } from '../../../db/entities';
import { assertMaySign, findAccountByLookup, requireSigner } from '../../../db/repositories/accounts.repository';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { findDataSourceByLookup } from '../../../db/repositories/oracle-data-sources.repository';
import type { UpdateOracleDataSourceItemData } from '../../../domain/operations/oracle-data-sources/oracle-data-source.inputs';
import { feedHash } from '../../../domain/oracle-job';
import {
  changedFields,
  dataSourcePatch,
  feedTopUp,
  newAuthorityOf,
  patchedDataSourceFields,
  patchedKind,
  type DataSourcePatch,
} from '../../../domain/operations/oracle-data-sources/oracle-data-source.rules';
import { feedWriteInstructions, type FeedWriteData } from './feed-write';
import { checkedDefinition } from '../../oracle/feed-job';
import { refreshTarget } from './create-onchain-data-source.handler';
import { paidBy, resolveFeePayer, offchainOnly } from '../fee-payer';
import { readFeedMint } from '../../../network/feed-mint';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';

interface UpdateFeedData extends FeedWriteData {
  newAuthority: { address: string; accountId: string } | null;
  /** The record after the patch. */
  patch: DataSourcePatch;
}

export const updateOracleDataSourceHandler: OperationHandler<UpdateOracleDataSourceItemData, UpdateFeedData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const field = 'itemData.onchainDataSource';
    const scope = scopeOf(request);
    const network = deps.networks.get(request.cluster)!;
    const source = await findDataSourceByLookup(em, scope, item.onchainDataSource, field);
    const definition = item.providerDetails?.jobDefinition;
    if (definition !== undefined) checkedDefinition(deps, definition);
    const { kind, ratingProvider } = patchedKind(item, { kind: source.kind, ratingProvider: source.ratingProvider ?? null });
    const instrument = item.financialInstrument ? await findInstrumentByLookup(em, scope, item.financialInstrument, 'itemData.financialInstrument') : undefined;
    let newAuthority: UpdateFeedData['newAuthority'] = null;
    if (item.onchainDataSourceAuthority) {
      const at = 'itemData.onchainDataSourceAuthority';
      const account = await findAccountByLookup(em, scope, item.onchainDataSourceAuthority, at);
      assertMaySign(account, request.organizationId, request.organizationExternalId, at);
      newAuthority = newAuthorityOf(account, source.authorityAddress);
    }
    const chain = await readFeedMint(network, source.address, field);
    const fields = changedFields(chain, {
      kind,
      ratingProvider: ratingProvider ?? '',
      ...(definition !== undefined ? { feedHash: feedHash(definition) } : {}),
    });
    const patch = dataSourcePatch(item, { kind, ratingProvider }, instrument);
    const data = {
      dataSourceId: source.id,
      mint: source.address,
      authority: source.authorityAddress,
      extensions: [...chain.extensions],
      topUp: feedTopUp(chain, fields),
      fields,
      newAuthority,
      patch,
    };
    if (!fields.length && !newAuthority) {
      return offchainOnly(deps.feePayerAddress, data);
    }
    const authority = await requireSigner(em, source.authorityAccountId, field, "data source's authority");
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    return paidBy(feePayer, data, authority);
  },

  instructions: feedWriteInstructions,

  async record(em, _request, resolved, outcome, tx, at) {
    if (outcome && !landed(outcome)) return undefined;
    const data = resolved.data;
    const source = await em.findOneOrFail(OracleDataSource, { id: data.dataSourceId });
    Object.assign(source, {
      ...patchedDataSourceFields(data.patch, data.newAuthority),
      ...(outcome ? { lastTransactionId: tx?.id ?? null, lastTransactionAt: at } : {}),
    });
    linkRecords(tx, [source.id], true);
    return { onchainId: data.mint, offchainId: data.dataSourceId };
  },

  /** The schedule follows the record, for an offchain update too. */
  reconcilesOffchain: true,
  async reconcile(_em, deps, request, resolved) {
    const patch = resolved.data.patch;
    if (patch.refreshEverySeconds === undefined) return;
    await deps.oracleSchedules?.sync(refreshTarget(request, resolved.data.dataSourceId), patch.refreshEverySeconds);
  },
};
