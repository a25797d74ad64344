/** Accounts in the JSON shape of getAccountInfo / getMultipleAccounts. */
import zlib from 'node:zlib';
import type { Account } from 'litesvm/dist/internal';
import { encodeBase58 } from './base58';
import { parsedAccountData, type MintReader } from './parsed-accounts';
import { INVALID_REQUEST, RpcError, invalidParams } from './rpc-errors';
import { readUnsigned, type Config } from './rpc-params';

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed';
const ENCODINGS = new Set<string>(['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed']);
const MAX_BASE58_BYTES = 128;

export interface DataSlice {
  offset: number;
  length: number;
}

export function readAccountEncoding(config: Config, fallback: AccountEncoding): AccountEncoding {
  const value = config.encoding ?? fallback;
  if (typeof value !== 'string' || !ENCODINGS.has(value)) throw invalidParams(`Invalid params: unknown variant \`${String(value)}\`.`);
  return value as AccountEncoding;
}

export function readDataSlice(config: Config): DataSlice | null {
  const slice = config.dataSlice;
  if (slice === undefined || slice === null) return null;
  if (typeof slice !== 'object') throw invalidParams('Invalid params: invalid type for dataSlice.');
  const { offset, length } = slice as Record<string, unknown>;
  return { offset: Number(readUnsigned(offset, 'dataSlice.offset')), length: Number(readUnsigned(length, 'dataSlice.length')) };
}

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

export function encodeData(data: Uint8Array, encoding: AccountEncoding): unknown {
  if (encoding === 'binary' || encoding === 'base58') {
    if (data.length > MAX_BASE58_BYTES) {
      throw new RpcError(INVALID_REQUEST, 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
    }
    // "binary" is the legacy default: a bare base58 string.
    return encoding === 'binary' ? encodeBase58(data) : [encodeBase58(data), 'base58'];
  }
  if (encoding === 'base64+zstd') return [zlib.zstdCompressSync(data).toString('base64'), 'base64+zstd'];
  // jsonParsed falls back to base64, as a cluster does for accounts it has no parser for.
  return [toBase64(data), 'base64'];
}

/** `readMint`: for jsonParsed token accounts (their mint's decimals); without it they fall back to base64. */
export function encodeAccount(account: Account, encoding: AccountEncoding, slice: DataSlice | null, readMint?: MintReader): Record<string, unknown> {
  const data = account.data();
  const shown = slice ? data.subarray(slice.offset, slice.offset + slice.length) : data;
  // A cluster parses only whole accounts: with a dataSlice, jsonParsed falls back too.
  const parsed = encoding === 'jsonParsed' && !slice && readMint ? parsedAccountData(data, account.owner(), readMint) : null;
  return {
    lamports: account.lamports(),
    owner: encodeBase58(account.owner()),
    data: parsed ?? encodeData(shown, encoding),
    executable: account.executable(),
    rentEpoch: account.rentEpoch(),
    space: BigInt(data.length),
  };
}
