/**
 * Lamport and token balances of a transaction's accounts, taken before and after it runs
 * (the `preBalances` / `postTokenBalances` of getTransaction).
 */
import type { LiteSvm } from 'litesvm/dist/internal';
import { keyId } from './key-id';
import { isTokenProgram, readMintDecimals, readTokenAccount } from './token-accounts';
import type { TokenBalance } from './transaction-record';

export interface Balances {
  lamports: bigint[];
  tokens: TokenBalance[];
}

function mintDecimals(svm: LiteSvm, mint: Uint8Array, cache: Map<string, number | null>): number | null {
  const id = keyId(mint);
  let decimals = cache.get(id);
  if (decimals === undefined) {
    const account = svm.getAccount(mint);
    decimals = account ? readMintDecimals(account.data(), account.owner()) : null;
    cache.set(id, decimals);
  }
  return decimals;
}

function tokenBalanceOf(svm: LiteSvm, index: number, data: Uint8Array, programId: Uint8Array, cache: Map<string, number | null>): TokenBalance | null {
  const state = readTokenAccount(data, programId);
  if (!state) return null;
  const decimals = mintDecimals(svm, state.mint, cache);
  if (decimals === null) return null;
  return { accountIndex: index, mint: state.mint, owner: state.owner, programId, amount: state.amount, decimals };
}

/**
 * Reads balances of `keys`. With `previous`, only keys marked in `changed` are re-read:
 * read-only accounts cannot change during a transaction.
 */
export function captureBalances(svm: LiteSvm, keys: Uint8Array[], previous?: Balances, changed?: boolean[]): Balances {
  const lamports: bigint[] = new Array(keys.length);
  const tokens: TokenBalance[] = [];
  const decimalsCache = new Map<string, number | null>();
  let previousToken = 0;
  for (let i = 0; i < keys.length; i++) {
    if (previous && changed && !changed[i]) {
      lamports[i] = previous.lamports[i];
      while (previousToken < previous.tokens.length && previous.tokens[previousToken].accountIndex < i) previousToken++;
      const kept = previous.tokens[previousToken];
      if (kept?.accountIndex === i) tokens.push(kept);
      continue;
    }
    const account = svm.getAccount(keys[i]);
    if (!account) {
      lamports[i] = 0n;
      continue;
    }
    lamports[i] = account.lamports();
    const owner = account.owner();
    if (!isTokenProgram(owner)) continue;
    const balance = tokenBalanceOf(svm, i, account.data(), owner, decimalsCache);
    if (balance) tokens.push(balance);
  }
  return { lamports, tokens };
}
