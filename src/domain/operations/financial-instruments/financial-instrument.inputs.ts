/** Financial instrument request shapes (spec 2.4): the itemData of Create, Update, Pause and Close. */
import * as t from 'io-ts';
import { authorityFields, type AuthorityField } from '../../instrument-authorities';
import { createAccountItemData } from '../accounts/account.inputs';
import { accountLookup } from '../../inputs/common.inputs';
import { describe, float, httpUrl, integer, jsonObject, nonEmptyString, oneOf, strictObject, text } from '../../inputs/primitives';

/** Text values by name (simpleCustomMetadata): at most 100 fields. */
export const stringMap = describe(
  new t.Type<Record<string, string>, Record<string, string>, unknown>(
    'StringMap',
    (u): u is Record<string, string> => typeof u === 'object' && u !== null,
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'must be an object of text values');
      const entries = Object.entries(u as Record<string, unknown>);
      if (entries.length > 100) return t.failure(u, c, 'must have at most 100 fields');
      for (const [key, value] of entries)
        if (typeof value !== 'string') return t.failure(value, [...c, { key, type: t.string, actual: value }], 'must be text');
      return t.success(u as Record<string, string>);
    },
    (a) => a,
  ),
  { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 100 },
);

const onchainData = strictObject(
  'InstrumentOnchainData',
  { decimals: integer(0, 9) },
  {
    symbol: nonEmptyString(10),
    name: nonEmptyString(32),
    uri: nonEmptyString(200),
    simpleCustomMetadata: stringMap,
  },
);

const offchainData = strictObject(
  'InstrumentOffchainData',
  {},
  {
    description: text,
    simpleCustomMetadata: stringMap,
    complexCustomMetadata: jsonObject,
    logo: strictObject(
      'InstrumentLogo',
      { copyFromUri: httpUrl },
      { fileName: nonEmptyString(200), contentType: nonEmptyString(100), type: oneOf(['LOGO'] as const) },
    ),
  },
);

/** Create Financial Instrument itemData (spec 2.4); both spellings of alreadyOnChain are accepted. */
export const createFinancialInstrumentItemData = strictObject(
  'CreateFinancialInstrumentItemData',
  { version: oneOf(['SPL', 'TOKEN_2022'] as const, 'TokenVersion'), onchainData },
  {
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
  },
);
export type CreateFinancialInstrumentItemData = t.TypeOf<typeof createFinancialInstrumentItemData>;

/** Pause / Unpause Financial Instrument itemData. */
export const pauseFinancialInstrumentItemData = strictObject('PauseFinancialInstrumentItemData', { financialInstrument: accountLookup }, {});
export type PauseFinancialInstrumentItemData = t.TypeOf<typeof pauseFinancialInstrumentItemData>;

/** Close Financial Instrument itemData. */
export const closeFinancialInstrumentItemData = strictObject(
  'CloseFinancialInstrumentItemData',
  { financialInstrument: accountLookup },
  { refundDestination: accountLookup },
);
export type CloseFinancialInstrumentItemData = t.TypeOf<typeof closeFinancialInstrumentItemData>;

/** Update Financial Instrument itemData: patch semantics; onchain metadata fields, the scaled UI multiplier, offchain data. */
export const updateFinancialInstrumentItemData = strictObject(
  'UpdateFinancialInstrumentItemData',
  { financialInstrument: accountLookup },
  {
    onchainData: strictObject(
      'InstrumentOnchainDataUpdate',
      {},
      { decimals: integer(0, 9), symbol: nonEmptyString(10), name: nonEmptyString(32), uri: nonEmptyString(200), simpleCustomMetadata: stringMap },
    ),
    offchainData,
    scaledUiAmountMultiplier: float,
    comments: text,
    ...(Object.fromEntries(authorityFields.map((f) => [f, accountLookup])) as Record<AuthorityField, typeof accountLookup>),
  },
);
export type UpdateFinancialInstrumentItemData = t.TypeOf<typeof updateFinancialInstrumentItemData>;
