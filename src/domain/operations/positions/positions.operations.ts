/** The position operations (the spec's 2.4 and 4.3): Initialize, Update, Freeze, Unfreeze and Inactivate Position, Mint, Burn, Transfer, Trade. */
import { positionExamples } from '../../examples/position.examples';
import { freezePositionResponse, initializePositionResponse, updatePositionResponse } from '../../responses/position.responses';
import { transactionResult } from '../../responses/write.responses';
import { codecOnly, defineOperation } from '../define-operation';
import * as freezePositionRules from './freeze-position.rules';
import * as inactivatePositionRules from './inactivate-position.rules';
import * as initializePositionRules from './initialize-position.rules';
import * as movementRules from './movement.rules';
import {
  burnItemData,
  freezePositionItemData,
  inactivatePositionItemData,
  initializePositionItemData,
  mintItemData,
  tradeItemData,
  transferItemData,
  updatePositionItemData,
} from './position.inputs';

/** Freeze and Unfreeze Position differ only in their verb. */
const freezeOperation = (action: 'freeze' | 'unfreeze') =>
  defineOperation({
    input: freezePositionItemData,
    validate: freezePositionRules.validateFreezePosition,
    rules: freezePositionRules,
    route: {
      operationId: `${action}Position`,
      method: 'patch',
      path: `/api/v1/positions/${action}`,
      tag: 'Positions',
      summary: `${action === 'freeze' ? 'Freeze' : 'Unfreeze'} Position (SPL and Token-2022), signed by the instrument's freeze authority; answers the transaction result. With \`financialInstrument\` and \`allPositions: true\` (SPL only): every active position of the instrument not yet ${action === 'freeze' ? 'frozen' : 'unfrozen'}, in transactions of at most 20 positions run one after another (at most 50 per request); answers \`{svmTransactions, remainingPositions}\`.`,
      successStatus: 200,
      body: 'FreezePositionRequest',
      response: freezePositionResponse,
      example: positionExamples[`${action}Position`],
    },
  });

export const positionOperations = {
  INITIALIZE_POSITION: defineOperation({
    input: initializePositionItemData,
    validate: initializePositionRules.validateInitializePosition,
    rules: initializePositionRules,
    route: {
      operationId: 'initializePosition',
      method: 'post',
      path: '/api/v1/positions',
      tag: 'Positions',
      summary:
        "Initialize Position: the owner's associated token account for an instrument, or with `position` an explicit account pre-created with Create Account (managed, system-owned; topped up, allocated, assigned and initialized in place; the position keeps its offchain id); thawed at once with `unfreeze` when the instrument freezes new positions; re-initializes an inactive one.",
      successStatus: 201,
      body: 'InitializePositionRequest',
      response: initializePositionResponse,
      example: positionExamples.initializePosition,
      answer: 'newPosition',
      creates: true,
    },
  }),
  UPDATE_POSITION: defineOperation({
    input: updatePositionItemData,
    rules: codecOnly(),
    route: {
      operationId: 'updatePosition',
      method: 'patch',
      path: '/api/v1/positions',
      tag: 'Positions',
      summary: 'Update Position: offchain fields (comments, code, name); no network transaction.',
      successStatus: 200,
      body: 'UpdatePositionRequest',
      response: updatePositionResponse,
      example: positionExamples.updatePosition,
      answer: 'updatedPosition',
    },
  }),
  FREEZE_POSITION: freezeOperation('freeze'),
  UNFREEZE_POSITION: freezeOperation('unfreeze'),
  MINT: defineOperation({
    input: mintItemData,
    validate: (item) => movementRules.validateMint(item),
    rules: movementRules,
    route: {
      operationId: 'mint',
      method: 'post',
      path: '/api/v1/positions/mint',
      tag: 'Positions',
      summary:
        'Mint into a position (spec 4.3): value in UI units (amount) or base units (lamports); idempotent per idempotencyId; freeze/unfreeze for Token-2022 instruments with a freeze authority; optional memo.',
      successStatus: 201,
      body: 'MintRequest',
      response: transactionResult,
      example: positionExamples.mint,
    },
  }),
  BURN: defineOperation({
    input: burnItemData,
    validate: (item) => movementRules.validateBurn(item),
    rules: movementRules,
    route: {
      operationId: 'burn',
      method: 'post',
      path: '/api/v1/positions/burn',
      tag: 'Positions',
      summary:
        'Burn from a position, signed by its owner (or the permanent delegate): value or burnEntireBalance; the balance is checked before anything is signed (INSUFFICIENT_BALANCE); freeze rules as for Mint.',
      successStatus: 201,
      body: 'BurnRequest',
      response: transactionResult,
      example: positionExamples.burn,
    },
  }),
  TRANSFER: defineOperation({
    input: transferItemData,
    validate: (item) => movementRules.validateTransfer(item),
    rules: movementRules,
    route: {
      operationId: 'transferFinancialInstrument',
      method: 'post',
      path: '/api/v1/positions/transfer',
      tag: 'Positions',
      summary:
        'Transfer Financial Instrument between two positions of the same instrument, signed by the source owner (or the permanent delegate); balance checked first; freeze rules per side; memo; transferEntireBalance; initializeDestinationPositionIfNeeded opens the destination in the same transaction.',
      successStatus: 201,
      body: 'TransferRequest',
      response: transactionResult,
      example: positionExamples.transferFinancialInstrument,
    },
  }),
  TRADE: defineOperation({
    input: tradeItemData,
    validate: (item) => movementRules.validateTrade(item),
    rules: movementRules,
    route: {
      operationId: 'trade',
      method: 'post',
      path: '/api/v1/positions/trade',
      tag: 'Positions',
      summary:
        'Trade (spec 4.3): any mix of mint, burn and transfer operations in one atomic transaction, all checked before anything is signed (balances run across the operations); trade-level freeze/unfreeze apply to every operation unless it sets its own flag.',
      successStatus: 201,
      body: 'TradeRequest',
      response: transactionResult,
      example: positionExamples.trade,
    },
  }),
  INACTIVATE_POSITION: defineOperation({
    input: inactivatePositionItemData,
    validate: inactivatePositionRules.validateInactivatePosition,
    rules: inactivatePositionRules,
    route: {
      operationId: 'inactivatePosition',
      method: 'patch',
      path: '/api/v1/positions/inactivate',
      tag: 'Positions',
      summary:
        'Inactivate Position (spec 4.3): the remaining balance burned or transferred, a frozen Token-2022 position thawed with unfreezeIfNeeded, the account closed and its rent refunded to the fee payer (default) or refundNetworkCurrrencyDestination; the position becomes INACTIVE.',
      successStatus: 200,
      body: 'InactivatePositionRequest',
      response: transactionResult,
      example: positionExamples.inactivatePosition,
    },
  }),
};
