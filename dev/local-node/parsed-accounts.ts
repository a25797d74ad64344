/**
 * `jsonParsed` for token accounts and mints (SPL Token and Token-2022), in the shape a cluster's
 * account parser gives them, so wallets and explorers pointed at the node read balances and
 * authorities. The bytes are decoded by @solana-program/token-2022 (its layouts cover both
 * programs); other accounts have no parser here and fall back to base64, as on a cluster.
 */
import { getMintDecoder, getTokenDecoder } from '@solana-program/token-2022';
import { extensionJson } from './token-extension-json';
import { isTokenProgram, readMintDecimals, TOKEN_2022_PROGRAM, toUiTokenAmount, sameBytes } from './token-accounts';

const ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'] as const;

/** Finds a mint's data (a token account's amounts are shown with its mint's decimals). */
export type MintReader = (mint: string) => { data: Uint8Array; owner: Uint8Array } | null;

type Option<T> = { __option: 'Some'; value: T } | { __option: 'None' };
const isOption = (value: unknown): value is Option<unknown> => typeof value === 'object' && value !== null && '__option' in value;

/** Kit's decoded values as a cluster writes them: options unwrapped or null, maps as pairs, bytes as base64. */
function plain(value: unknown): unknown {
  if (isOption(value)) return value.__option === 'Some' ? plain(value.value) : null;
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [plain(k), plain(v)]);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Token-2022 extensions as `{extension, state}`, in the cluster's names and shapes (token-extension-json.ts). */
function extensionsOf(extensions: unknown): unknown[] | undefined {
  const list = plain(extensions) as ({ __kind: string } & Record<string, unknown>)[] | null;
  if (!list || list.length === 0) return undefined;
  return list.map(({ __kind, ...state }) => extensionJson(__kind, state));
}

function isLayout(data: Uint8Array, owner: Uint8Array, baseSize: number, accountType: number): boolean {
  if (data.length === baseSize) return true;
  return sameBytes(owner, TOKEN_2022_PROGRAM) && data.length > ACCOUNT_SIZE && data[ACCOUNT_TYPE_OFFSET] === accountType;
}

/** The `data` of a jsonParsed token account or mint; null when the node has no parser for it. */
export function parsedAccountData(data: Uint8Array, owner: Uint8Array, readMint: MintReader): { program: string; parsed: unknown; space: bigint } | null {
  if (!isTokenProgram(owner)) return null;
  const program = sameBytes(owner, TOKEN_2022_PROGRAM) ? 'spl-token-2022' : 'spl-token';
  try {
    if (isLayout(data, owner, MINT_SIZE, 1)) {
      const mint = getMintDecoder().decode(data);
      const extensions = extensionsOf(mint.extensions);
      const info = {
        mintAuthority: plain(mint.mintAuthority),
        supply: mint.supply.toString(),
        decimals: mint.decimals,
        isInitialized: mint.isInitialized,
        freezeAuthority: plain(mint.freezeAuthority),
        ...(extensions ? { extensions } : {}),
      };
      return { program, parsed: { type: 'mint', info }, space: BigInt(data.length) };
    }
    if (isLayout(data, owner, ACCOUNT_SIZE, 2)) {
      const account = getTokenDecoder().decode(data);
      const mint = readMint(account.mint);
      const decimals = mint ? readMintDecimals(mint.data, mint.owner) : null;
      if (decimals === null) return null;
      const delegate = plain(account.delegate) as string | null;
      const reserve = plain(account.isNative) as bigint | null;
      const extensions = extensionsOf(account.extensions);
      const info = {
        isNative: reserve !== null,
        mint: account.mint,
        owner: account.owner,
        state: ACCOUNT_STATES[account.state] ?? 'uninitialized',
        tokenAmount: toUiTokenAmount(account.amount, decimals),
        ...(delegate ? { delegate, delegatedAmount: toUiTokenAmount(account.delegatedAmount, decimals) } : {}),
        ...(reserve !== null ? { rentExemptReserve: toUiTokenAmount(reserve, decimals) } : {}),
        ...(plain(account.closeAuthority) ? { closeAuthority: plain(account.closeAuthority) } : {}),
        ...(extensions ? { extensions } : {}),
      };
      return { program, parsed: { type: 'account', info }, space: BigInt(data.length) };
    }
  } catch {
    // Bytes the decoders refuse are shown as they are.
  }
  return null;
}
