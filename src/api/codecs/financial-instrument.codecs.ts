/** Financial instrument payloads (spec 2.4, 4.2). */
import * as t from 'io-ts';
import { mintExtensions } from '../../domain/token-extensions';
import { authorityFields, type AuthorityField } from '../../domain/instrument-authorities';
import { createAccountItemData } from './account.codecs';
import { accountLookup, svmTransactionConfig, tenancyConfig } from './common.codecs';
import { arrayOf, describe, float, httpUrl, integer, jsonObject, nonEmptyString, oneOf, strictObject, text } from './primitives';

const stringMap = describe(
  new t.Type<Record<string, string>, Record<string, string>, unknown>(
    'StringMap',
    (u): u is Record<string, string> => typeof u === 'object' && u !== null,
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'must be an object of text values');
      const entries = Object.entries(u as Record<string, unknown>);
      if (entries.length > 100) return t.failure(u, c, 'must have at most 100 fields');
      for (const [key, value] of entries) if (typeof value !== 'string') return t.failure(value, [...c, { key, type: t.string, actual: value }], 'must be text');
      return t.success(u as Record<string, string>);
    },
    (a) => a,
  ),
  { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 100 },
);

export const tokenMetadata = strictObject('TokenMetadataInput', {}, {
  name: nonEmptyString(32),
  symbol: nonEmptyString(10),
  uri: nonEmptyString(200),
  simpleCustomMetadata: stringMap,
});

/** Token Extensions Calculator (spec 4.2). No x-request-id, no svmTransactionConfig: it builds nothing. */
export const tokenExtensionsCalculatorBody = strictObject('TokenExtensionsCalculatorRequest', { extensions: arrayOf(oneOf(mintExtensions, 'MintExtension'), 20) }, { metadata: tokenMetadata });

export { authorityFields, type AuthorityField };

const onchainData = strictObject('InstrumentOnchainData', { decimals: integer(0, 9) }, {
  symbol: nonEmptyString(10),
  name: nonEmptyString(32),
  uri: nonEmptyString(200),
  simpleCustomMetadata: stringMap,
});

const offchainData = strictObject('InstrumentOffchainData', {}, {
  description: text,
  simpleCustomMetadata: stringMap,
  complexCustomMetadata: jsonObject,
  logo: strictObject('InstrumentLogo', { copyFromUri: httpUrl }, { fileName: nonEmptyString(200), contentType: nonEmptyString(100), type: oneOf(['LOGO'] as const) }),
});

/** Create Financial Instrument itemData (spec 2.4); both spellings of alreadyOnChain are accepted. */
export const createFinancialInstrumentItemData = strictObject('CreateFinancialInstrumentItemData', { version: oneOf(['SPL', 'TOKEN_2022'] as const, 'TokenVersion'), onchainData }, {
  mintAccount: createAccountItemData,
  existingMintAccount: accountLookup,
  ...(Object.fromEntries(authorityFields.map((f) => [f, accountLookup])) as Record<AuthorityField, typeof accountLookup>),
  transferHookProgram: accountLookup,
  alreadyOnChain: t.boolean,
  alreadyOnchain: t.boolean,
  offchainData,
  defaultPositionState: oneOf(['INITIALIZED', 'FROZEN'] as const, 'PositionState'),
  paused: t.boolean,
  scaledUiAmountMultiplier: float,
  comments: text,
  shareAcrossTenants: t.boolean,
});
export type CreateFinancialInstrumentItemData = t.TypeOf<typeof createFinancialInstrumentItemData>;

export const createFinancialInstrumentBody = strictObject('CreateFinancialInstrumentRequest', { itemData: createFinancialInstrumentItemData }, { svmTransactionConfig, tenancyConfig });
export const singleFinancialInstrumentBody = strictObject('SingleFinancialInstrumentRequest', { itemData: strictObject('SingleFinancialInstrumentItemData', { financialInstrument: accountLookup }, {}) }, { tenancyConfig });

/** Pause / Unpause Financial Instrument (API.md 6). */
export const pauseFinancialInstrumentBody = strictObject('PauseFinancialInstrumentRequest', { itemData: strictObject('PauseFinancialInstrumentItemData', { financialInstrument: accountLookup }, {}) }, { svmTransactionConfig, tenancyConfig });

/** Close Financial Instrument (API.md 6). */
export const closeFinancialInstrumentBody = strictObject(
  'CloseFinancialInstrumentRequest',
  { itemData: strictObject('CloseFinancialInstrumentItemData', { financialInstrument: accountLookup }, { refundDestination: accountLookup }) },
  { svmTransactionConfig, tenancyConfig },
);

/** Update Financial Instrument (API.md 6): patch semantics; onchain metadata fields, the scaled UI multiplier, offchain data. */
export const updateFinancialInstrumentItemData = strictObject('UpdateFinancialInstrumentItemData', { financialInstrument: accountLookup }, {
  onchainData: strictObject('InstrumentOnchainDataUpdate', {}, { decimals: integer(0, 9), symbol: nonEmptyString(10), name: nonEmptyString(32), uri: nonEmptyString(200), simpleCustomMetadata: stringMap }),
  offchainData,
  scaledUiAmountMultiplier: float,
  comments: text,
  ...(Object.fromEntries(authorityFields.map((f) => [f, accountLookup])) as Record<AuthorityField, typeof accountLookup>),
});
export type UpdateFinancialInstrumentItemData = t.TypeOf<typeof updateFinancialInstrumentItemData>;
export const updateFinancialInstrumentBody = strictObject('UpdateFinancialInstrumentRequest', { itemData: updateFinancialInstrumentItemData }, { svmTransactionConfig, tenancyConfig });
