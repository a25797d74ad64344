/**
 * JSON-RPC methods over supplies and holders: getSupply, getLargestAccounts, getTokenSupply,
 * getTokenLargestAccounts, getTokenAccountsByDelegate. They scan every account the node has
 * written (a cluster keeps indexes; the local node's account set is small).
 */
import { encodeBase58 } from './base58';
import { tokenAccountsBy } from './rpc-account-methods';
import { withContext, type RpcHandler } from './rpc-context';
import { invalidParams } from './rpc-errors';
import { contextSlot, readAddress, readBoolean, readConfig } from './rpc-params';
import type { NodeRuntime } from './runtime';
import { isTokenProgram, readMintSupply, readTokenAccount, sameBytes, toUiTokenAmount } from './token-accounts';

/** Agave answers the 20 largest. */
const LARGEST_COUNT = 20;

function* liveAccounts(node: NodeRuntime) {
  for (const key of node.accountKeys()) {
    const account = node.svm.getAccount(key);
    if (account && account.lamports() > 0n) yield { key, account };
  }
}

const byAmountDescending = <T extends { amount: bigint }>(a: T, b: T) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1);

/** Every lamport is circulating: the node has no stake or foundation accounts held back. */
const getSupply: RpcHandler = ([rawConfig], node) => {
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  let total = 0n;
  for (const { account } of liveAccounts(node)) total += account.lamports();
  // The list is empty either way; the flag is still checked like any param.
  readBoolean(config.excludeNonCirculatingAccountsList, 'excludeNonCirculatingAccountsList', false);
  return withContext(slot, { total, circulating: total, nonCirculating: 0n, nonCirculatingAccounts: [] });
};

const getLargestAccounts: RpcHandler = ([rawConfig], node) => {
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  const filter = config.filter ?? null;
  if (filter !== null && filter !== 'circulating' && filter !== 'nonCirculating') {
    throw invalidParams(`Invalid params: unknown variant \`${String(filter)}\`, expected \`circulating\` or \`nonCirculating\`.`);
  }
  if (filter === 'nonCirculating') return withContext(slot, []);
  const holders = [...liveAccounts(node)].map(({ key, account }) => ({ key, amount: account.lamports() }));
  holders.sort(byAmountDescending);
  return withContext(
    slot,
    holders.slice(0, LARGEST_COUNT).map((holder) => ({ address: encodeBase58(holder.key), lamports: holder.amount })),
  );
};

function readMint(node: NodeRuntime, address: unknown) {
  const key = readAddress(address);
  const account = node.svm.getAccount(key);
  if (!account) throw invalidParams('Invalid param: could not find account');
  const mint = isTokenProgram(account.owner()) ? readMintSupply(account.data(), account.owner()) : null;
  if (!mint) throw invalidParams('Invalid param: not a Token mint');
  return { key, owner: account.owner(), ...mint };
}

const getTokenSupply: RpcHandler = ([address, rawConfig], node) => {
  const slot = contextSlot(node.chain, readConfig(rawConfig));
  const mint = readMint(node, address);
  return withContext(slot, toUiTokenAmount(mint.supply, mint.decimals));
};

const getTokenLargestAccounts: RpcHandler = ([address, rawConfig], node) => {
  const slot = contextSlot(node.chain, readConfig(rawConfig));
  const mint = readMint(node, address);
  const holders = [];
  for (const { key, account } of liveAccounts(node)) {
    if (!sameBytes(account.owner(), mint.owner)) continue;
    const state = readTokenAccount(account.data(), account.owner());
    if (state && sameBytes(state.mint, mint.key)) holders.push({ key, amount: state.amount });
  }
  holders.sort(byAmountDescending);
  return withContext(
    slot,
    holders.slice(0, LARGEST_COUNT).map((holder) => ({ address: encodeBase58(holder.key), ...toUiTokenAmount(holder.amount, mint.decimals) })),
  );
};

/** The token accounts a delegate may spend from, of one mint (`{mint}`) or one token program (`{programId}`). */
export const supplyMethods: Record<string, RpcHandler> = {
  getSupply,
  getLargestAccounts,
  getTokenSupply,
  getTokenLargestAccounts,
  getTokenAccountsByDelegate: tokenAccountsBy('delegate'),
};
