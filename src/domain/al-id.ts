/**
 * AL IDs (spec 2.4): the identifier the service gives a financial instrument. Its form is the
 * fixed prefix `AL`, the category code, the type code and an 8-digit sequence value, e.g.
 * `ALFICBD00000001` for the first corporate bond. Pure: the sequence itself lives in the database.
 */
import { validationError } from './errors';

/** The category table of spec 2.4, as data: category → its code and its types with their codes. */
export const financialInstrumentCategories = {
  FIXED_INCOME: {
    code: 'FI',
    types: {
      BROKER_CD: 'BCD',
      CORPORATE_BOND: 'CBD',
      CORPORATE_LOAN: 'CLN',
      LOAN: 'L',
      MUNI_BOND: 'MBD',
      MUNI_LOAN: 'MLN',
      MUNI_PRIVATE_PLACEMENT: 'MPP',
      MUNI_LIMITED_OFFERING: 'MLO',
    },
  },
  FUND: { code: 'FND', types: { PRIVATE_FUND: 'PF' } },
  EQUITY: { code: 'EQY', types: { STOCK: 'STC', ETF: 'ETF' } },
  CURRENCY: { code: 'FX', types: { FIAT_CURRENCY: 'FC', STABLECOIN: 'SC' } },
  CRYPTO: { code: 'CR', types: { PROTOCOL_TOKEN: 'PT', NFT: 'NFT', LAYER_1_TOKEN: 'L1T', LAYER_2_TOKEN: 'L2T' } },
} as const;

type Categories = typeof financialInstrumentCategories;
export type FinancialInstrumentCategory = keyof Categories;
export type FinancialInstrumentType = { [C in FinancialInstrumentCategory]: keyof Categories[C]['types'] }[FinancialInstrumentCategory];

/** The offchain reference types (spec 2.3) an instrument's mint may carry. */
export type InstrumentReferenceType = 'ASSET_TOKEN' | 'CURRENCY_TOKEN';

export const AL_ID_PREFIX = 'AL';
export const AL_ID_SEQUENCE_DIGITS = 8;
export const MAX_AL_ID_SEQUENCE = 10n ** BigInt(AL_ID_SEQUENCE_DIGITS) - 1n;

export const financialInstrumentCategoryNames = Object.keys(financialInstrumentCategories) as FinancialInstrumentCategory[];

interface TypeEntry {
  type: FinancialInstrumentType;
  category: FinancialInstrumentCategory;
  prefix: string;
}

const typeEntries: TypeEntry[] = financialInstrumentCategoryNames.flatMap((category) => {
  const { code, types } = financialInstrumentCategories[category];
  return Object.entries(types).map(([type, typeCode]) => ({
    type: type as FinancialInstrumentType,
    category,
    prefix: `${AL_ID_PREFIX}${code}${typeCode as string}`,
  }));
});

const byType = new Map<string, TypeEntry>(typeEntries.map((entry) => [entry.type, entry]));

/**
 * Type codes differ in length (LOAN is `L`, MUNI_LOAN `MLN`, CORPORATE_LOAN `CLN`), so the table is not
 * guaranteed prefix-free: parsing tries the longest prefix first and needs exactly 8 digits after it.
 */
const byPrefixLongestFirst = [...typeEntries].sort((a, b) => b.prefix.length - a.prefix.length);

/** Every financial instrument type, in table order. */
export const financialInstrumentTypes: readonly FinancialInstrumentType[] = typeEntries.map((entry) => entry.type);

export function isFinancialInstrumentType(value: unknown): value is FinancialInstrumentType {
  return typeof value === 'string' && byType.has(value);
}

function entryOf(type: FinancialInstrumentType): TypeEntry {
  const entry = byType.get(type);
  if (!entry)
    throw validationError(
      'financialInstrumentType',
      `unknown financial instrument type "${String(type)}"; expected one of ${financialInstrumentTypes.join(', ')}`,
    );
  return entry;
}

export function categoryOf(type: FinancialInstrumentType): FinancialInstrumentCategory {
  return entryOf(type).category;
}

/** `AL` + category code + type code, e.g. CORPORATE_BOND → `ALFICBD`. */
export function alIdPrefix(type: FinancialInstrumentType): string {
  return entryOf(type).prefix;
}

/** The AL ID for the `sequence`-th instrument of `type`: prefix + 8-digit zero-padded sequence. */
export function formatAlId(type: FinancialInstrumentType, sequence: bigint): string {
  if (sequence < 0n || sequence > MAX_AL_ID_SEQUENCE) {
    throw validationError(
      'offchainReferences.newAlId.financialInstrumentType',
      `AL ID sequence ${sequence} for ${type} is outside 0..${MAX_AL_ID_SEQUENCE}: the ${AL_ID_SEQUENCE_DIGITS}-digit sequence of ${alIdPrefix(type)} is exhausted`,
    );
  }
  return `${alIdPrefix(type)}${sequence.toString().padStart(AL_ID_SEQUENCE_DIGITS, '0')}`;
}

export interface ParsedAlId {
  category: FinancialInstrumentCategory;
  type: FinancialInstrumentType;
  sequence: bigint;
}

const EXACT_SEQUENCE = new RegExp(`^[0-9]{${AL_ID_SEQUENCE_DIGITS}}$`);

/** The parts of a well-formed AL ID, or undefined when `text` is not one. */
export function parseAlId(text: string): ParsedAlId | undefined {
  for (const entry of byPrefixLongestFirst) {
    if (!text.startsWith(entry.prefix)) continue;
    const digits = text.slice(entry.prefix.length);
    if (EXACT_SEQUENCE.test(digits)) return { category: entry.category, type: entry.type, sequence: BigInt(digits) };
  }
  return undefined;
}

/** The reference type each category requires (spec 2.4): CURRENCY_TOKEN for CURRENCY, ASSET_TOKEN for every other. */
export function referenceTypeFor(type: FinancialInstrumentType): InstrumentReferenceType {
  return categoryOf(type) === 'CURRENCY' ? 'CURRENCY_TOKEN' : 'ASSET_TOKEN';
}

/**
 * Checks the offchain reference type of an instrument's mint against its financial instrument type
 * (spec 2.4): `CURRENCY_TOKEN` only with category CURRENCY, `ASSET_TOKEN` only with every other
 * category. Any other reference type (including `FUNDS_TOKEN`) is refused. An absent reference type
 * takes the one the category requires. Returns the reference type to use.
 */
export function checkTypeForReference(
  referenceType: string | undefined,
  financialInstrumentType: FinancialInstrumentType,
  field: string,
): InstrumentReferenceType {
  const category = categoryOf(financialInstrumentType);
  const required = referenceTypeFor(financialInstrumentType);
  if (referenceType === undefined || referenceType === required) return required;
  const rule =
    'allowed pairs: CURRENCY_TOKEN with category CURRENCY (FIAT_CURRENCY, STABLECOIN); ASSET_TOKEN with every other category (FIXED_INCOME, FUND, EQUITY, CRYPTO)';
  const because =
    referenceType === 'FUNDS_TOKEN'
      ? 'FUNDS_TOKEN is not an instrument reference type for an AL ID'
      : referenceType === 'ASSET_TOKEN' || referenceType === 'CURRENCY_TOKEN'
        ? `${referenceType} does not go with ${financialInstrumentType} (category ${category}); it requires ${required}`
        : `${referenceType} is not an instrument reference type`;
  throw validationError(field, `${field}: ${because}; ${rule}`);
}
