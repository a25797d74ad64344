/** A transaction record in the JSON shape of getTransaction. */
import { encodeBase58 } from './base58';
import { RpcError, UNSUPPORTED_TRANSACTION_VERSION } from './rpc-errors';
import { toUiTokenAmount } from './token-accounts';
import type { InnerInstructionGroup, TokenBalance, TransactionRecord } from './transaction-record';
import { isStaticKeyWritable, type CompiledInstruction, type ParsedTransaction } from './wire-transaction';

export type TransactionEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

function tokenBalanceJson(balance: TokenBalance) {
  return {
    accountIndex: balance.accountIndex,
    mint: encodeBase58(balance.mint),
    owner: encodeBase58(balance.owner),
    programId: encodeBase58(balance.programId),
    uiTokenAmount: toUiTokenAmount(balance.amount, balance.decimals),
  };
}

/** jsonParsed without program parsers: the "partially decoded" form a cluster uses for unknown programs. */
function partiallyDecoded(keys: string[], programIdIndex: number, accounts: Uint8Array, data: Uint8Array, stackHeight: number | null) {
  return { programId: keys[programIdIndex], accounts: [...accounts].map((i) => keys[i]), data: encodeBase58(data), stackHeight };
}

function innerInstructionsJson(groups: InnerInstructionGroup[], parsed: boolean, keys: string[]) {
  return groups.map((group) => ({
    index: group.index,
    instructions: group.instructions.map((ix) =>
      parsed
        ? partiallyDecoded(keys, ix.programIdIndex, ix.accounts, ix.data, ix.stackHeight)
        : { programIdIndex: ix.programIdIndex, accounts: [...ix.accounts], data: encodeBase58(ix.data), stackHeight: ix.stackHeight },
    ),
  }));
}

function messageJson(transaction: ParsedTransaction, record: TransactionRecord, parsed: boolean, keys: string[]) {
  const { message } = transaction;
  const staticKeys = keys.slice(0, message.staticKeys.length);
  const instructionJson = (ix: CompiledInstruction) =>
    parsed
      ? partiallyDecoded(keys, ix.programIdIndex, ix.accountIndexes, ix.data, null)
      : { programIdIndex: ix.programIdIndex, accounts: [...ix.accountIndexes], data: encodeBase58(ix.data), stackHeight: null };
  const accountKeys = parsed
    ? keys.map((pubkey, i) => {
        const isStatic = i < message.staticKeys.length;
        return {
          pubkey,
          writable: isStatic ? isStaticKeyWritable(message, i) : i < message.staticKeys.length + record.loadedWritable.length,
          signer: i < message.numRequiredSignatures,
          source: isStatic ? 'transaction' : 'lookupTable',
        };
      })
    : staticKeys;
  return {
    accountKeys,
    header: {
      numRequiredSignatures: message.numRequiredSignatures,
      numReadonlySignedAccounts: message.numReadonlySigned,
      numReadonlyUnsignedAccounts: message.numReadonlyUnsigned,
    },
    recentBlockhash: encodeBase58(message.blockhash),
    instructions: message.instructions.map(instructionJson),
    ...(message.version === 0
      ? {
          addressTableLookups: message.lookups.map((lookup) => ({
            accountKey: encodeBase58(lookup.tableKey),
            writableIndexes: [...lookup.writableIndexes],
            readonlyIndexes: [...lookup.readonlyIndexes],
          })),
        }
      : {}),
  };
}

/** `maxSupportedVersion` null means the client did not send maxSupportedTransactionVersion. */
export function transactionJson(record: TransactionRecord, transaction: ParsedTransaction, encoding: TransactionEncoding, maxSupportedVersion: number | null) {
  const version = transaction.message.version;
  if (version !== 'legacy' && (maxSupportedVersion === null || version > maxSupportedVersion)) {
    throw new RpcError(
      UNSUPPORTED_TRANSACTION_VERSION,
      `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
    );
  }
  const parsed = encoding === 'jsonParsed';
  const loadedWritable = record.loadedWritable.map(encodeBase58);
  const loadedReadonly = record.loadedReadonly.map(encodeBase58);
  const keys = [...transaction.message.staticKeys.map(encodeBase58), ...loadedWritable, ...loadedReadonly];
  let encoded: unknown;
  if (encoding === 'base64') encoded = [toBase64(record.wire), 'base64'];
  else if (encoding === 'base58') encoded = [encodeBase58(record.wire), 'base58'];
  else encoded = { signatures: transaction.signatures.map(encodeBase58), message: messageJson(transaction, record, parsed, keys) };
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    ...(maxSupportedVersion !== null ? { version } : {}),
    meta: {
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      fee: record.fee,
      preBalances: record.preBalances,
      postBalances: record.postBalances,
      innerInstructions: innerInstructionsJson(record.innerInstructions, parsed, keys),
      logMessages: record.logs,
      preTokenBalances: record.preTokenBalances.map(tokenBalanceJson),
      postTokenBalances: record.postTokenBalances.map(tokenBalanceJson),
      rewards: [],
      loadedAddresses: { writable: loadedWritable, readonly: loadedReadonly },
      computeUnitsConsumed: record.computeUnits,
      ...(record.returnData
        ? { returnData: { programId: encodeBase58(record.returnData.programId), data: [toBase64(record.returnData.data), 'base64'] } }
        : {}),
    },
    transaction: encoded,
  };
}
