/**
 * Just enough of the SPL Token / Token-2022 layouts to report token balances the way a
 * cluster does (`preTokenBalances`, `getTokenAccountBalance`).
 */
import { decodeBase58 } from './base58';

export const TOKEN_PROGRAM = decodeBase58('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')!;
export const TOKEN_2022_PROGRAM = decodeBase58('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')!;

const ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
// Token-2022 puts an AccountType byte right after the 165-byte base when extensions follow.
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function isTokenProgram(owner: Uint8Array): boolean {
  return sameBytes(owner, TOKEN_PROGRAM) || sameBytes(owner, TOKEN_2022_PROGRAM);
}

function hasLayout(data: Uint8Array, owner: Uint8Array, baseSize: number, accountType: number): boolean {
  if (data.length === baseSize) return true;
  return sameBytes(owner, TOKEN_2022_PROGRAM) && data.length > ACCOUNT_SIZE && data[ACCOUNT_TYPE_OFFSET] === accountType;
}

export interface TokenAccountState {
  mint: Uint8Array;
  owner: Uint8Array;
  amount: bigint;
  /** Null when no delegate is set. */
  delegate: Uint8Array | null;
}

/** An initialized token account's mint, owner and amount; null for anything else. */
export function readTokenAccount(data: Uint8Array, programOwner: Uint8Array): TokenAccountState | null {
  if (!hasLayout(data, programOwner, ACCOUNT_SIZE, ACCOUNT_TYPE_ACCOUNT)) return null;
  const state = data[108];
  if (state !== 1 && state !== 2) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // The delegate is a COption<Pubkey>: a u32 tag (1 = set) at 72, the key at 76.
  const delegate = view.getUint32(72, true) === 1 ? data.slice(76, 108) : null;
  return { mint: data.slice(0, 32), owner: data.slice(32, 64), amount: view.getBigUint64(64, true), delegate };
}

/** Supply and decimals of an initialized mint; null when the data is not a mint. */
export function readMintSupply(data: Uint8Array, programOwner: Uint8Array): { supply: bigint; decimals: number } | null {
  const decimals = readMintDecimals(data, programOwner);
  if (decimals === null) return null;
  return { supply: new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(36, true), decimals };
}

/** Decimals of an initialized mint; null when the data is not a mint. */
export function readMintDecimals(data: Uint8Array, programOwner: Uint8Array): number | null {
  if (!hasLayout(data, programOwner, MINT_SIZE, ACCOUNT_TYPE_MINT)) return null;
  return data[45] === 1 ? data[44] : null;
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/** Same text as Solana's `real_number_string_trimmed`: "1.5", "0", "1000". */
export function toUiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const digits = amount.toString();
  let uiAmountString = digits;
  if (decimals > 0) {
    const padded = digits.padStart(decimals + 1, '0');
    const whole = padded.slice(0, padded.length - decimals);
    const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
    uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  }
  return { amount: digits, decimals, uiAmount: Number(amount) / 10 ** decimals, uiAmountString };
}
