/**
 * The SVM port over Solana JSON-RPC, built on @solana/kit's RPC client. Transport faults are
 * thrown as they are (the caller retries); definite refusals become TransactionRejectedError.
 * Concurrent reads of one tick share requests (DataLoader, cache off): every write's
 * getSignatureStatus joins one getSignatureStatuses, and getSlot, getBlockHeight and
 * getLatestBlockhash at one commitment are read once for all their callers of the tick. A later
 * tick always asks the network again: nothing is cached.
 */
import {
  address,
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  isSolanaError,
  lamports,
  signature as toSignature,
  SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SLOT_SKIPPED,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  type Base64EncodedWireTransaction,
} from '@solana/kit';
import type { Tracer } from '@opentelemetry/api';
import DataLoader from 'dataloader';
import { TransactionRejectedError, type Commitment, type SignatureStatus, type SvmNetwork } from './svm-network';
import { tracedRpcTransport } from './traced-rpc-transport';

/** getSignatureStatuses takes at most this many signatures. */
const STATUSES_PER_REQUEST = 256;

/**
 * One read per commitment for all callers of a tick (DataLoader's batch: the loads made before the
 * process next runs its tick queue). Cache off: a later tick reads again, even while this one's read
 * is in flight. A failed read fails all its callers.
 */
function readPerTick<T>(read: (commitment: Commitment) => Promise<T>): (commitment: Commitment) => Promise<T> {
  const loader = new DataLoader<Commitment, T>(
    async (commitments) => {
      const reads = new Map<Commitment, Promise<T | Error>>();
      for (const c of commitments)
        if (!reads.has(c))
          reads.set(
            c,
            read(c).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
          );
      return Promise.all(commitments.map((c) => reads.get(c)!));
    },
    { cache: false },
  );
  return (commitment) => loader.load(commitment);
}

/** JSON for diagnostics: kit's error contexts hold bigints (unitsConsumed), which JSON.stringify refuses. */
const diagnosticJson = (value: unknown) => JSON.stringify(value ?? null, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));

type TokenBalance = { accountIndex: number; mint?: string; owner?: string; uiTokenAmount: { amount: string } };

/** Each token account's base units before and after (a meta lists only the accounts that held a token account then). */
function tokenBalanceChanges(keys: readonly string[], pre: readonly TokenBalance[], post: readonly TokenBalance[]) {
  const changes = new Map<string, { address: string; pre: bigint; post: bigint }>();
  const entry = (b: TokenBalance) =>
    changes.get(keys[b.accountIndex]) ?? changes.set(keys[b.accountIndex], { address: keys[b.accountIndex], pre: 0n, post: 0n }).get(keys[b.accountIndex])!;
  for (const b of pre) entry(b).pre = BigInt(b.uiTokenAmount.amount);
  for (const b of post) entry(b).post = BigInt(b.uiTokenAmount.amount);
  return [...changes.values()];
}

/** Each token account's mint, owner and base units before and after, for the chain follower (it matches token accounts by owner). */
function ownedTokenBalanceChanges(keys: readonly string[], pre: readonly TokenBalance[], post: readonly TokenBalance[]) {
  const changes = new Map<string, { address: string; mint: string; owner: string | null; pre: bigint; post: bigint }>();
  const entry = (b: TokenBalance) => {
    const address = keys[b.accountIndex];
    const found = changes.get(address) ?? changes.set(address, { address, mint: b.mint ?? '', owner: b.owner ?? null, pre: 0n, post: 0n }).get(address)!;
    found.owner ??= b.owner ?? null;
    return found;
  };
  for (const b of pre) entry(b).pre = BigInt(b.uiTokenAmount.amount);
  for (const b of post) entry(b).post = BigInt(b.uiTokenAmount.amount);
  return [...changes.values()];
}

/** Errors that mean the exact bytes already landed: sending them again is a no-op, not a failure. */
function isAlreadyProcessed(error: unknown): boolean {
  const e = error as { message?: string; context?: unknown; cause?: { message?: string } };
  return /AlreadyProcessed|already been processed/i.test(`${e?.message ?? ''} ${e?.cause?.message ?? ''} ${diagnosticJson(e?.context)}`);
}

function describeRejection(error: unknown): TransactionRejectedError {
  const e = error as { message: string; context?: { __serverMessage?: string; logs?: string[] }; cause?: unknown };
  const logs = e.context?.logs ?? [];
  // A program's own words ("Transfer: insufficient lamports …") say more than the runtime's "custom program error: 0x1".
  const failing = logs.filter((line) => /error|failed|insufficient|invalid/i.test(line));
  const failingLog = failing.find((line) => !line.startsWith('Program ')) ?? failing[failing.length - 1];
  const serverMessage = e.context?.__serverMessage ?? e.message;
  return new TransactionRejectedError(failingLog ? `${serverMessage} (${failingLog})` : serverMessage, e.cause ?? null, logs);
}

/** `tracer` (tracing on): a span per JSON-RPC call; without it, kit's transport untouched. */
export function createJsonRpcNetwork(cluster: string, rpcUrl: string, tracer?: Tracer): SvmNetwork {
  // What createSolanaRpc(rpcUrl) builds, with the transport open to tracing.
  const transport = createDefaultRpcTransport({ url: rpcUrl });
  const rpc = createSolanaRpcFromTransport(tracer ? tracedRpcTransport(transport, tracer, rpcUrl) : transport);
  const signatureStatuses = async (sigs: string[]) => {
    const { value } = await rpc
      .getSignatureStatuses(
        sigs.map((sig) => toSignature(sig)),
        { searchTransactionHistory: true },
      )
      .send();
    return value.map((status) =>
      status
        ? {
            slot: status.slot,
            confirmationStatus: status.confirmationStatus,
            confirmations: status.confirmations === null ? null : Number(status.confirmations),
            err: status.err,
          }
        : null,
    );
  };
  // Every write's confirm polls its signature: the polls of a tick become one request (256 signatures each).
  const statusLoader = new DataLoader<string, SignatureStatus | null>((sigs) => signatureStatuses([...sigs]), {
    cache: false,
    maxBatchSize: STATUSES_PER_REQUEST,
  });
  const latestBlockhash = readPerTick(async (commitment) => {
    const { value } = await rpc.getLatestBlockhash({ commitment }).send();
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
  });
  const blockHeight = readPerTick((commitment) => rpc.getBlockHeight({ commitment }).send());
  const slot = readPerTick((commitment) => rpc.getSlot({ commitment }).send());
  return {
    cluster,
    getLatestBlockhash: (commitment = 'confirmed') => latestBlockhash(commitment),
    getBlockHeight: (commitment = 'confirmed') => blockHeight(commitment),
    async sendTransaction(wire, _signature) {
      try {
        await rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
      } catch (error) {
        if (isAlreadyProcessed(error)) return;
        if (
          isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE) ||
          isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE)
        ) {
          throw describeRejection(error);
        }
        throw error;
      }
    },
    getSignatureStatus: (sig) => statusLoader.load(sig),
    getSignatureStatuses: (sigs) => signatureStatuses(sigs),
    getSlot: (commitment = 'confirmed') => slot(commitment),
    async getTransaction(sig, commitment: Commitment = 'confirmed') {
      const tx = await rpc
        .getTransaction(toSignature(sig), {
          commitment: commitment === 'processed' ? 'confirmed' : commitment,
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send();
      if (!tx) return null;
      // Account order of a V0 message: its static keys, then the lookup tables' writable, then readonly addresses.
      const keys: string[] = [
        ...tx.transaction.message.accountKeys,
        ...(tx.meta?.loadedAddresses?.writable ?? []),
        ...(tx.meta?.loadedAddresses?.readonly ?? []),
      ];
      const pre = tx.meta?.preBalances ?? [];
      const post = tx.meta?.postBalances ?? [];
      return {
        slot: tx.slot,
        blockTime: tx.blockTime === null ? null : new Date(Number(tx.blockTime) * 1000),
        fee: tx.meta?.fee ?? 0n,
        computeUnitsConsumed: tx.meta?.computeUnitsConsumed ?? null,
        balances: keys.map((key, i) => ({ address: key, pre: BigInt(pre[i] ?? 0), post: BigInt(post[i] ?? 0) })),
        tokenBalances: tokenBalanceChanges(keys, tx.meta?.preTokenBalances ?? [], tx.meta?.postTokenBalances ?? []),
      };
    },
    async getBalance(addr, commitment: Commitment = 'confirmed') {
      const { value } = await rpc.getBalance(address(addr), { commitment }).send();
      return value;
    },
    async accountExists(addr) {
      const { value } = await rpc.getAccountInfo(address(addr), { encoding: 'base64', commitment: 'confirmed' }).send();
      return value !== null;
    },
    async getAccount(addr) {
      const { value } = await rpc.getAccountInfo(address(addr), { encoding: 'base64', commitment: 'confirmed' }).send();
      return value ? { owner: value.owner, lamports: value.lamports, data: new Uint8Array(Buffer.from(value.data[0], 'base64')) } : null;
    },
    async getMultipleAccounts(addrs) {
      if (addrs.length > 100) throw new Error('getMultipleAccounts takes at most 100 addresses');
      const { context, value } = await rpc
        .getMultipleAccounts(
          addrs.map((a) => address(a)),
          { encoding: 'base64', commitment: 'confirmed' },
        )
        .send();
      return {
        slot: context.slot,
        accounts: value.map((account) =>
          account ? { owner: account.owner, lamports: account.lamports, data: new Uint8Array(Buffer.from(account.data[0], 'base64')) } : null,
        ),
      };
    },
    async getSignaturesForAddress(addr, options = {}) {
      const found = await rpc
        .getSignaturesForAddress(address(addr), {
          commitment: 'confirmed',
          limit: options.limit ?? 1000,
          ...(options.before ? { before: toSignature(options.before) } : {}),
        })
        .send();
      return found.map((entry) => ({
        signature: entry.signature,
        slot: entry.slot,
        blockTime: entry.blockTime === null ? null : new Date(Number(entry.blockTime) * 1000),
        err: entry.err,
      }));
    },
    async getMinimumBalanceForRentExemption(dataLength) {
      return rpc.getMinimumBalanceForRentExemption(BigInt(dataLength)).send();
    },
    async simulateTransaction(wire) {
      const { value } = await rpc
        .simulateTransaction(wire as Base64EncodedWireTransaction, {
          encoding: 'base64',
          replaceRecentBlockhash: true,
          sigVerify: false,
          commitment: 'confirmed',
        })
        .send();
      return { unitsConsumed: value.unitsConsumed ?? null, err: value.err };
    },
    async getRecentPrioritizationFees(addresses) {
      const fees = await rpc.getRecentPrioritizationFees(addresses.map((a) => address(a))).send();
      return fees.map((f) => BigInt(f.prioritizationFee));
    },
    async getBlocks(start, end) {
      try {
        return [...(await rpc.getBlocks(start, end, { commitment: 'confirmed' }).send())];
      } catch (error) {
        // A node without getBlocks: every slot of the range is asked for (getBlock answers null for a skipped one).
        if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND)) throw error;
        return Array.from({ length: Number(end - start + 1n) }, (_, i) => start + BigInt(i));
      }
    },
    async getBlock(slot) {
      let block;
      try {
        block = await rpc
          .getBlock(slot, { commitment: 'confirmed', encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0, rewards: false })
          .send();
      } catch (error) {
        if (
          isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SLOT_SKIPPED) ||
          isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED)
        )
          return null;
        throw error;
      }
      if (!block) return null;
      return {
        slot,
        blockTime: block.blockTime === null ? null : new Date(Number(block.blockTime) * 1000),
        transactions: block.transactions.map((tx) => {
          const keys: string[] = [
            ...tx.transaction.message.accountKeys,
            ...(tx.meta?.loadedAddresses?.writable ?? []),
            ...(tx.meta?.loadedAddresses?.readonly ?? []),
          ];
          const pre = tx.meta?.preBalances ?? [];
          const post = tx.meta?.postBalances ?? [];
          return {
            signature: tx.transaction.signatures[0],
            err: tx.meta?.err ?? null,
            fee: tx.meta?.fee ?? 0n,
            accountKeys: keys,
            signers: tx.transaction.message.accountKeys.slice(0, tx.transaction.message.header.numRequiredSignatures),
            balances: keys.map((key, i) => ({ address: key, pre: BigInt(pre[i] ?? 0), post: BigInt(post[i] ?? 0) })),
            tokenBalances: ownedTokenBalanceChanges(keys, tx.meta?.preTokenBalances ?? [], tx.meta?.postTokenBalances ?? []),
          };
        }),
      };
    },
    async requestAirdrop(addr, amount) {
      return rpc.requestAirdrop(address(addr), lamports(amount), { commitment: 'confirmed' }).send();
    },
  };
}
