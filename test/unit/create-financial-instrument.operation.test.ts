import type { CreateFinancialInstrumentItemData } from '../../src/domain/operations/financial-instruments/financial-instrument.inputs';
import {
  finalMintSize,
  initialMintSize,
  requestedExtensions,
  validateCreateFinancialInstrument,
} from '../../src/domain/operations/financial-instruments/create-financial-instrument.rules';
import { validateInput } from '../../src/domain/operations/registry';
import { refusal } from '../support/expectations';

const authority = { offchainId: '5d1f8a4c-2b7e-4c3d-9f6a-1e2b3c4d5e6f' };
const mintAccount = { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' as const } } };
const spl = (extra: Partial<CreateFinancialInstrumentItemData> = {}) =>
  ({ version: 'SPL', onchainData: { decimals: 2 }, mintAuthority: authority, mintAccount, ...extra }) as CreateFinancialInstrumentItemData;
const token2022 = (extra: Partial<CreateFinancialInstrumentItemData> = {}) =>
  ({ version: 'TOKEN_2022', onchainData: { decimals: 2 }, mintAuthority: authority, mintAccount, ...extra }) as CreateFinancialInstrumentItemData;

describe('validateCreateFinancialInstrument: the rules of spec 2.4 that need no records', () => {
  it('accepts a plain SPL mint and a Token-2022 mint with extensions', () => {
    expect(() => validateCreateFinancialInstrument(spl())).not.toThrow();
    expect(() =>
      validateCreateFinancialInstrument(token2022({ pausableAuthority: authority, paused: true, onchainData: { decimals: 2, name: 'Bond', symbol: 'BND' } })),
    ).not.toThrow();
  });

  it.each([
    ['a missing mint authority', spl({ mintAuthority: undefined }), 'itemData.mintAuthority'],
    ['a Token-2022 field on an SPL mint', spl({ pausableAuthority: authority }), 'itemData.pausableAuthority'],
    ['onchain metadata on an SPL mint', spl({ onchainData: { decimals: 2, name: 'X' } }), 'itemData.onchainData.name'],
    ['paused without a pausable authority', token2022({ paused: true }), 'itemData.paused'],
    ['a multiplier without its authority', token2022({ scaledUiAmountMultiplier: 2 }), 'itemData.scaledUiAmountMultiplier'],
    ['a non-positive multiplier', token2022({ scaledUiAmountAuthority: authority, scaledUiAmountMultiplier: 0 }), 'itemData.scaledUiAmountMultiplier'],
    ['half a transfer hook', token2022({ transferHookAuthority: authority }), 'itemData.transferHookProgram'],
    ['frozen positions by default without a freeze authority', token2022({ defaultPositionState: 'FROZEN' }), 'itemData.defaultPositionState'],
    ['a mint account of a wallet type', spl({ mintAccount: { offchainReferences: { type: 'WALLET' } } }), 'itemData.mintAccount.offchainReferences.type'],
    ['a seed on the mint account', spl({ mintAccount: { seed: { lamports: '5' } } }), 'itemData.mintAccount.seed'],
  ])('refuses %s, naming the field', (_what, item, field) => {
    expect(refusal(() => validateCreateFinancialInstrument(item))).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  it.each([
    ['an AL ID that is not one', spl({ mintAccount: { offchainReferences: { alId: 'AL-nope' } } }), 'itemData.mintAccount.offchainReferences.alId'],
    [
      'no AL ID and no type to generate one for',
      spl({ mintAccount: { offchainReferences: {} } }),
      'itemData.mintAccount.offchainReferences.newAlId.financialInstrumentType',
    ],
    [
      'no references and no pre-created mint account to bring an AL ID',
      spl({ mintAccount: undefined }),
      'itemData.mintAccount.offchainReferences.newAlId.financialInstrumentType',
    ],
  ])('refuses %s before any lookup (an unknown authority is not looked up first), naming the field', (_what, item, field) => {
    expect(refusal(() => validateInput('CREATE_FINANCIAL_INSTRUMENT', item, { updateDebitApiKeys: false }))).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  it('leaves the AL ID of a pre-created mint account to its lookup', () => {
    expect(() => validateCreateFinancialInstrument(spl({ mintAccount: undefined, existingMintAccount: { offchainId: authority.offchainId } }))).not.toThrow();
  });

  it('runs through the registry, as the API runs it before any lookup', () => {
    expect(refusal(() => validateInput('CREATE_FINANCIAL_INSTRUMENT', spl({ mintAuthority: undefined }), { updateDebitApiKeys: false }))).toMatchObject({
      field: 'itemData.mintAuthority',
    });
  });
});

describe('extensions and sizes', () => {
  it('switches an extension on by the field that configures it, and none for SPL', () => {
    expect(requestedExtensions(spl())).toEqual([]);
    expect(requestedExtensions(token2022({ permanentDelegateAuthority: authority, closingAuthority: authority }))).toEqual([
      'PERMANENT_DELEGATE',
      'CLOSE_MINT',
    ]);
    expect(requestedExtensions(token2022({ onchainData: { decimals: 2, symbol: 'X' } }))).toEqual(['METADATA_POINTER', 'TOKEN_METADATA']);
  });

  it('sizes a plain mint at 82 bytes and grows with its extensions (figures measured on the network)', () => {
    expect(initialMintSize(spl())).toBe(82);
    expect(finalMintSize(spl())).toBe(82);
    expect(finalMintSize(token2022({ permanentDelegateAuthority: authority }))).toBe(202);
    expect(finalMintSize(token2022({ pausableAuthority: authority }))).toBe(203);
  });
});
