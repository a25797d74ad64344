/** The authorities of a financial instrument, by the spec's field names (2.4, 4.1). */
export const authorityFields = [
  'mintAuthority',
  'updateAuthority',
  'freezeAuthority',
  'permanentDelegateAuthority',
  'closingAuthority',
  'pausableAuthority',
  'scaledUiAmountAuthority',
  'transferHookAuthority',
  'confidentialTransferAuthority',
  'confidentialMintBurnAuthority',
] as const;
export type AuthorityField = (typeof authorityFields)[number];
