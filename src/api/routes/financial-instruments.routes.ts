/** Financial instruments: Create Financial Instrument, Fetch Financial Instrument Details, the Token Extensions Calculator. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, FinancialInstrument } from '../../db/entities';
import { notFound } from '../../domain/errors';
import { findInstrumentByLookup } from '../../db/repositories/financial-instruments.repository';
import { mintAccountSize, rentExemptMinimum } from '../../domain/token-extensions';
import { singleFinancialInstrumentBody, tokenExtensionsCalculatorBody } from '../codecs/financial-instrument.codecs';
import type { ApiDeps } from '../context';
import { exactNumber, lamportsBalance } from '../presenters/account.presenter';
import { decodeMintState } from '../../domain/mint-state';
import { fromBaseUnits, scaleAmount } from '../../domain/money';
import { presentFinancialInstrument } from '../presenters/financial-instrument.presenter';
import { route, type RouteSpec } from '../route';
import { singleReadsOf } from './single-route';
import { bulkRoute } from './bulk-route';
import { writeRoutes } from './write-route';
import { financialInstrumentOperations } from '../../domain/operations/financial-instruments/financial-instruments.operations';
import { financialInstrumentQuery } from './query-fields';
import { importedKey } from './accounts.routes';
import { circulatingSupplyResponse, financialInstrumentLevels, tokenExtensionsCalculatorResponse } from '../../domain/responses/financial-instrument.responses';

/** The mint accounts and authorities' account records of some instruments, by offchain id (one query). */
async function relatedAccounts(em: EntityManager, instruments: FinancialInstrument[]): Promise<Map<string, Account>> {
  const ids = instruments.flatMap((fi) => [fi.mintAccountId, ...Object.values(fi.authorities).map((a) => a.accountId)]).filter((id): id is string => !!id);
  return new Map((await em.find(Account, { id: { $in: [...new Set(ids)] } })).map((a) => [a.id, a]));
}

export function financialInstrumentRoutes(deps: ApiDeps): RouteSpec[] {
  /** The single-instrument reads: the instrument the body names, within the acting tenant. */
  const instrumentRoute = singleReadsOf(deps, singleFinancialInstrumentBody, ({ em, scope, body }) =>
    findInstrumentByLookup(em, scope, body.itemData.financialInstrument, 'itemData.financialInstrument'),
  );
  return [
    ...writeRoutes(deps, financialInstrumentOperations, {
      CREATE_FINANCIAL_INSTRUMENT: {
        async prepare(item) {
          // An imported mint key is checked and sealed here, so that workflow histories never hold it in clear.
          if (!item.mintAccount?.privateKeyDetails?.privateKey) return item;
          const privateKey = deps.sealer.seal(await importedKey(item.mintAccount, 'itemData.mintAccount'));
          return { ...item, mintAccount: { ...item.mintAccount, privateKeyDetails: { ...item.mintAccount.privateKeyDetails, privateKey } } };
        },
      },
    }),
    bulkRoute<FinancialInstrument, Map<string, Account>>(deps, {
      operationId: 'fetchFinancialInstruments',
      levels: financialInstrumentLevels,
      path: '/api/v1/financial-instruments/bulk',
      tag: 'Financial instruments',
      summary: 'Fetch Financial Instruments with filter, sort and paging (authority filters by <name>OnchainId / <name>OffchainId).',
      entity: FinancialInstrument,
      query: financialInstrumentQuery,
      present: (fi, level, accounts, viewer) => presentFinancialInstrument(fi, level, viewer, accounts),
      related: (em, instruments) => relatedAccounts(em, instruments),
    }),
    instrumentRoute({
      operationId: 'fetchFinancialInstrumentDetails',
      path: '/api/v1/financial-instruments/single',
      tag: 'Financial instruments',
      summary: 'Fetch Financial Instrument Details.',
      response: financialInstrumentLevels.detailed,
      present: async (instrument, { em, caller }) =>
        presentFinancialInstrument(instrument, 'detailed', caller.organizationId, await relatedAccounts(em, [instrument])),
    }),
    instrumentRoute({
      operationId: 'fetchFinancialInstrumentCirculatingSupply',
      path: '/api/v1/financial-instruments/circulating-supply',
      tag: 'Financial instruments',
      summary: 'Fetch Financial Instrument Circulating Supply, read from the mint on the network (with the UI amount where Scaled UI Amount applies).',
      response: circulatingSupplyResponse,
      async present(instrument, { scope }) {
        const data = await deps.networks.get(scope.cluster)!.getAccount(instrument.mintAddress);
        if (!data) throw notFound('itemData.financialInstrument', `the mint ${instrument.mintAddress} is not on ${scope.cluster}`);
        const mint = decodeMintState(data.data, deps.now());
        return {
          financialInstrument: presentFinancialInstrument(instrument, 'identifiers'),
          decimals: mint.decimals,
          circulatingSupply: { amount: exactNumber(fromBaseUnits(mint.supply, mint.decimals)), lamports: mint.supply },
          uiAmount: mint.uiMultiplier === null ? null : exactNumber(scaleAmount(mint.supply, mint.decimals, mint.uiMultiplier)),
        };
      },
    }),
    route({
      operationId: 'tokenExtensionsCalculator',
      method: 'post',
      path: '/api/v1/financial-instruments/token-extensions-calculator',
      tag: 'Financial instruments',
      summary:
        'Token Extensions Calculator: the mint account size for a list of Token-2022 extensions (plus Token Metadata when `metadata` is given; it brings its Metadata Pointer) and its rent-exempt minimum at the default rent. Use the size as `dataLength` to pre-create a mint with Create Account.',
      role: 'READ',
      usesCluster: false,
      body: tokenExtensionsCalculatorBody,
      successStatus: 200,
      response: tokenExtensionsCalculatorResponse,
      async handler(_ctx, body) {
        const metadata = body.metadata && {
          name: body.metadata.name,
          symbol: body.metadata.symbol,
          uri: body.metadata.uri,
          additionalMetadata: body.metadata.simpleCustomMetadata,
        };
        const size = mintAccountSize(body.extensions, metadata);
        return { mintAccountSize: size, estimatedRent: lamportsBalance(rentExemptMinimum(size)) };
      },
    }),
  ];
}
