import { mintAccountSize, rentExemptMinimum } from '../../src/domain/token-extensions';

describe('mintAccountSize: the Token-2022 mint layout, as measured on the network', () => {
  it.each([
    [[], 82],
    [['DEFAULT_ACCOUNT_STATE'], 171],
    [['PERMANENT_DELEGATE'], 202],
    [['CLOSE_MINT'], 202],
    [['PAUSABLE'], 203],
    [['SCALED_UI_AMOUNT'], 226],
    [['TRANSFER_HOOK'], 234],
    [['CONFIDENTIAL_TRANSFER'], 235],
  ] as const)('%j → %i bytes', (extensions, size) => {
    expect(mintAccountSize(extensions)).toBe(size);
  });

  it('adds extensions one TLV entry after another', () => {
    // 165-byte base + 1 account-type byte, then each extension: 4 bytes of type and length + its data.
    expect(mintAccountSize(['PERMANENT_DELEGATE', 'CLOSE_MINT'])).toBe(166 + (4 + 32) + (4 + 32));
    expect(mintAccountSize(['PERMANENT_DELEGATE', 'CLOSE_MINT', 'PAUSABLE'])).toBe(166 + 36 + 36 + (4 + 33));
  });

  it('sizes Token Metadata by its text, and brings the Metadata Pointer it needs', () => {
    const metadata = { name: 'Bond', symbol: 'BND', uri: 'https://x.io', additionalMetadata: { isin: 'US0000000001', rating: 'AA' } };
    const tokenMetadata = 4 + 32 + 32 + (4 + 4) + (4 + 3) + (4 + 12) + 4 + (4 + 4 + 4 + 12) + (4 + 6 + 4 + 2);
    expect(mintAccountSize([], metadata)).toBe(166 + (4 + 64) + tokenMetadata);
    expect(mintAccountSize(['TOKEN_METADATA'], metadata)).toBe(mintAccountSize(['METADATA_POINTER'], metadata));
    expect(mintAccountSize(['TOKEN_METADATA'], { ...metadata, name: 'Bond 2' })).toBe(mintAccountSize([], metadata) + 2);
  });

  it('counts a Confidential Mint and Burn with the Confidential Transfer it requires', () => {
    expect(mintAccountSize(['CONFIDENTIAL_MINT_BURN'])).toBe(mintAccountSize(['CONFIDENTIAL_TRANSFER', 'CONFIDENTIAL_MINT_BURN']));
    expect(mintAccountSize(['CONFIDENTIAL_MINT_BURN'])).toBeGreaterThan(mintAccountSize(['CONFIDENTIAL_TRANSFER']));
  });
});

describe('rentExemptMinimum: the default rent', () => {
  it('is (128 + size) × 3480 × 2 lamports', () => {
    expect(rentExemptMinimum(0)).toBe(890_880n);
    expect(rentExemptMinimum(82)).toBe(1_461_600n);
    expect(rentExemptMinimum(202)).toBe(2_296_800n);
  });
});
