/** JSON-RPC methods that read accounts. State is always the latest; the context slot follows the commitment. */
import { encodeAccount, readAccountEncoding, readDataSlice } from './account-encoding';
import { invalidParams } from './rpc-errors';
import { withContext, type RpcHandler } from './rpc-context';
import { contextSlot, readAddress, readArray, readConfig } from './rpc-params';
import { isTokenProgram, readMintDecimals, readTokenAccount, toUiTokenAmount } from './token-accounts';

const MAX_MULTIPLE_ACCOUNTS = 100;

const getAccountInfo: RpcHandler = ([address, rawConfig], node) => {
  const key = readAddress(address);
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  const encoding = readAccountEncoding(config, 'binary');
  const slice = readDataSlice(config);
  const account = node.svm.getAccount(key);
  return withContext(slot, account ? encodeAccount(account, encoding, slice) : null);
};

const getMultipleAccounts: RpcHandler = ([addresses, rawConfig], node) => {
  const keys = readArray(addresses, 'pubkeys', MAX_MULTIPLE_ACCOUNTS).map(readAddress);
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  const encoding = readAccountEncoding(config, 'base64');
  const slice = readDataSlice(config);
  return withContext(slot, keys.map((key) => {
    const account = node.svm.getAccount(key);
    return account ? encodeAccount(account, encoding, slice) : null;
  }));
};

const getBalance: RpcHandler = ([address, rawConfig], node) => {
  const key = readAddress(address);
  const slot = contextSlot(node.chain, readConfig(rawConfig));
  return withContext(slot, node.svm.getBalance(key) ?? 0n);
};

const getTokenAccountBalance: RpcHandler = ([address, rawConfig], node) => {
  const key = readAddress(address);
  const slot = contextSlot(node.chain, readConfig(rawConfig));
  const account = node.svm.getAccount(key);
  if (!account) throw invalidParams('Invalid param: could not find account');
  const owner = account.owner();
  const state = isTokenProgram(owner) ? readTokenAccount(account.data(), owner) : null;
  if (!state) throw invalidParams('Invalid param: not a Token account');
  const mint = node.svm.getAccount(state.mint);
  const decimals = mint ? readMintDecimals(mint.data(), mint.owner()) : null;
  if (decimals === null) throw invalidParams('Invalid param: could not find mint');
  return withContext(slot, toUiTokenAmount(state.amount, decimals));
};

export const accountMethods: Record<string, RpcHandler> = {
  getAccountInfo,
  getMultipleAccounts,
  getBalance,
  getTokenAccountBalance,
};
