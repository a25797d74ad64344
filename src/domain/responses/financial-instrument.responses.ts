/** Financial instrument records at the three detail levels and the instrument reads' answers (spec 2.4). */
import * as t from 'io-ts';
import { authorityFields } from '../instrument-authorities';
import { accountDetailed, networkCurrencyAmount, onchainIdentifier, optionalOffchainIdentifier, recordIdentifiers } from './account.responses';
import {
  address,
  baseUnits,
  boolean,
  exactAmount,
  freeObjectWith,
  integer,
  listOf,
  nullable,
  oneOfShapes,
  stringMap,
  strictObject,
  textEnum,
  timestamp,
  uuid,
} from './building-blocks';
import { referenceAnswer } from './write.responses';

const version = textEnum(['SPL', 'TOKEN_2022']);
const instrumentStatus = textEnum(['ACTIVE', 'CLOSED']);

/** Spec 2.2's authority reference. */
export const authorityReference = strictObject(
  'AuthorityReference',
  {
    onchain: onchainIdentifier,
    offchain: optionalOffchainIdentifier,
    managed: boolean,
    tenantOrganizationId: nullable(uuid),
  },
  {},
  "An authority: its address, its account record's offchain id (null when not onboarded), whether the service holds its key.",
);
export type AuthorityReferenceBody = t.TypeOf<typeof authorityReference>;

const compactOnchain = strictObject('InstrumentCompactOnchain', { id: address, lastTransactionAt: nullable(timestamp) }, {});
const compactOffchainProps = { id: uuid, alId: t.string, lastTransactionId: nullable(uuid) };

export const financialInstrumentCompact = strictObject(
  'FinancialInstrumentCompact',
  { onchain: compactOnchain, offchain: strictObject('InstrumentCompactOffchain', compactOffchainProps, {}), version, status: instrumentStatus },
  {},
  'The compact detail level of a financial instrument.',
);
export type FinancialInstrumentCompactBody = t.TypeOf<typeof financialInstrumentCompact>;

/** Mint and update authorities are shown as account records when onboarded (spec 2.4), else as references. */
const authorityRecord = nullable(oneOfShapes([accountDetailed, authorityReference]));
const otherAuthorities = Object.fromEntries(
  [...authorityFields.filter((f) => f !== 'mintAuthority' && f !== 'updateAuthority'), 'transferHookProgram'].map((f) => [f, authorityReference]),
) as Record<string, typeof authorityReference>;

export const financialInstrumentDetailed = strictObject(
  'FinancialInstrumentDetailed',
  {
    onchain: compactOnchain,
    offchain: strictObject(
      'InstrumentDetailedOffchain',
      { ...compactOffchainProps, financialInstrumentType: nullable(t.string), creationTransactionId: nullable(uuid) },
      {},
    ),
    version,
    status: instrumentStatus,
    mintAccount: oneOfShapes([accountDetailed, recordIdentifiers], "The mint account's record (identifiers when it is not onboarded as an account)."),
    mintAuthority: authorityRecord,
    updateAuthority: authorityRecord,
    onchainData: strictObject(
      'InstrumentOnchainDataRecord',
      { decimals: integer, symbol: nullable(t.string), name: nullable(t.string), uri: nullable(t.string), simpleCustomMetadata: stringMap },
      {},
    ),
    offchainData: freeObjectWith(
      'As given at creation or update (description, simpleCustomMetadata, complexCustomMetadata); logo: the stored copy, served at GET /api/v1/files/{fileId}.',
    ),
    extensions: listOf(t.string, 'Token-2022 extensions the mint has.'),
    defaultPositionState: nullable(textEnum(['INITIALIZED', 'FROZEN'])),
    paused: nullable(boolean),
    scaledUiAmountMultiplier: nullable(exactAmount),
    managed: boolean,
    wasOnchainAlready: boolean,
    sharedAcrossTenants: boolean,
    comments: nullable(t.string),
    offchainReferenceName: nullable(t.string),
    creationTransactionAt: nullable(timestamp),
    tenantOrganizationId: uuid,
  },
  otherAuthorities,
  'The detailed level of a financial instrument: every authority the mint has (freezeAuthority, permanentDelegateAuthority, ... present when set).',
);
export type FinancialInstrumentDetailedBody = t.TypeOf<typeof financialInstrumentDetailed>;

export const financialInstrumentLevels = { identifiers: recordIdentifiers, compact: financialInstrumentCompact, detailed: financialInstrumentDetailed };

/** A token amount: the exact decimal in UI units and the base units. */
export const tokenAmount = strictObject(
  'TokenAmount',
  { amount: exactAmount, lamports: baseUnits },
  {},
  'A token amount: amount (exact decimal in UI units) and lamports (integer base units), the same value twice.',
);

export const circulatingSupplyResponse = strictObject(
  'CirculatingSupplyResponse',
  { financialInstrument: recordIdentifiers, decimals: integer, circulatingSupply: tokenAmount, uiAmount: nullable(exactAmount) },
  {},
  'Read from the mint on the network; uiAmount: the supply under Scaled UI Amount (null without it).',
);

export const tokenExtensionsCalculatorResponse = strictObject(
  'TokenExtensionsCalculatorResponse',
  { mintAccountSize: integer, estimatedRent: networkCurrencyAmount },
  {},
  'mintAccountSize: bytes (use it as dataLength with Create Account); estimatedRent: its rent-exempt minimum.',
);

export const createFinancialInstrumentResponse = referenceAnswer(
  'newFinancialInstrument',
  'CreateFinancialInstrumentResponse',
  'The new instrument (its mint) and the transaction that created it (null when onboarded alreadyOnchain).',
);
export const updateFinancialInstrumentResponse = referenceAnswer(
  'updatedFinancialInstrument',
  'UpdateFinancialInstrumentResponse',
  'The updated instrument and its transaction (null for offchain-only changes).',
);
