/**
 * JSON-RPC methods over the node's history, as explorers and wallets call them:
 * getSignaturesForAddress (an account's transactions, newest first) and getBlock.
 */
import type { RpcHandler } from './rpc-context';
import { BLOCK_CLEANED_UP, BLOCK_NOT_AVAILABLE, invalidParams, RpcError } from './rpc-errors';
import { contextSlot, readAddress, readBoolean, readCommitment, readConfig, readSignature, readString, readUnsigned, type Config } from './rpc-params';
import { TRANSACTION_ENCODINGS } from './rpc-transaction-methods';
import { transactionJson, type TransactionEncoding } from './transaction-json';
import { parseTransaction } from './wire-transaction';

const MAX_SIGNATURES = 1000;
const TRANSACTION_DETAILS = new Set(['full', 'accounts', 'signatures', 'none']);

/** History is kept from `confirmed` up, as on a cluster. */
function readHistoryCommitment(config: Config) {
  const commitment = readCommitment(config);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

function readMaxSupportedVersion(config: Config): number | null {
  const value = config.maxSupportedTransactionVersion;
  return value === undefined || value === null ? null : Number(readUnsigned(value, 'maxSupportedTransactionVersion'));
}

const getSignaturesForAddress: RpcHandler = ([address, rawConfig], node) => {
  const key = readAddress(address);
  const config = readConfig(rawConfig);
  const visibleUpTo = contextSlot(node.chain, config, readHistoryCommitment(config));
  const limit = config.limit === undefined || config.limit === null ? MAX_SIGNATURES : Number(readUnsigned(config.limit, 'limit'));
  if (limit < 1 || limit > MAX_SIGNATURES) throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES}`);
  const before = config.before === undefined || config.before === null ? null : readString(config.before, 'before');
  const until = config.until === undefined || config.until === null ? null : readString(config.until, 'until');
  if (before) readSignature(before);
  if (until) readSignature(until);

  const entries = node.store.index.forAccount(key);
  let end = entries.length;
  if (before) {
    end = entries.findIndex((entry) => entry.signature === before);
    // An unknown `before` has nothing before it that this node could place.
    if (end < 0) return [];
  }
  const result = [];
  for (let i = end - 1; i >= 0 && result.length < limit; i--) {
    const entry = entries[i];
    if (entry.signature === until) break;
    if (entry.slot > visibleUpTo) continue;
    result.push({
      signature: entry.signature,
      slot: entry.slot,
      err: entry.err,
      memo: entry.memo,
      blockTime: entry.blockTime,
      confirmationStatus: node.chain.commitmentOf(entry.slot),
    });
  }
  return result;
};

const getBlock: RpcHandler = ([rawSlot, rawConfig], node) => {
  const slot = Number(readUnsigned(rawSlot, 'slot'));
  // The legacy form passes the encoding alone instead of a config object.
  const config = typeof rawConfig === 'string' ? { encoding: rawConfig } : readConfig(rawConfig);
  const commitment = readHistoryCommitment(config);
  const encoding = (config.encoding ?? 'json') as TransactionEncoding;
  if (!TRANSACTION_ENCODINGS.has(encoding)) throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\`.`);
  const details = config.transactionDetails ?? 'full';
  if (typeof details !== 'string' || !TRANSACTION_DETAILS.has(details)) throw invalidParams(`Invalid params: unknown variant \`${String(details)}\`.`);
  const rewards = readBoolean(config.rewards, 'rewards', true);
  const maxSupportedVersion = readMaxSupportedVersion(config);

  if (slot > node.chain.slotAt(commitment)) throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
  const block = node.chain.blockAt(slot);
  if (!block) {
    const first = node.chain.firstAvailableSlot;
    throw new RpcError(BLOCK_CLEANED_UP, `Block ${slot} cleaned up, does not exist on node. First available block: ${first}`);
  }
  const entries = node.store.index.inSlot(slot);
  const full = () =>
    entries.map((entry) => {
      const record = node.store.get(entry.signature)!;
      const {
        slot: _slot,
        blockTime: _blockTime,
        ...shown
      } = transactionJson(record, parseTransaction(record.wire), details === 'accounts' ? 'jsonParsed' : encoding, maxSupportedVersion);
      if (details !== 'accounts') return shown;
      // "accounts": the signatures and account list of each transaction, and its meta without instructions or logs.
      const message = shown.transaction as { signatures: string[]; message: { accountKeys: unknown[] } };
      const { innerInstructions: _inner, logMessages: _logs, ...meta } = shown.meta;
      return { ...shown, transaction: { signatures: message.signatures, accountKeys: message.message.accountKeys }, meta };
    });
  return {
    blockHeight: block.height,
    blockTime: block.blockTime,
    blockhash: block.blockhash,
    parentSlot: Math.max(0, slot - 1),
    previousBlockhash: node.chain.blockAt(slot - 1)?.blockhash ?? block.blockhash,
    ...(details === 'full' || details === 'accounts' ? { transactions: full() } : {}),
    ...(details === 'signatures' ? { signatures: entries.map((entry) => entry.signature) } : {}),
    ...(rewards ? { rewards: [] } : {}),
  };
};

/** Agave's MAX_GET_CONFIRMED_BLOCKS_RANGE, for both the range of getBlocks and the limit of getBlocksWithLimit. */
const MAX_BLOCKS_RANGE = 500_000;

/** The config may come second (no end slot) or third; a bare number second is the end slot. */
function readBlocksArguments(second: unknown, third: unknown): { end: number | null; config: Config } {
  if (second !== undefined && second !== null && typeof second === 'object') return { end: null, config: readConfig(second) };
  const end = second === undefined || second === null ? null : Number(readUnsigned(second, 'end_slot'));
  return { end, config: readConfig(third) };
}

const getBlocks: RpcHandler = ([rawStart, second, third], node) => {
  const start = Number(readUnsigned(rawStart, 'start_slot'));
  const { end: wantedEnd, config } = readBlocksArguments(second, third);
  const newest = contextSlot(node.chain, config, readHistoryCommitment(config));
  const end = Math.min(wantedEnd ?? newest, newest);
  if (end < start) return [];
  if (end - start > MAX_BLOCKS_RANGE) throw invalidParams(`Slot range too large; max ${MAX_BLOCKS_RANGE}`);
  return node.chain.blockSlots(start, end);
};

const getBlocksWithLimit: RpcHandler = ([rawStart, rawLimit, rawConfig], node) => {
  const start = Number(readUnsigned(rawStart, 'start_slot'));
  const limit = Number(readUnsigned(rawLimit, 'limit'));
  const config = readConfig(rawConfig);
  const newest = contextSlot(node.chain, config, readHistoryCommitment(config));
  if (limit > MAX_BLOCKS_RANGE) throw invalidParams(`Limit too large; max ${MAX_BLOCKS_RANGE}`);
  if (limit === 0) return [];
  return node.chain.blockSlots(start, newest, limit);
};

export const historyMethods: Record<string, RpcHandler> = {
  getSignaturesForAddress,
  getBlock,
  getBlocks,
  getBlocksWithLimit,
};
