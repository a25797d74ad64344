/** Positions: the writes (Initialize, Update, Freeze, Unfreeze, Inactivate Position, Mint, Burn, Transfer, Trade), Fetch Positions, Fetch Position Details, Fetch Position Balance. */
import { getTokenDecoder } from '@solana-program/token-2022';
import { FinancialInstrument, Position } from '../../db/entities';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { fromBaseUnits, scaleAmount } from '../../domain/money';
import { singlePositionBody } from '../codecs/position.codecs';
import type { ApiDeps } from '../context';
import { exactNumber } from '../presenters/account.presenter';
import { positionFields, presentPosition } from '../presenters/position.presenter';
import type { RouteSpec } from '../route';
import { singleReadsOf } from './single-route';
import { bulkRoute } from './bulk-route';
import { writeRoutes } from './write-route';
import { freezeAllInstead } from './freeze-all-positions';
import { positionQuery } from './query-fields';
import { positionBalanceResponse, positionLevels } from '../../domain/responses/position.responses';
import { positionOperations } from '../../domain/operations/positions/positions.operations';

export function positionRoutes(deps: ApiDeps): RouteSpec[] {
  /** The single-position reads: the position the body names, within the acting tenant, and its instrument. */
  const positionRoute = singleReadsOf(deps, singlePositionBody, async ({ em, scope, body }) => {
    const position = await findPositionByLookup(em, scope, body.itemData.position, 'itemData.position');
    return { position, instrument: await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId }) };
  });
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
    positionRoute({
      operationId: 'fetchPositionDetails',
      path: '/api/v1/positions/single',
      tag: 'Positions',
      summary: 'Fetch Position Details.',
      response: positionLevels.detailed,
      present: ({ position, instrument }) => presentPosition(position, 'detailed', instrument),
    }),
    positionRoute({
      operationId: 'fetchPositionBalance',
      path: '/api/v1/positions/balance',
      tag: 'Positions',
      summary: 'Fetch Position Balance: live from the network (raw and UI amount; uiAmount under Scaled UI Amount), beside the offchain record.',
      response: positionBalanceResponse,
      async present({ position, instrument }, { scope }) {
        const account = await deps.networks.get(scope.cluster)!.getAccount(position.address);
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
