import {
  alIdPrefix,
  categoryOf,
  checkTypeForReference,
  financialInstrumentTypes,
  formatAlId,
  isFinancialInstrumentType,
  parseAlId,
  referenceTypeFor,
  type FinancialInstrumentCategory,
  type FinancialInstrumentType,
} from '../../src/domain/al-id';
import { refusal } from '../support/expectations';

/** Spec 2.4's table, written out independently of the implementation: type → [category, expected prefix]. */
const table: [FinancialInstrumentType, FinancialInstrumentCategory, string][] = [
  ['BROKER_CD', 'FIXED_INCOME', 'ALFIBCD'],
  ['CORPORATE_BOND', 'FIXED_INCOME', 'ALFICBD'],
  ['CORPORATE_LOAN', 'FIXED_INCOME', 'ALFICLN'],
  ['LOAN', 'FIXED_INCOME', 'ALFIL'],
  ['MUNI_BOND', 'FIXED_INCOME', 'ALFIMBD'],
  ['MUNI_LOAN', 'FIXED_INCOME', 'ALFIMLN'],
  ['MUNI_PRIVATE_PLACEMENT', 'FIXED_INCOME', 'ALFIMPP'],
  ['MUNI_LIMITED_OFFERING', 'FIXED_INCOME', 'ALFIMLO'],
  ['PRIVATE_FUND', 'FUND', 'ALFNDPF'],
  ['STOCK', 'EQUITY', 'ALEQYSTC'],
  ['ETF', 'EQUITY', 'ALEQYETF'],
  ['FIAT_CURRENCY', 'CURRENCY', 'ALFXFC'],
  ['STABLECOIN', 'CURRENCY', 'ALFXSC'],
  ['PROTOCOL_TOKEN', 'CRYPTO', 'ALCRPT'],
  ['NFT', 'CRYPTO', 'ALCRNFT'],
  ['LAYER_1_TOKEN', 'CRYPTO', 'ALCRL1T'],
  ['LAYER_2_TOKEN', 'CRYPTO', 'ALCRL2T'],
];

const FIELD = 'itemData.mintAccount.offchainReferences.type';

describe('the category/type table (spec 2.4)', () => {
  it('lists exactly the 17 types of the spec, in table order', () => {
    expect([...financialInstrumentTypes]).toEqual(table.map(([type]) => type));
  });

  it.each(table)('%s is in category %s with prefix %s', (type, category, prefix) => {
    expect(categoryOf(type)).toBe(category);
    expect(alIdPrefix(type)).toBe(prefix);
  });

  it('recognizes the types and nothing else', () => {
    for (const [type] of table) expect(isFinancialInstrumentType(type)).toBe(true);
    for (const other of ['', 'BOND', 'corporate_bond', 'FIXED_INCOME', 'CBD', 'toString', undefined, 1]) expect(isFinancialInstrumentType(other)).toBe(false);
  });
});

describe('formatAlId', () => {
  it('pads the sequence to 8 digits after the prefix', () => {
    expect(formatAlId('CORPORATE_BOND', 1n)).toBe('ALFICBD00000001');
    expect(formatAlId('LOAN', 42n)).toBe('ALFIL00000042');
    expect(formatAlId('STOCK', 12345678n)).toBe('ALEQYSTC12345678');
    expect(formatAlId('STABLECOIN', 0n)).toBe('ALFXSC00000000');
  });

  it('accepts the last 8-digit value, 99,999,999', () => {
    expect(formatAlId('NFT', 99_999_999n)).toBe('ALCRNFT99999999');
  });

  it('refuses a sequence beyond 99,999,999 instead of growing a ninth digit', () => {
    const error = refusal(() => formatAlId('NFT', 100_000_000n));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('ALCRNFT');
    expect(error.message).toContain('99999999');
    expect(refusal(() => formatAlId('LOAN', 10n ** 12n)).code).toBe('VALIDATION_ERROR');
  });

  it('refuses a negative sequence', () => {
    expect(refusal(() => formatAlId('LOAN', -1n)).code).toBe('VALIDATION_ERROR');
  });
});

describe('checkTypeForReference: CURRENCY_TOKEN only with CURRENCY, ASSET_TOKEN with every other category', () => {
  const currency = table.filter(([, category]) => category === 'CURRENCY').map(([type]) => type);
  const others = table.filter(([, category]) => category !== 'CURRENCY').map(([type]) => type);

  it('has the two currency types and fifteen others', () => {
    expect(currency).toEqual(['FIAT_CURRENCY', 'STABLECOIN']);
    expect(others).toHaveLength(15);
  });

  it.each(currency)('accepts CURRENCY_TOKEN with %s and defaults to it', (type) => {
    expect(checkTypeForReference('CURRENCY_TOKEN', type, FIELD)).toBe('CURRENCY_TOKEN');
    expect(checkTypeForReference(undefined, type, FIELD)).toBe('CURRENCY_TOKEN');
    expect(referenceTypeFor(type)).toBe('CURRENCY_TOKEN');
  });

  it.each(others)('accepts ASSET_TOKEN with %s and defaults to it', (type) => {
    expect(checkTypeForReference('ASSET_TOKEN', type, FIELD)).toBe('ASSET_TOKEN');
    expect(checkTypeForReference(undefined, type, FIELD)).toBe('ASSET_TOKEN');
    expect(referenceTypeFor(type)).toBe('ASSET_TOKEN');
  });

  it.each(currency)('refuses ASSET_TOKEN with %s, naming the field and the allowed pairs', (type) => {
    const error = refusal(() => checkTypeForReference('ASSET_TOKEN', type, FIELD));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe(FIELD);
    expect(error.message).toContain(`ASSET_TOKEN does not go with ${type} (category CURRENCY); it requires CURRENCY_TOKEN`);
    expect(error.message).toContain('CURRENCY_TOKEN with category CURRENCY');
    expect(error.message).toContain('ASSET_TOKEN with every other category');
  });

  it.each(others)('refuses CURRENCY_TOKEN with %s', (type) => {
    const error = refusal(() => checkTypeForReference('CURRENCY_TOKEN', type, FIELD));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe(FIELD);
    expect(error.message).toContain(`CURRENCY_TOKEN does not go with ${type} (category ${categoryOf(type)}); it requires ASSET_TOKEN`);
  });

  it('refuses FUNDS_TOKEN, even for a fund, since every non-currency category maps only to ASSET_TOKEN', () => {
    for (const type of ['PRIVATE_FUND', 'STOCK', 'FIAT_CURRENCY'] as const) {
      const error = refusal(() => checkTypeForReference('FUNDS_TOKEN', type, 'mintAccount.offchainReferences.type'));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.field).toBe('mintAccount.offchainReferences.type');
      expect(error.message).toContain('FUNDS_TOKEN is not an instrument reference type');
      expect(error.message).toContain('allowed pairs');
    }
  });

  it('refuses reference types that are not mints at all', () => {
    for (const referenceType of ['WALLET', 'ASSET_TOKEN_ACCOUNT', 'NONCE', '', 'asset_token']) {
      const error = refusal(() => checkTypeForReference(referenceType, 'CORPORATE_BOND', FIELD));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.field).toBe(FIELD);
      expect(error.message).toContain('allowed pairs');
    }
  });
});

describe('parseAlId', () => {
  it.each(table)('round-trips %s', (type, category, prefix) => {
    for (const sequence of [0n, 1n, 7n, 12_345_678n, 99_999_999n]) {
      const text = formatAlId(type, sequence);
      expect(text.startsWith(prefix)).toBe(true);
      expect(parseAlId(text)).toEqual({ category, type, sequence });
    }
  });

  it('tells LOAN (L) from CORPORATE_LOAN (CLN) and MUNI_LOAN (MLN)', () => {
    expect(parseAlId('ALFIL00000003')).toEqual({ category: 'FIXED_INCOME', type: 'LOAN', sequence: 3n });
    expect(parseAlId('ALFICLN00000003')).toEqual({ category: 'FIXED_INCOME', type: 'CORPORATE_LOAN', sequence: 3n });
    expect(parseAlId('ALFIMLN00000003')).toEqual({ category: 'FIXED_INCOME', type: 'MUNI_LOAN', sequence: 3n });
    // An `LN` code does not exist: the letters after `ALFIL` are not digits.
    expect(parseAlId('ALFILN00000003')).toBeUndefined();
  });

  it('tells LAYER_1_TOKEN from LAYER_2_TOKEN', () => {
    expect(parseAlId('ALCRL1T00000010')?.type).toBe('LAYER_1_TOKEN');
    expect(parseAlId('ALCRL2T00000010')?.type).toBe('LAYER_2_TOKEN');
  });

  it('needs exactly 8 digits after the prefix', () => {
    expect(parseAlId('ALFIL0000001')).toBeUndefined();
    expect(parseAlId('ALFIL000000001')).toBeUndefined();
    expect(parseAlId('ALFICBD1')).toBeUndefined();
    expect(parseAlId('ALFICBD')).toBeUndefined();
    expect(parseAlId('ALFICBD0000000x')).toBeUndefined();
    expect(parseAlId('ALFICBD-0000001')).toBeUndefined();
    expect(parseAlId('ALFICBD00000001 ')).toBeUndefined();
  });

  it('returns undefined for garbage', () => {
    for (const text of [
      '',
      'AL',
      'ALFI00000001',
      'alficbd00000001',
      'XXFICBD00000001',
      ' ALFICBD00000001',
      'ALFXCBD00000001',
      'ALEQYPF00000001',
      'ALFICBD٠٠٠٠٠٠٠١',
      'US0378331005',
    ]) {
      expect(parseAlId(text)).toBeUndefined();
    }
  });
});
