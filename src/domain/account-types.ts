/** Account kinds (offchain reference `type`, spec 2.3) and which operation creates each. */
export const accountTypes = [
  'WALLET',
  'ASSETS_WALLET',
  'CURRENCIES_WALLET',
  'DEFI_SETTLEMENT_WALLET',
  'TOKEN_MANAGEMENT_AUTHORITY',
  'FUNDS_TOKEN',
  'ASSET_TOKEN',
  'FUNDS_TOKEN_ACCOUNT',
  'ASSET_TOKEN_ACCOUNT',
  'ADDRESS_LOOKUP_TABLE',
  'NONCE',
  'CURRENCY_TOKEN',
] as const;
export type AccountType = (typeof accountTypes)[number];

/**
 * Kinds that Create Account refuses unless already onchain (spec 2.3 rule 3), with the operation
 * that creates them (a mounted route).
 */
export const createdByOwnOperation: Partial<Record<AccountType, string>> = {
  FUNDS_TOKEN_ACCOUNT: 'are created with Initialize Position (POST /api/v1/positions)',
  ASSET_TOKEN_ACCOUNT: 'are created with Initialize Position (POST /api/v1/positions)',
  ADDRESS_LOOKUP_TABLE: 'are created with Create Address Lookup Table (POST /api/v1/address-lookup-tables)',
  NONCE: 'are created with Create Durable Nonce Accounts (POST /api/v1/durable-nonce-accounts)',
};

/** Debit limits apply only to these kinds (spec 8). */
export const walletTypes: readonly AccountType[] = ['WALLET', 'ASSETS_WALLET', 'CURRENCIES_WALLET', 'DEFI_SETTLEMENT_WALLET'];

export const accountStatuses = ['ACTIVE', 'CLOSED'] as const;
export type AccountStatus = (typeof accountStatuses)[number];
