/** The financial instrument operations (the spec's 2.4): Create, Update, Pause, Unpause and Close Financial Instrument. */
import { financialInstrumentExamples } from '../../examples/financial-instrument.examples';
import { createFinancialInstrumentResponse, updateFinancialInstrumentResponse } from '../../responses/financial-instrument.responses';
import { transactionResult } from '../../responses/write.responses';
import { defineOperation } from '../define-operation';
import * as closeFinancialInstrumentRules from './close-financial-instrument.rules';
import * as createFinancialInstrumentRules from './create-financial-instrument.rules';
import {
  closeFinancialInstrumentItemData,
  createFinancialInstrumentItemData,
  pauseFinancialInstrumentItemData,
  updateFinancialInstrumentItemData,
} from './financial-instrument.inputs';
import * as pauseFinancialInstrumentRules from './pause-financial-instrument.rules';
import * as updateFinancialInstrumentRules from './update-financial-instrument.rules';

export const financialInstrumentOperations = {
  CREATE_FINANCIAL_INSTRUMENT: defineOperation({
    input: createFinancialInstrumentItemData,
    validate: (item) => createFinancialInstrumentRules.validateCreateFinancialInstrument(item),
    rules: createFinancialInstrumentRules,
    route: {
      operationId: 'createFinancialInstrument',
      method: 'post',
      path: '/api/v1/financial-instruments',
      tag: 'Financial instruments',
      summary:
        'Create Financial Instrument: a new SPL or Token-2022 mint in one transaction, its extensions switched on by the fields that configure them, with an AL ID (given or generated from mintAccount.offchainReferences.newAlId).',
      successStatus: 201,
      body: 'CreateFinancialInstrumentRequest',
      response: createFinancialInstrumentResponse,
      example: financialInstrumentExamples.createFinancialInstrument,
      creates: true,
      extraRecords: ['mintAccount', 'logo'],
      answer: 'newFinancialInstrument',
    },
  }),
  PAUSE_FINANCIAL_INSTRUMENT: defineOperation({
    input: pauseFinancialInstrumentItemData,
    rules: pauseFinancialInstrumentRules,
    route: {
      operationId: 'pauseFinancialInstrument',
      method: 'patch',
      path: '/api/v1/financial-instruments/pause',
      tag: 'Financial instruments',
      summary: 'Pause Financial Instrument (Token-2022 Pausable), signed by its pausable authority; answers the transaction result.',
      successStatus: 200,
      body: 'PauseFinancialInstrumentRequest',
      response: transactionResult,
      example: financialInstrumentExamples.pauseFinancialInstrument,
    },
  }),
  UNPAUSE_FINANCIAL_INSTRUMENT: defineOperation({
    input: pauseFinancialInstrumentItemData,
    rules: pauseFinancialInstrumentRules,
    route: {
      operationId: 'unpauseFinancialInstrument',
      method: 'patch',
      path: '/api/v1/financial-instruments/unpause',
      tag: 'Financial instruments',
      summary: 'Unpause Financial Instrument (Token-2022 Pausable), signed by its pausable authority; answers the transaction result.',
      successStatus: 200,
      body: 'PauseFinancialInstrumentRequest',
      response: transactionResult,
      example: financialInstrumentExamples.unpauseFinancialInstrument,
    },
  }),
  CLOSE_FINANCIAL_INSTRUMENT: defineOperation({
    input: closeFinancialInstrumentItemData,
    rules: closeFinancialInstrumentRules,
    route: {
      operationId: 'closeFinancialInstrument',
      method: 'patch',
      path: '/api/v1/financial-instruments/close',
      tag: 'Financial instruments',
      summary:
        'Close Financial Instrument: a TOKEN_2022 mint with zero supply, by its closing authority; its rent goes to refundDestination (default: the fee payer) and the record becomes CLOSED.',
      successStatus: 200,
      body: 'CloseFinancialInstrumentRequest',
      response: transactionResult,
      example: financialInstrumentExamples.closeFinancialInstrument,
    },
  }),
  UPDATE_FINANCIAL_INSTRUMENT: defineOperation({
    input: updateFinancialInstrumentItemData,
    validate: (item) => updateFinancialInstrumentRules.validateUpdateFinancialInstrument(item),
    rules: updateFinancialInstrumentRules,
    route: {
      operationId: 'updateFinancialInstrument',
      method: 'patch',
      path: '/api/v1/financial-instruments',
      tag: 'Financial instruments',
      summary:
        'Update Financial Instrument (patch semantics): Token Metadata fields changed or added (the rent top-up is paid by the fee payer), the Scaled UI multiplier, authorities rotated (signed by the current ones), offchain data, comments.',
      successStatus: 200,
      body: 'UpdateFinancialInstrumentRequest',
      response: updateFinancialInstrumentResponse,
      example: financialInstrumentExamples.updateFinancialInstrument,
      answer: 'updatedFinancialInstrument',
    },
  }),
};
