/**
 * Readable names for the token programs' error codes, so a transaction result's errorMessage says
 * "insufficient funds" rather than only "custom program error: 0x1" (the codes of the SPL Token
 * program, which Token-2022 shares, plus the Token-2022 ones this service can run into).
 */
const tokenErrors: Record<number, string> = {
  0: 'the account is not rent-exempt',
  1: 'insufficient funds',
  2: 'invalid mint',
  3: 'the account is not of this mint',
  4: 'the signer is not the owner or authority',
  5: 'the mint has a fixed supply',
  6: 'the account is already in use',
  9: 'the account is not initialized',
  11: 'a non-native account can only be closed when its balance is zero',
  13: 'the account is in an invalid state',
  14: 'the amount overflows',
  16: 'the mint cannot freeze',
  17: 'the account is frozen',
  18: 'the decimals do not match the mint',
  67: 'the mint is paused',
};

/** The message with the token error's name appended when it names a custom program error. */
export function explainFailure(message: string): string {
  const code = /custom program error: 0x([0-9a-f]+)/i.exec(message)?.[1] ?? /"Custom":\s*(\d+)/.exec(message)?.[1];
  if (code === undefined) return message;
  const value = /custom program error/i.test(message) ? parseInt(code, 16) : Number(code);
  const name = tokenErrors[value];
  return name ? `${message}: ${name}` : message;
}
