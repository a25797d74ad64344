/** Positions: Initialize Position, Fetch Position Details, Fetch Position Balance. */
import { getTokenDecoder } from '@solana-program/token-2022';
import { FinancialInstrument, Position } from '../../db/entities';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { fromBaseUnits, scaleAmount } from '../../domain/money';
import { burnBody, freezePositionBody, inactivatePositionBody, initializePositionBody, mintBody, tradeBody, transferBody, singlePositionBody, updatePositionBody } from '../codecs/position.codecs';
import type { PositionLookupInput } from '../../domain/operations/positions/position.inputs';
import type { ApiDeps, LedgerContext } from '../context';
import { exactNumber } from '../presenters/account.presenter';
import { positionFields, presentPosition } from '../presenters/position.presenter';
import { route, type RouteSpec } from '../route';
import { bulkRoute } from './bulk-route';
import { writeRoute } from './write-route';
import { freezeAllPositions } from './freeze-all-positions';
import { positionQuery } from './query-fields';
import { actingScope } from '../tenancy';
import { freezePositionResponse, initializePositionResponse, positionBalanceResponse, positionLevels, updatePositionResponse } from '../../domain/responses/position.responses';
import { transactionResult } from '../../domain/responses/write.responses';

export function positionRoutes(deps: ApiDeps): RouteSpec[] {
  const lookedUp = async (ctx: LedgerContext, body: { itemData: { position: PositionLookupInput }; tenancyConfig?: { overrideOrganizationExternalId?: string } }) => {
    const { em, scope } = await actingScope(ctx, deps, body.tenancyConfig);
    const position = await findPositionByLookup(em, scope, body.itemData.position, 'itemData.position');
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
    return { position, instrument };
  };
  return [
    writeRoute(deps, {
      operationId: 'initializePosition',
      method: 'post',
      path: '/api/v1/positions',
      tag: 'Positions',
      summary:
        "Initialize Position: the owner's associated token account for an instrument, or with `position` an explicit account pre-created with Create Account (managed, system-owned; topped up, allocated, assigned and initialized in place; the position keeps its offchain id); thawed at once with `unfreeze` when the instrument freezes new positions; re-initializes an inactive one.",
      body: initializePositionBody,
      successStatus: 201,
      response: initializePositionResponse,
      operation: 'INITIALIZE_POSITION',
      answer: 'newPosition',
      creates: true,
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
      related: async (em, positions) => new Map((await em.find(FinancialInstrument, { id: { $in: [...new Set(positions.map((p) => p.financialInstrumentId))] } })).map((fi) => [fi.id, fi])),
    }),
    writeRoute(deps, {
      operationId: 'updatePosition',
      method: 'patch',
      path: '/api/v1/positions',
      tag: 'Positions',
      summary:
        'Update Position: offchain fields (comments, code, name); no network transaction.',
      body: updatePositionBody,
      successStatus: 200,
      response: updatePositionResponse,
      operation: 'UPDATE_POSITION',
      answer: 'updatedPosition',
    }),
    ...([['freeze', 'FREEZE_POSITION'], ['unfreeze', 'UNFREEZE_POSITION']] as const).map(([action, operation]) =>
      writeRoute(deps, {
        operationId: `${action}Position`,
        method: 'patch',
        path: `/api/v1/positions/${action}`,
        tag: 'Positions',
        summary: `${action === 'freeze' ? 'Freeze' : 'Unfreeze'} Position (SPL and Token-2022), signed by the instrument's freeze authority; answers the transaction result. With \`financialInstrument\` and \`allPositions: true\` (SPL only): every active position of the instrument not yet ${action === 'freeze' ? 'frozen' : 'unfrozen'}, in transactions of at most 20 positions run one after another (at most 50 per request); answers \`{svmTransactions, remainingPositions}\`.`,
        body: freezePositionBody,
        successStatus: 200,
        response: freezePositionResponse,
        operation,
        instead: (body) => (body.itemData.allPositions ? (ctx, input) => freezeAllPositions(ctx, deps, { ...input, operation, itemData: body.itemData }) : undefined),
      }),
    ),
    writeRoute(deps, {
      operationId: 'mint',
      method: 'post',
      path: '/api/v1/positions/mint',
      tag: 'Positions',
      summary:
        'Mint into a position (spec 4.3): value in UI units (amount) or base units (lamports); idempotent per idempotencyId; freeze/unfreeze for Token-2022 instruments with a freeze authority; optional memo.',
      body: mintBody,
      successStatus: 201,
      response: transactionResult,
      operation: 'MINT',
    }),
    writeRoute(deps, {
      operationId: 'burn',
      method: 'post',
      path: '/api/v1/positions/burn',
      tag: 'Positions',
      summary:
        'Burn from a position, signed by its owner (or the permanent delegate): value or burnEntireBalance; the balance is checked before anything is signed (INSUFFICIENT_BALANCE); freeze rules as for Mint.',
      body: burnBody,
      successStatus: 201,
      response: transactionResult,
      operation: 'BURN',
    }),
    writeRoute(deps, {
      operationId: 'transferFinancialInstrument',
      method: 'post',
      path: '/api/v1/positions/transfer',
      tag: 'Positions',
      summary:
        'Transfer Financial Instrument between two positions of the same instrument, signed by the source owner (or the permanent delegate); balance checked first; freeze rules per side; memo; transferEntireBalance; initializeDestinationPositionIfNeeded opens the destination in the same transaction.',
      body: transferBody,
      successStatus: 201,
      response: transactionResult,
      operation: 'TRANSFER',
    }),
    writeRoute(deps, {
      operationId: 'trade',
      method: 'post',
      path: '/api/v1/positions/trade',
      tag: 'Positions',
      summary:
        'Trade (spec 4.3): any mix of mint, burn and transfer operations in one atomic transaction, all checked before anything is signed (balances run across the operations); trade-level freeze/unfreeze apply to every operation unless it sets its own flag.',
      body: tradeBody,
      successStatus: 201,
      response: transactionResult,
      operation: 'TRADE',
    }),
    writeRoute(deps, {
      operationId: 'inactivatePosition',
      method: 'patch',
      path: '/api/v1/positions/inactivate',
      tag: 'Positions',
      summary:
        'Inactivate Position (spec 4.3): the remaining balance burned or transferred, a frozen Token-2022 position thawed with unfreezeIfNeeded, the account closed and its rent refunded to the fee payer (default) or refundNetworkCurrrencyDestination; the position becomes INACTIVE.',
      body: inactivatePositionBody,
      successStatus: 200,
      response: transactionResult,
      operation: 'INACTIVATE_POSITION',
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
        const ui = (value: bigint) => (multiplier === null || multiplier === undefined ? null : exactNumber(scaleAmount(value, instrument.decimals, Number(multiplier))));
        return {
          position: presentPosition(position, 'identifiers'),
          decimals: instrument.decimals,
          onchain: { exists: !!onchain, frozen: onchain ? onchain.state === 2 : null, balance: { amount: exactNumber(fromBaseUnits(units, instrument.decimals)), lamports: units }, uiAmount: ui(units) },
          offchain: { balance: { amount: exactNumber(fromBaseUnits(offchain, instrument.decimals)), lamports: offchain }, uiAmount: ui(offchain) },
        };
      },
    }),
  ];
}
