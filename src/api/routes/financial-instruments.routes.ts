/** Financial instruments: Create Financial Instrument, Fetch Financial Instrument Details, the Token Extensions Calculator. */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, FinancialInstrument } from '../../db/entities';
import { notFound, validationError } from '../../domain/errors';
import { validateCreateFinancialInstrument } from '../../domain/operations/create-financial-instrument.operation';
import { mintAccountSize, rentExemptMinimum } from '../../domain/token-extensions';
import type { AccountLookupInput } from '../codecs/common.codecs';
import { createFinancialInstrumentBody, singleFinancialInstrumentBody, tokenExtensionsCalculatorBody, type CreateFinancialInstrumentItemData } from '../codecs/financial-instrument.codecs';
import type { ApiDeps, Caller } from '../context';
import { lamportsBalance } from '../presenters/account.presenter';
import { presentFinancialInstrument } from '../presenters/financial-instrument.presenter';
import { route, type RouteSpec } from '../route';
import { bulkRoute } from './bulk-route';
import { financialInstrumentQuery } from './query-fields';
import { actingCaller } from '../tenancy';
import { runWrite } from '../writes';
import { importedKey } from './accounts.routes';

/** The instrument a lookup names: by offchain id, mint address or AL ID, within the tenant. */
async function findInstrument(em: EntityManager, caller: Caller, cluster: string, lookup: AccountLookupInput, field: string): Promise<FinancialInstrument> {
  const where: Record<string, unknown> = { organizationId: caller.organizationId, cluster };
  if (lookup.offchainId) where.id = lookup.offchainId;
  if (lookup.onchainId) where.mintAddress = lookup.onchainId;
  if (lookup.offchainReferences?.alId) where.alId = lookup.offchainReferences.alId;
  if (Object.keys(where).length === 2) throw validationError(field, `${field} needs onchainId, offchainId or offchainReferences.alId`);
  const found = await em.findOne(FinancialInstrument, where);
  if (!found) throw notFound(field, `${field}: no such financial instrument`);
  return found;
}

export function financialInstrumentRoutes(deps: ApiDeps): RouteSpec[] {
  const fork = () => deps.orm.em.fork() as unknown as EntityManager;
  return [
    route({
      method: 'post',
      path: '/api/v1/financial-instruments',
      tag: 'Financial instruments',
      summary:
        'Create Financial Instrument: a new SPL or Token-2022 mint in one transaction, its extensions switched on by the fields that configure them, with an AL ID (given or generated from mintAccount.offchainReferences.newAlId).',
      role: 'WRITE',
      write: true,
      body: createFinancialInstrumentBody,
      successStatus: 201,
      async handler(ctx, body) {
        const em = fork();
        const caller = await actingCaller(ctx, deps, em, body.tenancyConfig);
        const item = body.itemData;
        validateCreateFinancialInstrument(item);
        const sealed: CreateFinancialInstrumentItemData = item.mintAccount?.privateKeyDetails?.privateKey
          ? { ...item, mintAccount: { ...item.mintAccount, privateKeyDetails: { ...item.mintAccount.privateKeyDetails, privateKey: deps.sealer.seal(await importedKey(item.mintAccount, 'itemData.mintAccount')) } } }
          : item;
        const answer = await runWrite(ctx, deps, {
          operation: 'CREATE_FINANCIAL_INSTRUMENT',
          caller,
          itemData: sealed,
          svmTransactionConfig: body.svmTransactionConfig,
          newRecordId: randomUUID(),
          extraRecordIds: { mintAccount: randomUUID() },
        });
        if (answer.async) {
          ctx.state.status = 202;
          return { transaction: answer.transaction };
        }
        return { newFinancialInstrument: answer.created ?? null, svmTransaction: answer.transaction };
      },
    }),
    bulkRoute(deps, {
      path: '/api/v1/financial-instruments/bulk',
      tag: 'Financial instruments',
      summary: 'Fetch Financial Instruments with filter, sort and paging (authority filters by <name>OnchainId / <name>OffchainId).',
      entity: FinancialInstrument,
      query: financialInstrumentQuery,
      present: (fi, level) => presentFinancialInstrument(fi, level),
    }),
    route({
      method: 'post',
      path: '/api/v1/financial-instruments/single',
      tag: 'Financial instruments',
      summary: 'Fetch Financial Instrument Details.',
      role: 'READ',
      body: singleFinancialInstrumentBody,
      successStatus: 200,
      async handler(ctx, body) {
        const em = fork();
        const caller = await actingCaller(ctx, deps, em, body.tenancyConfig);
        const instrument = await findInstrument(em, caller, ctx.state.cluster, body.itemData.financialInstrument, 'itemData.financialInstrument');
        const ids = [instrument.mintAccountId, ...Object.values(instrument.authorities).map((a) => a.accountId)].filter((id): id is string => !!id);
        const accounts = new Map((await em.find(Account, { id: { $in: ids } })).map((a) => [a.id, a]));
        return presentFinancialInstrument(instrument, 'detailed', accounts);
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/financial-instruments/token-extensions-calculator',
      tag: 'Financial instruments',
      summary:
        'Token Extensions Calculator: the mint account size for a list of Token-2022 extensions (plus Token Metadata when `metadata` is given; it brings its Metadata Pointer) and its rent-exempt minimum at the default rent. Use the size as `dataLength` to pre-create a mint with Create Account.',
      role: 'READ',
      usesCluster: false,
      body: tokenExtensionsCalculatorBody,
      successStatus: 200,
      response: {
        type: 'object',
        properties: { mintAccountSize: { type: 'integer' }, estimatedRent: { type: 'object', properties: { amount: { type: 'number' }, lamports: { type: 'integer' } } } },
      },
      async handler(_ctx, body) {
        const metadata = body.metadata && { name: body.metadata.name, symbol: body.metadata.symbol, uri: body.metadata.uri, additionalMetadata: body.metadata.simpleCustomMetadata };
        const size = mintAccountSize(body.extensions, metadata);
        return { mintAccountSize: size, estimatedRent: lamportsBalance(rentExemptMinimum(size)) };
      },
    }),
  ];
}
