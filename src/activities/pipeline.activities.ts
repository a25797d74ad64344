/**
 * The generic steps of the write pipeline. Each is idempotent: a retry after a crash finds what the
 * first attempt wrote (transaction record, generated key) and carries on from there.
 */
import { Context } from '@temporalio/activity';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  getTransactionEncoder,
  getTransactionSize,
  isSolanaError,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Instruction,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, LedgerTransaction } from '../db/entities';
import type { SvmTransactionConfigInput } from '../api/codecs/common.codecs';
import { releaseDebits } from '../db/repositories/debit-reservations.repository';
import { checkLimits } from './limit-check';
import { LedgerError } from '../domain/errors';
import { estimateComputeUnitPrice } from '../domain/fees';
import { explainFailure } from '../domain/program-errors';
import type { BuiltTransaction, Outcome, Resolved, SignedTransaction, WriteRequest, WriteResult } from '../domain/write';
import { TransactionRejectedError } from '../network/svm-network';
import type { ActivityDeps } from './deps';
import { operationHandlers } from './operations';
import { applyStatus, createdReference, newTransactionRecord, setStatus, transactionResult } from './transaction-records';

/** The network's limit on a serialized transaction. */
export const MAX_TRANSACTION_SIZE = 1232;

const base64 = { encode: getBase64Decoder(), decode: getBase64Encoder() };

export function createPipelineActivities(deps: ActivityDeps) {
  const fork = () => deps.orm.em.fork() as unknown as EntityManager;
  const network = (cluster: string) => {
    const n = deps.networks.get(cluster);
    if (!n) throw new LedgerError('VALIDATION_ERROR', `unknown svmCluster ${cluster}`, 'svmCluster');
    return n;
  };

  /**
   * The network's own record of a landed transaction, fetched only when an onboarded account is
   * among its accounts (otherwise there is no offchain balance to move).
   */
  async function landedBalances(request: WriteRequest, outcome: Outcome) {
    if (outcome.status === 'EXPIRED' || outcome.status === 'SIGNED') return null;
    const em = fork();
    const tx = await em.findOne(LedgerTransaction, { id: request.transactionId });
    if (!tx?.signature || !tx.serializedMessage) return null;
    const message = getCompiledTransactionMessageDecoder().decode(base64.decode.encode(tx.serializedMessage));
    const onboarded = await em.count(Account, { organizationId: request.organizationId, cluster: request.cluster, address: { $in: message.staticAccounts as string[] } });
    return onboarded > 0 ? network(request.cluster).getTransaction(tx.signature, 'confirmed') : null;
  }

  return {
    /** Resolves every lookup of the request. Idempotent; fails with NOT_FOUND, FORBIDDEN, CONFLICT or VALIDATION_ERROR. */
    async lookup(request: WriteRequest): Promise<Resolved> {
      const em = fork();
      const resolved = await operationHandlers[request.operation].lookup(em, deps, request);
      return { ...resolved, webhooks: await signersWebhooks(em, request, resolved) };
    },

    /**
     * Enforces the debit limits of every debited wallet (spec 8): per transaction, and over rolling
     * windows that hold this transaction's debits from here on (released if it fails). Concurrent
     * checks of one account take turns. Fails with LIMIT_EXCEEDED naming the limit.
     */
    async checkLimits(request: WriteRequest, resolved: Resolved): Promise<void> {
      if (resolved.debits.length) await checkLimits(fork(), request, resolved.debits, deps.now());
    },

    /**
     * Builds the V0 message with a fresh blockhash and writes the record as BUILT. Idempotent per
     * lifetime: a retry rebuilds (nothing was signed yet). Fails with TRANSACTION_TOO_LARGE.
     */
    async build(request: WriteRequest, resolved: Resolved): Promise<BuiltTransaction> {
      const config = (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput;
      const instructions: Instruction[] = [];
      const cu = config.computeUnitConfig;
      if (cu?.enable) {
        if (cu.limit !== undefined) instructions.push(getSetComputeUnitLimitInstruction({ units: cu.limit }));
        // An explicit price wins; otherwise the estimate comes from the cluster's recent fees for the signers.
        const price =
          cu.price !== undefined ? BigInt(cu.price) : cu.priceEstimate ? estimateComputeUnitPrice(await network(request.cluster).getRecentPrioritizationFees(resolved.signers), cu.priceEstimate.priorityLevel) : undefined;
        if (price !== undefined) instructions.push(getSetComputeUnitPriceInstruction({ microLamports: price }));
      }
      instructions.push(...operationHandlers[request.operation].instructions(request, resolved));
      const lifetime = await network(request.cluster).getLatestBlockhash(request.commitment === 'finalized' ? 'finalized' : 'confirmed');
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(address(resolved.feePayer), m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: lifetime.lastValidBlockHeight }, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      );
      const hint = operationHandlers[request.operation].tooLargeHint ?? 'Split the request into smaller ones.';
      let transaction: ReturnType<typeof compileTransaction>;
      try {
        transaction = compileTransaction(message);
      } catch (error) {
        // Over the network's count of instructions or accounts per transaction: too large as well.
        if (isSolanaError(error) && /maximum/i.test(error.message)) throw new LedgerError('TRANSACTION_TOO_LARGE', `${error.message}. ${hint}`, undefined, { limit: MAX_TRANSACTION_SIZE });
        throw error;
      }
      const size = getTransactionSize(transaction);
      if (size > MAX_TRANSACTION_SIZE) {
        throw new LedgerError('TRANSACTION_TOO_LARGE', `the transaction is ${size} bytes; the network allows ${MAX_TRANSACTION_SIZE}. ${hint}`, undefined, { size, limit: MAX_TRANSACTION_SIZE });
      }
      const built: BuiltTransaction = {
        messageBase64: base64.encode.decode(getTransactionEncoder().encode(transaction)),
        signers: Object.keys(transaction.signatures),
        lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
        size,
      };
      const em = fork();
      const now = deps.now();
      const record = (await em.findOne(LedgerTransaction, { id: request.transactionId })) ?? newTransactionRecord(em, request, now);
      applyStatus(record, 'BUILT', now);
      record.serializedMessage = base64.encode.decode(transaction.messageBytes);
      record.feePayer = resolved.feePayer;
      record.signers = built.signers;
      record.lastValidBlockHeight = lifetime.lastValidBlockHeight;
      record.signature = null;
      // A record reused by a new run (a retry of a write whose run is gone) starts without an outcome.
      Object.assign(record, { success: null, errorMessage: null, errorCode: null });
      record.reservedAddress = resolved.reservesAddress ?? null;
      await em.flush();
      return built;
    },

    /**
     * Signs with the managed keys the lookup step allowed (`allowed`: it checked the organization may
     * use each); a signer outside that list is refused. Idempotent (ed25519 is deterministic).
     */
    async sign(request: WriteRequest, built: BuiltTransaction, allowed: string[]): Promise<SignedTransaction> {
      const em = fork();
      const unexpected = built.signers.filter((s) => !allowed.includes(s));
      if (unexpected.length) throw new LedgerError('FORBIDDEN', `the transaction needs signatures this request may not give: ${unexpected.join(', ')}`, undefined, { unexpected });
      const transaction = getTransactionDecoder().decode(base64.decode.encode(built.messageBase64));
      const keyPairs = await deps.keyStore.keyPairs(em, built.signers);
      const missing = built.signers.filter((s) => !keyPairs.has(s));
      if (missing.length) throw new LedgerError('VALIDATION_ERROR', `no managed key to sign for ${missing.join(', ')}`, undefined, { missing });
      const signed = await partiallySignTransaction([...keyPairs.values()], transaction);
      const result = { signature: getSignatureFromTransaction(signed), wireBase64: getBase64EncodedWireTransaction(signed) };
      await setStatus(em, request.transactionId, 'SIGNED', deps.now(), { signature: result.signature });
      return result;
    },

    /** Sends the signed bytes; a retry re-sends the same bytes. A definite refusal is returned, not thrown. */
    async submit(request: WriteRequest, signed: SignedTransaction): Promise<{ rejected: string | null }> {
      try {
        await network(request.cluster).sendTransaction(signed.wireBase64, signed.signature);
      } catch (error) {
        if (error instanceof TransactionRejectedError) return { rejected: error.message };
        throw error;
      }
      await setStatus(fork(), request.transactionId, 'SUBMITTED', deps.now());
      return { rejected: null };
    },

    /**
     * Polls the signature until it reaches the requested commitment, fails, or its blockhash
     * expires (then it can never land). Stateless and resumable; heartbeats while it waits.
     */
    async confirm(request: WriteRequest, signed: SignedTransaction, built: BuiltTransaction): Promise<Outcome> {
      const net = network(request.cluster);
      const wanted = request.commitment;
      const lastValid = BigInt(built.lastValidBlockHeight);
      const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
      const context = Context.current();
      // Heartbeats on a timer, not per poll: they say "this worker lives", even while one RPC call is slow.
      const heartbeat = setInterval(() => context.heartbeat(), 500);
      try {
        // Poll often at first (a block is 400 ms on public clusters), then back off to one poll per slot.
        for (let delay = 50; ; delay = Math.min(delay + 25, 400)) {
          const status = await net.getSignatureStatus(signed.signature);
          if (status?.err) return { status: 'FAILED', errorMessage: `the network refused the transaction: ${JSON.stringify(status.err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`, slot: status.slot.toString() };
          if (status?.confirmationStatus && rank[status.confirmationStatus] >= rank[wanted]) {
            const slot = status.slot.toString();
            if (status.confirmationStatus === 'processed') return { status: 'SUBMITTED', slot, confirmations: status.confirmations };
            return { status: status.confirmationStatus === 'finalized' ? 'FINALIZED' : 'CONFIRMED', slot, confirmations: status.confirmations };
          }
          if (!status && (await net.getBlockHeight('confirmed')) > lastValid) {
            // Look once more: it may have landed between the two reads.
            const again = await net.getSignatureStatus(signed.signature);
            if (!again) return { status: 'EXPIRED' };
          }
          await context.sleep(delay);
        }
      } finally {
        clearInterval(heartbeat);
      }
    },

    /** Marks the current lifetime EXPIRED before the workflow rebuilds with a new one. */
    async markExpired(request: WriteRequest): Promise<void> {
      await setStatus(fork(), request.transactionId, 'EXPIRED', deps.now());
    },

    /**
     * Writes the outcome and the operation's records in one database transaction, and moves the
     * offchain balance of every onboarded account the transaction touched by exactly what the network
     * recorded (deltas commute, so concurrent writes land in any order). Idempotent.
     */
    async record(request: WriteRequest, resolved: Resolved, outcome: Outcome | null): Promise<WriteResult> {
      const now = deps.now();
      const landed = outcome ? await landedBalances(request, outcome) : null;
      return fork().transactional(async (em) => {
        // A write with nothing to send has a record only when it was accepted with Prefer: respond-async.
        const tx = await em.findOne(LedgerTransaction, { id: request.transactionId });
        if (tx && tx.success !== null && tx.success !== undefined && ['CONFIRMED', 'FINALIZED', 'FAILED', 'EXPIRED', 'SUBMITTED', 'SIGNED'].includes(tx.status)) {
          // Already recorded by an earlier attempt whose completion was lost.
          return { transaction: outcome ? transactionResult(tx) : null, created: tx.accountIds.length ? await createdReference(em, tx.accountIds[0]) : undefined };
        }
        // Offchain only: nothing goes onchain, so the record (an async write's, or one claiming the
        // idempotency key) ends FINALIZED at once; the answer has no transaction.
        const offchainRecord = !outcome && (tx ?? (request.idempotencyKey ? newTransactionRecord(em, request, now) : null));
        if (offchainRecord) {
          applyStatus(offchainRecord, 'FINALIZED', now);
          offchainRecord.success = true;
        }
        if (tx && outcome) {
          applyStatus(tx, outcome.status, now);
          tx.success = outcome.status !== 'FAILED' && outcome.status !== 'EXPIRED';
          if (outcome.status === 'FAILED') tx.errorMessage = explainFailure(outcome.errorMessage);
          if (outcome.status === 'EXPIRED') tx.errorMessage = 'the transaction did not land before its blockhash expired';
          if ('slot' in outcome && outcome.slot) tx.slot = BigInt(outcome.slot);
          if ('confirmations' in outcome) tx.confirmationsCount = outcome.confirmations ?? 0;
          if (tx.success) tx.txnTimestamp = now;
          if (landed) tx.fee = landed.fee;
          // The created record now guards its address; the reservation ends with the transaction.
          tx.reservedAddress = null;
        }
        if (outcome && (outcome.status === 'FAILED' || outcome.status === 'EXPIRED')) await releaseDebits(em, request.transactionId, now);
        const handler = operationHandlers[request.operation];
        const created = await handler.record(em, request, resolved, outcome, tx ?? (offchainRecord || null), now);
        if (tx && landed) await applyBalanceChanges(em, request, tx, landed.balances, created?.offchainId, now);
        if (handler.reconcile && outcome && ['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) {
          await em.flush();
          await handler.reconcile(em, deps, request, resolved);
        }
        return { transaction: tx && outcome ? transactionResult(tx) : null, created };
      });
    },

    /** Marks the record FAILED with the refusal's code and reason; a no-op when nothing was recorded yet. */
    async recordFailure(request: WriteRequest, code: string, message: string): Promise<void> {
      const em = fork();
      // Signed or sent, the transaction may still land: its record and held debits stay as they are.
      const record = await em.findOne(LedgerTransaction, { id: request.transactionId });
      if (record && (record.status === 'SIGNED' || record.status === 'SUBMITTED')) return;
      await releaseDebits(em, request.transactionId, deps.now());
      await setStatus(em, request.transactionId, 'FAILED', deps.now(), { success: false, errorCode: code, errorMessage: message });
    },

    /** Ends the write as REJECTED (pre-submit webhook veto). */
    async recordRejection(request: WriteRequest, reason: string): Promise<WriteResult> {
      const em = fork();
      await releaseDebits(em, request.transactionId, deps.now());
      await setStatus(em, request.transactionId, 'REJECTED', deps.now(), { success: false, errorMessage: reason });
      const tx = await em.findOneOrFail(LedgerTransaction, { id: request.transactionId });
      return { transaction: transactionResult(tx) };
    },
  };
}

/**
 * Whether the webhook steps run: the handler's answer, or any signer's own webhooks (the source of a
 * transfer, a position's owner, an authority), which the webhook activities then call.
 */
async function signersWebhooks(em: EntityManager, request: WriteRequest, resolved: Resolved): Promise<Resolved['webhooks']> {
  if (resolved.webhooks.preSubmit && resolved.webhooks.postSubmit) return resolved.webhooks;
  const signers = await em.find(Account, { organizationId: request.organizationId, cluster: request.cluster, address: { $in: resolved.signers } }, { fields: ['preTransactionSubmitWebhooks', 'postTransactionSubmitWebhooks'] });
  return {
    preSubmit: resolved.webhooks.preSubmit || signers.some((a) => a.preTransactionSubmitWebhooks.length > 0),
    postSubmit: resolved.webhooks.postSubmit || signers.some((a) => a.postTransactionSubmitWebhooks.length > 0),
  };
}

/** Moves each touched account's offchain balance by its onchain change and marks its last transaction. */
async function applyBalanceChanges(em: EntityManager, request: WriteRequest, tx: LedgerTransaction, balances: { address: string; pre: bigint; post: bigint }[], createdId: string | undefined, at: Date): Promise<void> {
  const addresses = [...new Set(balances.map((b) => b.address))];
  const touched = await em.find(Account, { organizationId: request.organizationId, cluster: request.cluster, address: { $in: addresses }, ...(createdId ? { id: { $ne: createdId } } : {}) });
  for (const account of touched) {
    const change = balances.find((b) => b.address === account.address)!;
    const delta = change.post - change.pre;
    await em.getConnection().execute(
      'update account set lamports_balance = lamports_balance + ?, last_transaction_id = ?, last_transaction_signature = ?, last_transaction_at = ?, updated_at = ? where id = ?',
      [delta.toString(), tx.id, tx.signature, at, at, account.id],
      'run',
      em.getTransactionContext(),
    );
    tx.accountIds = [...new Set([...tx.accountIds, account.id])];
  }
}

