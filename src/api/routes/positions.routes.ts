/** Positions: the writes (Initialize, Update, Freeze, Unfreeze, Inactivate Position, Mint, Burn, Transfer, Trade), Fetch Positions, Fetch Position Details, Fetch Position Balance. */
import { getTokenDecoder } from '@solana-program/token-2022';
import { FinancialInstrument, Position } from '../../db/entities';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { fromBaseUnits, scaleAmount } from '../../domain/money';
import { singlePositionBody } from '../codecs/position.codecs';
import type { PositionLookupInput } from '../../domain/operations/positions/position.inputs';
import type { ApiDeps, LedgerContext } from '../context';
import { exactNumber } from '../presenters/account.presenter';
import { positionFields, presentPosition } from '../presenters/position.presenter';
import { route, type RouteSpec } from '../route';
import { bulkRoute } from './bulk-route';
import { writeRoutes } from './write-route';
import { freezeAllInstead } from './freeze-all-positions';
import { positionQuery } from './query-fields';
import { actingScope } from '../tenancy';
import { positionBalanceResponse, positionLevels } from '../../domain/responses/position.responses';
import { positionOperations } from '../../domain/operations/positions/positions.operations';

export function positionRoutes(deps: ApiDeps): RouteSpec[] {
  const lookedUp = async (
    ctx: LedgerContext,
    body: { itemData: { position: PositionLookupInput }; tenancyConfig?: { overrideOrganizationExternalId?: string } },
  ) => {
    const { em, scope } = await actingScope(ctx, deps, body.tenancyConfig);
    const position = await findPositionByLookup(em, scope, body.itemData.position, 'itemData.position');
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
    return { position, instrument };
  };
  return [
    ...writeRoutes(deps, positionOperations, {
      FREEZE_POSITION: { instead: freezeAllInstead(deps, 'FREEZE_POSITION') },
      UNFREEZE_POSITION: { instead: freezeAllInstead(deps, 'UNFREEZE_POSITION') },
    }),
    bulkRoute<Position, Map<string, FinancialInstrument>>(deps, {
      operationId: 'fetchPositions',
      levels: positionLevels,
      path: '/api/v1/positions/bulk',
      tag: 'Positions',
      summary:
        'Fetch Positions with filter, sort and paging. Fields: status, frozen, associated, ownerOnchainId, ownerOffchainId, financialInstrumentOnchainId, financialInstrumentOffchainId, positionOnchainId, balance, code, name, comments, lastTransactionAt, creationTransactionAt (default, newest first), tenantOrganizationId.',
      entity: Position,
      query: positionQuery,
      fields: positionFields,
      present: (position, level, instruments) => presentPosition(position, level, instruments?.get(position.financialInstrumentId)),
      related: async (em, positions) =>
        new Map((await em.find(FinancialInstrument, { id: { $in: [...new Set(positions.map((p) => p.financialInstrumentId))] } })).map((fi) => [fi.id, fi])),
    }),
    route({
      operationId: 'fetchPositionDetails',
      method: 'post',
      path: '/api/v1/positions/single',
      tag: 'Positions',
      summary: 'Fetch Position Details.',
      role: 'READ',
      body: singlePositionBody,
      successStatus: 200,
      response: positionLevels.detailed,
      async handler(ctx, body) {
        const { position, instrument } = await lookedUp(ctx, body);
        return presentPosition(position, 'detailed', instrument);
      },
    }),
    route({
      operationId: 'fetchPositionBalance',
      method: 'post',
      path: '/api/v1/positions/balance',
      tag: 'Positions',
      summary: 'Fetch Position Balance: live from the network (raw and UI amount; uiAmount under Scaled UI Amount), beside the offchain record.',
      role: 'READ',
      body: singlePositionBody,
      successStatus: 200,
      response: positionBalanceResponse,
      async handler(ctx, body) {
        const { position, instrument } = await lookedUp(ctx, body);
        const account = await deps.networks.get(ctx.state.cluster)!.getAccount(position.address);
        const onchain = account ? getTokenDecoder().decode(account.data) : null;
        const units = onchain?.amount ?? 0n;
        const offchain = BigInt(position.balance);
        // Scaled UI Amount: what wallets show is the balance times the instrument's multiplier.
        const multiplier = instrument.scaledUiAmountMultiplier;
        const ui = (value: bigint) =>
          multiplier === null || multiplier === undefined ? null : exactNumber(scaleAmount(value, instrument.decimals, Number(multiplier)));
        return {
          position: presentPosition(position, 'identifiers'),
          decimals: instrument.decimals,
          onchain: {
            exists: !!onchain,
            frozen: onchain ? onchain.state === 2 : null,
            balance: { amount: exactNumber(fromBaseUnits(units, instrument.decimals)), lamports: units },
            uiAmount: ui(units),
          },
          offchain: { balance: { amount: exactNumber(fromBaseUnits(offchain, instrument.decimals)), lamports: offchain }, uiAmount: ui(offchain) },
        };
      },
    }),
  ];
}
