/**
 * What the node remembers about every landed transaction. LiteSVM keeps only logs, CU and
 * the error of its last few transactions, so fee, balances, slot and bytes are recorded here.
 */
import type { TransactionErrorJson } from './transaction-errors';

export interface TokenBalance {
  accountIndex: number;
  mint: Uint8Array;
  owner: Uint8Array;
  programId: Uint8Array;
  amount: bigint;
  decimals: number;
}

export interface InnerInstructionRecord {
  programIdIndex: number;
  accounts: Uint8Array;
  data: Uint8Array;
  stackHeight: number;
}

export interface InnerInstructionGroup {
  /** Index of the top-level instruction these were invoked from. */
  index: number;
  instructions: InnerInstructionRecord[];
}

export interface ReturnDataRecord {
  programId: Uint8Array;
  data: Uint8Array;
}

export interface TransactionRecord {
  signature: string;
  slot: number;
  blockTime: number;
  /** The transaction exactly as received. */
  wire: Uint8Array;
  err: TransactionErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logs: string[];
  computeUnits: bigint;
  innerInstructions: InnerInstructionGroup[];
  returnData: ReturnDataRecord | null;
  loadedWritable: Uint8Array[];
  loadedReadonly: Uint8Array[];
}

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

interface StoredTokenBalance {
  i: number;
  m: string;
  o: string;
  p: string;
  a: string;
  d: number;
}

const storeTokenBalance = (b: TokenBalance): StoredTokenBalance => ({
  i: b.accountIndex,
  m: toBase64(b.mint),
  o: toBase64(b.owner),
  p: toBase64(b.programId),
  a: b.amount.toString(),
  d: b.decimals,
});
const loadTokenBalance = (b: StoredTokenBalance): TokenBalance => ({
  accountIndex: b.i,
  mint: fromBase64(b.m),
  owner: fromBase64(b.o),
  programId: fromBase64(b.p),
  amount: BigInt(b.a),
  decimals: b.d,
});

/** One line of the append-only transaction log (compact keys keep the file small). */
export function serializeRecord(record: TransactionRecord): string {
  return JSON.stringify({
    s: record.signature,
    slot: record.slot,
    t: record.blockTime,
    w: toBase64(record.wire),
    e: record.err,
    f: record.fee.toString(),
    pre: record.preBalances.map(String),
    post: record.postBalances.map(String),
    ptb: record.preTokenBalances.map(storeTokenBalance),
    qtb: record.postTokenBalances.map(storeTokenBalance),
    l: record.logs,
    cu: record.computeUnits.toString(),
    ii: record.innerInstructions.map((group) => ({
      i: group.index,
      x: group.instructions.map((ix) => [ix.programIdIndex, toBase64(ix.accounts), toBase64(ix.data), ix.stackHeight]),
    })),
    r: record.returnData && [toBase64(record.returnData.programId), toBase64(record.returnData.data)],
    lw: record.loadedWritable.map(toBase64),
    lr: record.loadedReadonly.map(toBase64),
  });
}

export function deserializeRecord(line: string): TransactionRecord {
  const v = JSON.parse(line);
  return {
    signature: v.s,
    slot: v.slot,
    blockTime: v.t,
    wire: fromBase64(v.w),
    err: v.e,
    fee: BigInt(v.f),
    preBalances: v.pre.map(BigInt),
    postBalances: v.post.map(BigInt),
    preTokenBalances: v.ptb.map(loadTokenBalance),
    postTokenBalances: v.qtb.map(loadTokenBalance),
    logs: v.l,
    computeUnits: BigInt(v.cu),
    innerInstructions: v.ii.map((group: { i: number; x: [number, string, string, number][] }) => ({
      index: group.i,
      instructions: group.x.map(([programIdIndex, accounts, data, stackHeight]) => ({
        programIdIndex,
        accounts: fromBase64(accounts),
        data: fromBase64(data),
        stackHeight,
      })),
    })),
    returnData: v.r ? { programId: fromBase64(v.r[0]), data: fromBase64(v.r[1]) } : null,
    loadedWritable: v.lw.map(fromBase64),
    loadedReadonly: v.lr.map(fromBase64),
  };
}

/** Just what the signature index needs from a log line (a restart reads every line). */
export function deserializeIndexFields(
  line: string,
): Pick<TransactionRecord, 'signature' | 'slot' | 'blockTime' | 'err' | 'wire' | 'loadedWritable' | 'loadedReadonly'> {
  const v = JSON.parse(line);
  return {
    signature: v.s,
    slot: v.slot,
    blockTime: v.t,
    err: v.e,
    wire: fromBase64(v.w),
    loadedWritable: v.lw.map(fromBase64),
    loadedReadonly: v.lr.map(fromBase64),
  };
}

/** A transaction-log line that forgets transactions a fork abandoned (fork.ts); replayed in log order at start. */
export function serializeRemoval(signatures: readonly string[]): string {
  return JSON.stringify({ removed: signatures });
}

/** The signatures a removal line forgets, or null for a transaction line. */
export function removedSignaturesOf(line: string): string[] | null {
  // Transaction lines start with their signature field.
  if (!line.startsWith('{"removed":')) return null;
  return (JSON.parse(line) as { removed: string[] }).removed;
}
