/** Financial instrument request bodies (spec 2.4, 4.2). */
import { mintExtensions } from '../../domain/token-extensions';
import { closeFinancialInstrumentItemData, createFinancialInstrumentItemData, pauseFinancialInstrumentItemData, stringMap, updateFinancialInstrumentItemData } from '../../domain/operations/financial-instruments/financial-instrument.inputs';
import { accountLookup, svmTransactionConfig } from '../../domain/inputs/common.inputs';
import { arrayOf, nonEmptyString, oneOf, strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const tokenMetadata = strictObject('TokenMetadataInput', {}, {
  name: nonEmptyString(32),
  symbol: nonEmptyString(10),
  uri: nonEmptyString(200),
  simpleCustomMetadata: stringMap,
});

/** Token Extensions Calculator (spec 4.2). No x-request-id, no svmTransactionConfig: it builds nothing. */
export const tokenExtensionsCalculatorBody = strictObject('TokenExtensionsCalculatorRequest', { extensions: arrayOf(oneOf(mintExtensions, 'MintExtension'), 20) }, { metadata: tokenMetadata });

export const createFinancialInstrumentBody = strictObject('CreateFinancialInstrumentRequest', { itemData: createFinancialInstrumentItemData }, { svmTransactionConfig, tenancyConfig });
export const singleFinancialInstrumentBody = strictObject('SingleFinancialInstrumentRequest', { itemData: strictObject('SingleFinancialInstrumentItemData', { financialInstrument: accountLookup }, {}) }, { tenancyConfig });

/** Pause / Unpause Financial Instrument. */
export const pauseFinancialInstrumentBody = strictObject('PauseFinancialInstrumentRequest', { itemData: pauseFinancialInstrumentItemData }, { svmTransactionConfig, tenancyConfig });

/** Close Financial Instrument. */
export const closeFinancialInstrumentBody = strictObject('CloseFinancialInstrumentRequest', { itemData: closeFinancialInstrumentItemData }, { svmTransactionConfig, tenancyConfig });

/** Update Financial Instrument: patch semantics; onchain metadata fields, the scaled UI multiplier, offchain data. */
export const updateFinancialInstrumentBody = strictObject('UpdateFinancialInstrumentRequest', { itemData: updateFinancialInstrumentItemData }, { svmTransactionConfig, tenancyConfig });
