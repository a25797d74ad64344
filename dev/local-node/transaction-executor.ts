/**
 * Runs transactions against LiteSVM the way a cluster would: the blockhash rule of the
 * node's block table, preflight simulation, duplicate detection, and a full record of each
 * transaction that lands (succeeded, or failed with its fee charged).
 */
import { FailedTransactionMetadata, type Account, type LiteSvm, type SimulatedTransactionInfo, type TransactionMetadata } from 'litesvm/dist/internal';
import type { AccountJournal } from './account-journal';
import type { UnfinalizedWrites } from './fork';
import { encodeBase58 } from './base58';
import { captureBalances } from './balance-capture';
import type { Chain } from './chain';
import { computeBudgetOf, feeForMessage } from './fees';
import { keyId } from './key-id';
import type { PrioritizationFeeCache } from './prioritization-fees';
import { transactionErrorToJson, type TransactionErrorJson } from './transaction-errors';
import type { InnerInstructionGroup, ReturnDataRecord, TransactionRecord } from './transaction-record';
import type { TransactionStore } from './transaction-store';
import { isStaticKeyWritable, type ParsedMessage, type ParsedTransaction } from './wire-transaction';

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: ReturnDataRecord | null;
  innerInstructions: InnerInstructionGroup[];
  /** Account states after the simulated run, by key id (only for the keys it touched). */
  postAccounts: () => Map<string, Account>;
}

export type SubmitOutcome =
  | { status: 'landed'; signature: string; record: TransactionRecord }
  /** Accepted without preflight but never executed (a cluster silently drops these too). */
  | { status: 'dropped'; signature: string; err: TransactionErrorJson | null }
  | { status: 'rejected'; signature: string; simulation: SimulationResult };

interface AccountKeys {
  all: Uint8Array[];
  writable: boolean[];
  loadedWritable: Uint8Array[];
  loadedReadonly: Uint8Array[];
}

// Address lookup table account: 56 bytes of metadata, then 32-byte addresses.
const LOOKUP_TABLE_META_SIZE = 56;

function resolveAccountKeys(svm: LiteSvm, message: ParsedMessage): AccountKeys | null {
  const loadedWritable: Uint8Array[] = [];
  const loadedReadonly: Uint8Array[] = [];
  for (const lookup of message.lookups) {
    const table = svm.getAccount(lookup.tableKey)?.data();
    if (!table) return null;
    const count = Math.floor((table.length - LOOKUP_TABLE_META_SIZE) / 32);
    const pick = (index: number) => table.slice(LOOKUP_TABLE_META_SIZE + index * 32, LOOKUP_TABLE_META_SIZE + index * 32 + 32);
    for (const index of lookup.writableIndexes) {
      if (index >= count) return null;
      loadedWritable.push(pick(index));
    }
    for (const index of lookup.readonlyIndexes) {
      if (index >= count) return null;
      loadedReadonly.push(pick(index));
    }
  }
  const all = [...message.staticKeys, ...loadedWritable, ...loadedReadonly];
  const writable = all.map((_, i) => (i < message.staticKeys.length ? isStaticKeyWritable(message, i) : i < message.staticKeys.length + loadedWritable.length));
  return { all, writable, loadedWritable, loadedReadonly };
}

function innerInstructionsOf(meta: TransactionMetadata): InnerInstructionGroup[] {
  const groups: InnerInstructionGroup[] = [];
  meta.innerInstructions().forEach((inner, index) => {
    if (inner.length === 0) return;
    groups.push({
      index,
      instructions: inner.map((entry) => {
        const instruction = entry.instruction();
        return { programIdIndex: instruction.programIdIndex(), accounts: instruction.accounts(), data: instruction.data(), stackHeight: entry.stackHeight() };
      }),
    });
  });
  return groups;
}

function returnDataOf(meta: TransactionMetadata): ReturnDataRecord | null {
  const returned = meta.returnData();
  const data = returned.data();
  return data.length > 0 ? { programId: returned.programId(), data } : null;
}

export class TransactionExecutor {
  private blockhashCheck: boolean | null = null;
  private sigverify = true;
  /** Called for each transaction that lands, with the accounts it wrote (PubSub notifications). */
  onLanded: ((record: TransactionRecord, written: Uint8Array[]) => void) | null = null;

  constructor(
    private readonly svm: LiteSvm,
    private readonly chain: Chain,
    private readonly store: TransactionStore,
    private readonly journal: AccountJournal,
    private readonly prioritizationFees: PrioritizationFeeCache,
    private readonly unfinalized: UnfinalizedWrites,
  ) {
    svm.setSigverify(true);
  }

  /**
   * LiteSVM only accepts its newest blockhash. A blockhash the block table knows as recent is
   * run with LiteSVM's check off; anything else with it on, so durable nonces are still
   * validated and unknown or expired blockhashes fail as BlockhashNotFound.
   */
  private applyBlockhashRule(message: ParsedMessage): void {
    const check = !this.chain.isBlockhashUsable(encodeBase58(message.blockhash));
    if (check !== this.blockhashCheck) {
      this.svm.setBlockhashCheck(check);
      this.blockhashCheck = check;
    }
  }

  private setSigverify(enabled: boolean): void {
    if (enabled !== this.sigverify) {
      this.svm.setSigverify(enabled);
      this.sigverify = enabled;
    }
  }

  private runSimulation(transaction: ParsedTransaction, sigVerify: boolean): SimulatedTransactionInfo | FailedTransactionMetadata {
    this.setSigverify(sigVerify);
    try {
      return transaction.message.version === 'legacy'
        ? this.svm.simulateLegacyTransaction(transaction.bytes)
        : this.svm.simulateVersionedTransaction(transaction.bytes);
    } finally {
      this.setSigverify(true);
    }
  }

  simulate(transaction: ParsedTransaction, sigVerify: boolean): SimulationResult {
    this.applyBlockhashRule(transaction.message);
    const result = this.runSimulation(transaction, sigVerify);
    const meta = result.meta();
    const failed = result instanceof FailedTransactionMetadata;
    return {
      err: failed ? transactionErrorToJson(result.err()) : null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData: returnDataOf(meta),
      innerInstructions: innerInstructionsOf(meta),
      postAccounts: () => {
        const accounts = new Map<string, Account>();
        if (!failed) for (const entry of result.postAccounts()) accounts.set(keyId(entry.address), entry.account());
        return accounts;
      },
    };
  }

  submit(transaction: ParsedTransaction, skipPreflight: boolean): SubmitOutcome {
    const signature = encodeBase58(transaction.signatures[0]);
    if (this.store.has(signature)) {
      // A cluster's status cache refuses the duplicate; without preflight it is silently ignored.
      if (skipPreflight) return { status: 'dropped', signature, err: 'AlreadyProcessed' };
      const simulation: SimulationResult = {
        err: 'AlreadyProcessed',
        logs: [],
        unitsConsumed: 0n,
        returnData: null,
        innerInstructions: [],
        postAccounts: () => new Map(),
      };
      return { status: 'rejected', signature, simulation };
    }
    this.applyBlockhashRule(transaction.message);
    // Preflight: a full simulation, but its details are only read when it fails.
    if (!skipPreflight && this.runSimulation(transaction, true) instanceof FailedTransactionMetadata) {
      return { status: 'rejected', signature, simulation: this.simulate(transaction, true) };
    }
    return this.execute(transaction, signature);
  }

  private execute(transaction: ParsedTransaction, signature: string): SubmitOutcome {
    const { message } = transaction;
    const feePayer = message.staticKeys[0];
    const keys = resolveAccountKeys(this.svm, message);
    const pre = keys ? captureBalances(this.svm, keys.all) : null;
    const payerBefore = this.svm.getBalance(feePayer);
    // What a fork would restore (fork.ts): the accounts it may write, as they are before it runs.
    const preImages = this.unfinalized.capture(
      this.svm,
      keys ? keys.all.filter((_, i) => keys.writable[i]) : message.staticKeys.filter((_, i) => isStaticKeyWritable(message, i)),
    );
    const result = message.version === 'legacy' ? this.svm.sendLegacyTransaction(transaction.bytes) : this.svm.sendVersionedTransaction(transaction.bytes);
    const failed = result instanceof FailedTransactionMetadata;
    const err = failed ? transactionErrorToJson(result.err()) : null;
    // Failures before execution (bad blockhash, signature, unfunded payer) charge nothing and leave no trace.
    if (failed && this.svm.getBalance(feePayer) === payerBefore) return { status: 'dropped', signature, err };

    const meta = failed ? result.meta() : result;
    const post = keys && pre ? captureBalances(this.svm, keys.all, pre, keys.writable) : null;
    const record: TransactionRecord = {
      signature,
      slot: this.chain.currentSlot,
      blockTime: this.chain.currentBlockTime,
      wire: transaction.bytes.slice(),
      err,
      fee: feeForMessage(message),
      preBalances: pre?.lamports ?? [],
      postBalances: post?.lamports ?? [],
      preTokenBalances: pre?.tokens ?? [],
      postTokenBalances: post?.tokens ?? [],
      logs: meta.logs(),
      computeUnits: meta.computeUnitsConsumed(),
      innerInstructions: innerInstructionsOf(meta),
      returnData: returnDataOf(meta),
      loadedWritable: keys?.loadedWritable ?? [],
      loadedReadonly: keys?.loadedReadonly ?? [],
    };
    this.store.add(record);
    this.unfinalized.landed(record.slot, signature, preImages);
    const written = keys ? keys.all.filter((_, i) => keys.writable[i]) : message.staticKeys.filter((_, i) => isStaticKeyWritable(message, i));
    written.forEach((key) => this.journal.markWritten(key));
    this.prioritizationFees.record(record.slot, computeBudgetOf(message).unitPrice, written);
    this.onLanded?.(record, written);
    return { status: 'landed', signature, record };
  }
}
