/** JSON-RPC methods that read accounts. State is always the latest; the context slot follows the commitment. */
import { encodeAccount, readAccountEncoding, readDataSlice } from './account-encoding';
import { invalidParams } from './rpc-errors';
import { withContext, type RpcHandler } from './rpc-context';
import { decodeBase58, encodeBase58 } from './base58';
import { contextSlot, readAddress, readArray, readBoolean, readConfig, readString, readUnsigned } from './rpc-params';
import { isTokenProgram, readMintDecimals, readTokenAccount, sameBytes, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, toUiTokenAmount } from './token-accounts';

const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;

const getAccountInfo: RpcHandler = ([address, rawConfig], node) => {
  const key = readAddress(address);
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  const encoding = readAccountEncoding(config, 'binary');
  const slice = readDataSlice(config);
  const account = node.svm.getAccount(key);
  return withContext(slot, account ? encodeAccount(account, encoding, slice, node.readMint) : null);
};

const getMultipleAccounts: RpcHandler = ([addresses, rawConfig], node) => {
  const keys = readArray(addresses, 'pubkeys', MAX_MULTIPLE_ACCOUNTS).map(readAddress);
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  const encoding = readAccountEncoding(config, 'base64');
  const slice = readDataSlice(config);
  return withContext(
    slot,
    keys.map((key) => {
      const account = node.svm.getAccount(key);
      return account ? encodeAccount(account, encoding, slice, node.readMint) : null;
    }),
  );
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

/** One `filters` entry: `{dataSize}` or `{memcmp: {offset, bytes, encoding?}}` (base58 by default). */
export function readFilter(raw: unknown): (data: Uint8Array) => boolean {
  if (typeof raw !== 'object' || raw === null) throw invalidParams('Invalid params: invalid type for filters.');
  const filter = raw as Record<string, unknown>;
  if ('dataSize' in filter) {
    const size = Number(readUnsigned(filter.dataSize, 'dataSize'));
    return (data) => data.length === size;
  }
  if (typeof filter.memcmp === 'object' && filter.memcmp !== null) {
    const { offset, bytes, encoding } = filter.memcmp as Record<string, unknown>;
    const at = Number(readUnsigned(offset, 'memcmp.offset'));
    const text = readString(bytes, 'memcmp.bytes');
    const wanted =
      encoding === 'base64'
        ? new Uint8Array(Buffer.from(text, 'base64'))
        : encoding === undefined || encoding === null || encoding === 'base58'
          ? decodeBase58(text)
          : null;
    if (!wanted) throw invalidParams(`Invalid param: invalid memcmp bytes or encoding`);
    if (wanted.length > MAX_MEMCMP_BYTES) throw invalidParams('Invalid param: memcmp bytes too long');
    return (data) => at + wanted.length <= data.length && wanted.every((byte, i) => data[at + i] === byte);
  }
  throw invalidParams('Invalid params: unknown filter; expected dataSize or memcmp.');
}

const getProgramAccounts: RpcHandler = ([programId, rawConfig], node) => {
  const program = readAddress(programId);
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  const encoding = readAccountEncoding(config, 'binary');
  const slice = readDataSlice(config);
  const filters = (config.filters === undefined || config.filters === null ? [] : readArray(config.filters, 'filters', MAX_FILTERS)).map(readFilter);
  const found = [];
  for (const key of node.accountKeys()) {
    const account = node.svm.getAccount(key);
    if (!account || account.lamports() === 0n || !sameBytes(account.owner(), program)) continue;
    const data = account.data();
    if (!filters.every((matches) => matches(data))) continue;
    found.push({ pubkey: encodeBase58(key), account: encodeAccount(account, encoding, slice, node.readMint) });
  }
  return readBoolean(config.withContext, 'withContext', false) ? withContext(slot, found) : found;
};

/** A wallet's token accounts of one mint (`{mint}`) or one token program (`{programId}`). */
/**
 * getTokenAccountsByOwner and getTokenAccountsByDelegate: the token accounts whose owner (or
 * delegate) is the address, filtered by mint or token program as a cluster does.
 */
export function tokenAccountsBy(role: 'owner' | 'delegate'): RpcHandler {
  return ([rawAddress, rawFilter, rawConfig], node) => {
    const holder = readAddress(rawAddress);
    const filter = readConfig(rawFilter);
    const mint = filter.mint !== undefined ? readAddress(filter.mint) : null;
    const programs = filter.programId !== undefined ? [readAddress(filter.programId)] : mint ? [TOKEN_PROGRAM, TOKEN_2022_PROGRAM] : null;
    if (!programs) throw invalidParams('Invalid params: expected a mint or programId filter.');
    if (!programs.every(isTokenProgram)) throw invalidParams('Invalid param: unrecognized Token program id');
    const config = readConfig(rawConfig);
    const slot = contextSlot(node.chain, config);
    const encoding = readAccountEncoding(config, 'binary');
    const slice = readDataSlice(config);
    const found = [];
    for (const key of node.accountKeys()) {
      const account = node.svm.getAccount(key);
      if (!account || account.lamports() === 0n || !programs.some((program) => sameBytes(account.owner(), program))) continue;
      const state = readTokenAccount(account.data(), account.owner());
      const held = state && (role === 'owner' ? state.owner : state.delegate);
      if (!held || !sameBytes(held, holder) || (mint && !sameBytes(state.mint, mint))) continue;
      found.push({ pubkey: encodeBase58(key), account: encodeAccount(account, encoding, slice, node.readMint) });
    }
    return withContext(slot, found);
  };
}

export const accountMethods: Record<string, RpcHandler> = {
  getProgramAccounts,
  getTokenAccountsByOwner: tokenAccountsBy('owner'),
  getAccountInfo,
  getMultipleAccounts,
  getBalance,
  getTokenAccountBalance,
};
