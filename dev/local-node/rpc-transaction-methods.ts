/** JSON-RPC methods that send, simulate and look up transactions. */
import { encodeAccount, readAccountEncoding } from './account-encoding';
import { decodeBase58, encodeBase58 } from './base58';
import { FINALITY_DEPTH, MAX_BLOCKHASH_AGE, type Chain } from './chain';
import { feeForMessage } from './fees';
import { keyId } from './key-id';
import { withContext, type RpcHandler } from './rpc-context';
import { INTERNAL_ERROR, invalidParams, RpcError, SEND_TRANSACTION_PREFLIGHT_FAILURE, TRANSACTION_SIGNATURE_VERIFICATION_FAILURE } from './rpc-errors';
import {
  contextSlot,
  readAddress,
  readArray,
  readBoolean,
  readCommitment,
  readConfig,
  readSignature,
  readString,
  readUnsigned,
  type Config,
} from './rpc-params';
import { describeTransactionError } from './transaction-errors';
import type { SimulationResult } from './transaction-executor';
import { transactionJson, type TransactionEncoding } from './transaction-json';
import type { TransactionStatus } from './transaction-store';
import { MAX_TRANSACTION_BYTES, parseMessage, parseTransaction, WireFormatError, type ParsedTransaction } from './wire-transaction';

const MAX_SIGNATURE_STATUSES = 256;
/** How far back a cluster's status cache answers without searchTransactionHistory. */
const STATUS_CACHE_SLOTS = 300;
export const TRANSACTION_ENCODINGS = new Set(['json', 'jsonParsed', 'base64', 'base58']);

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

function decodeWire(encoded: unknown, encoding: unknown): Uint8Array {
  const text = readString(encoded, 'transaction');
  const format = encoding ?? 'base58';
  let bytes: Uint8Array | null;
  let maxEncoded: number;
  if (format === 'base64') {
    maxEncoded = Math.ceil(MAX_TRANSACTION_BYTES / 3) * 4;
    bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? new Uint8Array(Buffer.from(text, 'base64')) : null;
  } else if (format === 'base58') {
    maxEncoded = Math.ceil(MAX_TRANSACTION_BYTES * 1.37);
    bytes = text.length <= maxEncoded ? decodeBase58(text) : null;
  } else {
    throw invalidParams(`Invalid params: unknown variant \`${String(format)}\`, expected \`base58\` or \`base64\`.`);
  }
  if (text.length > maxEncoded || (bytes && bytes.length > MAX_TRANSACTION_BYTES)) {
    throw invalidParams(
      `${format} encoded solana_transaction::versioned::VersionedTransaction too large: ${text.length} bytes (max: encoded/raw ${maxEncoded}/${MAX_TRANSACTION_BYTES})`,
    );
  }
  if (!bytes) throw invalidParams(`invalid ${format} encoding: the transaction is not valid ${format}`);
  return bytes;
}

function readTransaction(bytes: Uint8Array): ParsedTransaction {
  try {
    return parseTransaction(bytes);
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
    if (error.message.startsWith('Transaction failed to sanitize')) throw invalidParams(`invalid transaction: ${error.message}`);
    throw invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${error.message}`);
  }
}

function returnDataJson(simulation: SimulationResult) {
  const returned = simulation.returnData;
  return returned ? { programId: encodeBase58(returned.programId), data: [toBase64(returned.data), 'base64'] } : null;
}

function preflightError(simulation: SimulationResult): RpcError {
  if (simulation.err === 'SignatureFailure') {
    return new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
  }
  return new RpcError(SEND_TRANSACTION_PREFLIGHT_FAILURE, `Transaction simulation failed: ${describeTransactionError(simulation.err!)}`, {
    accounts: null,
    err: simulation.err,
    innerInstructions: null,
    logs: simulation.logs,
    replacementBlockhash: null,
    returnData: returnDataJson(simulation),
    unitsConsumed: simulation.unitsConsumed,
  });
}

const sendTransaction: RpcHandler = ([encoded, rawConfig], node) => {
  const config = readConfig(rawConfig);
  const transaction = readTransaction(decodeWire(encoded, config.encoding));
  const skipPreflight = readBoolean(config.skipPreflight, 'skipPreflight', false);
  if (config.preflightCommitment !== undefined) readCommitment({ commitment: config.preflightCommitment });
  contextSlot(node.chain, config, 'processed');
  const outcome = node.executor.submit(transaction, skipPreflight);
  if (outcome.status === 'rejected') throw preflightError(outcome.simulation);
  return outcome.signature;
};

function simulatedAccounts(config: Config, simulation: SimulationResult, node: Parameters<RpcHandler>[1]) {
  if (config.accounts === undefined || config.accounts === null) return null;
  const accountsConfig = readConfig(config.accounts);
  const encoding = readAccountEncoding(accountsConfig, 'base64');
  const postAccounts = simulation.postAccounts();
  return readArray(accountsConfig.addresses, 'accounts.addresses', 256).map((address) => {
    const key = readAddress(address);
    const account = postAccounts.get(keyId(key)) ?? node.svm.getAccount(key);
    return account ? encodeAccount(account, encoding, null, node.readMint) : null;
  });
}

const simulateTransaction: RpcHandler = ([encoded, rawConfig], node) => {
  const config = readConfig(rawConfig);
  let bytes = decodeWire(encoded, config.encoding);
  const sigVerify = readBoolean(config.sigVerify, 'sigVerify', false);
  const replaceBlockhash = readBoolean(config.replaceRecentBlockhash, 'replaceRecentBlockhash', false);
  if (sigVerify && replaceBlockhash) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
  const commitment = readCommitment(config);
  const slot = contextSlot(node.chain, config, commitment);
  let transaction = readTransaction(bytes);
  let replacementBlockhash = null;
  if (replaceBlockhash) {
    const block = node.chain.latestBlock(commitment);
    bytes = bytes.slice();
    bytes.set(decodeBase58(block.blockhash)!, transaction.messageOffset + transaction.message.blockhashOffset);
    transaction = readTransaction(bytes);
    replacementBlockhash = { blockhash: block.blockhash, lastValidBlockHeight: block.height + MAX_BLOCKHASH_AGE };
  }
  const simulation = node.executor.simulate(transaction, sigVerify);
  if (sigVerify && simulation.err === 'SignatureFailure') throw preflightError(simulation);
  const wantInner = readBoolean(config.innerInstructions, 'innerInstructions', false);
  const keys = transaction.message.staticKeys.map(encodeBase58);
  return withContext(slot, {
    err: simulation.err,
    logs: simulation.logs,
    accounts: simulatedAccounts(config, simulation, node),
    unitsConsumed: simulation.unitsConsumed,
    returnData: returnDataJson(simulation),
    innerInstructions: wantInner
      ? simulation.innerInstructions.map((group) => ({
          index: group.index,
          instructions: group.instructions.map((ix) => ({
            programId: keys[ix.programIdIndex] ?? null,
            accounts: [...ix.accounts].map((i) => keys[i] ?? null),
            data: encodeBase58(ix.data),
            stackHeight: ix.stackHeight,
          })),
        }))
      : null,
    replacementBlockhash,
  });
};

function statusJson(status: TransactionStatus, chain: Chain) {
  const confirmationStatus = chain.commitmentOf(status.slot);
  return {
    slot: status.slot,
    confirmations: confirmationStatus === 'finalized' ? null : Math.min(chain.currentSlot - status.slot, FINALITY_DEPTH),
    err: status.err,
    status: status.err === null ? { Ok: null } : { Err: status.err },
    confirmationStatus,
  };
}

const getSignatureStatuses: RpcHandler = ([signatures, rawConfig], node) => {
  const list = readArray(signatures, 'signatures', MAX_SIGNATURE_STATUSES);
  const config = readConfig(rawConfig);
  const searchHistory = readBoolean(config.searchTransactionHistory, 'searchTransactionHistory', false);
  const oldestCached = node.chain.currentSlot - STATUS_CACHE_SLOTS;
  return withContext(
    node.chain.slotAt('processed'),
    list.map((signature) => {
      readSignature(signature);
      const status = node.store.status(signature as string);
      if (!status || (!searchHistory && status.slot < oldestCached)) return null;
      return statusJson(status, node.chain);
    }),
  );
};

const getTransaction: RpcHandler = ([signature, rawConfig], node) => {
  readSignature(signature);
  // The legacy form passes the encoding alone instead of a config object.
  const config = typeof rawConfig === 'string' ? { encoding: rawConfig } : readConfig(rawConfig);
  const commitment = readCommitment(config);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  const encoding = (config.encoding ?? 'json') as TransactionEncoding;
  if (!TRANSACTION_ENCODINGS.has(encoding)) throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\`.`);
  const maxVersion = config.maxSupportedTransactionVersion;
  const maxSupportedVersion = maxVersion === undefined || maxVersion === null ? null : Number(readUnsigned(maxVersion, 'maxSupportedTransactionVersion'));
  const status = node.store.status(signature as string);
  if (!status || status.slot > node.chain.slotAt(commitment)) return null;
  const record = node.store.get(signature as string);
  if (!record) return null;
  return transactionJson(record, parseTransaction(record.wire), encoding, maxSupportedVersion);
};

const requestAirdrop: RpcHandler = ([address, lamports, rawConfig], node) => {
  const recipient = readAddress(address);
  const amount = readUnsigned(lamports, 'lamports');
  readConfig(rawConfig);
  const outcome = node.airdrop(recipient, amount);
  if (outcome.status !== 'landed') {
    const reason = outcome.status === 'rejected' ? outcome.simulation.err : outcome.err;
    throw new RpcError(INTERNAL_ERROR, `Internal error: airdrop failed: ${reason === null ? 'unknown' : describeTransactionError(reason)}`);
  }
  return outcome.signature;
};

const getFeeForMessage: RpcHandler = ([encoded, rawConfig], node) => {
  const config = readConfig(rawConfig);
  const commitment = readCommitment(config);
  const slot = contextSlot(node.chain, config, commitment);
  let message;
  try {
    message = parseMessage(new Uint8Array(Buffer.from(readString(encoded, 'message'), 'base64')));
  } catch (error) {
    if (error instanceof WireFormatError) throw invalidParams(`invalid message: ${error.message}`);
    throw error;
  }
  // Like a cluster: no fee for a message whose blockhash can no longer land.
  const usable = node.chain.isBlockhashUsable(encodeBase58(message.blockhash), node.chain.heightAt(commitment));
  return withContext(slot, usable ? feeForMessage(message) : null);
};

export const transactionMethods: Record<string, RpcHandler> = {
  sendTransaction,
  simulateTransaction,
  getSignatureStatuses,
  getTransaction,
  requestAirdrop,
  getFeeForMessage,
};
