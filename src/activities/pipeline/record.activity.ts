/**
 * Record: the outcome and the operation's records in one database transaction, and the offchain
 * balance of every onboarded account the transaction touched moved by exactly what the network
 * recorded (deltas commute, so concurrent writes land in any order).
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Account, LedgerTransaction, Position } from '../../db/entities';
import { moveAccountLamports } from '../../db/repositories/accounts.repository';
import { movePositionBalance } from '../../db/repositories/positions.repository';
import { releaseDebits } from '../../db/repositories/debit-reservations.repository';
import { releaseNonceAccount } from '../../db/repositories/durable-nonces.repository';
import { releaseLoan } from '../../db/repositories/loan-holds.repository';
import { partTransactionId } from '../../domain/ids';
import { explainFailure } from '../../domain/program-errors';
import { addBalanceMove, grownCount } from '../../domain/finality';
import type { Outcome, Resolved, WriteRequest, WriteResult } from '../../domain/write';
import type { LandedTransaction } from '../../network/svm-network';
import { operationHandlers } from '../operations';
import { handlerOf } from '../operations/operation-handler';
import { applyStatus, createdReference, newTransactionRecord, transactionResult } from '../../db/repositories/transaction-records.repository';
import { usesDurableNonce, type PipelineContext } from './context';
import { followNetworkEventsFrom, turnsNetworkEventsOn } from '../../follower/network-events-from-slot';
import { writesRecorded } from '../../observability/metrics';

const recordedStatuses = ['CONFIRMED', 'FINALIZED', 'FAILED', 'EXPIRED', 'SUBMITTED', 'SIGNED'];
const landedStatuses = ['CONFIRMED', 'FINALIZED', 'SUBMITTED'];
/** How long the record of a write answered at `processed` waits for the network's confirmed record of it (deliver's timeout is 3 minutes). */
const PROCESSED_RECORD_WAIT_MS = 20_000;
const PROCESSED_RECORD_POLL_MS = 100;

export function createRecord(ctx: PipelineContext) {
  /**
   * The network's own record of a landed transaction: its fee and compute units for the record, its
   * balances for onboarded accounts. Networks keep none below `confirmed`, so a write answered at
   * `processed` waits for it (a slot, usually; at most PROCESSED_RECORD_WAIT_MS, then recorded without).
   */
  async function landedTransaction(request: WriteRequest, signatureOf: () => Promise<string | null>, outcome: Outcome): Promise<LandedTransaction | null> {
    if (outcome.status === 'EXPIRED' || outcome.status === 'SIGNED' || (outcome.status === 'FAILED' && !outcome.slot)) return null;
    const signature = await signatureOf();
    if (!signature) return null;
    const network = ctx.network(request.cluster);
    for (let waited = 0; ; waited += PROCESSED_RECORD_POLL_MS) {
      const landed = await network.getTransaction(signature, 'confirmed');
      if (landed || outcome.status !== 'SUBMITTED' || waited >= PROCESSED_RECORD_WAIT_MS) return landed;
      await new Promise((resolve) => setTimeout(resolve, PROCESSED_RECORD_POLL_MS));
    }
  }

  /**
   * Writes one transaction's outcome (`outcome` null: an offchain-only write, recorded FINALIZED).
   * Idempotent, also for attempts at once: a record already holding its outcome is answered as it is. It must not give up (the
   * network moved value): every failure is retried. `sent`: the signature deliver sent (the one sign
   * recorded), which spares reading the record for it before the transaction.
   */
  return async function record(request: WriteRequest, resolved: Resolved, outcome: Outcome | null, part = 0, sent?: string): Promise<WriteResult> {
    const now = ctx.deps.now();
    const id = partTransactionId(request.transactionId, part);
    const signatureOf = async () => sent ?? (await ctx.fork().findOne(LedgerTransaction, { id }, { fields: ['signature'] }))?.signature ?? null;
    const landed = outcome ? await landedTransaction(request, signatureOf, outcome) : null;
    // A write turning subscribeToNetworkEvents on follows from the network's slot now, read outside the database transaction.
    const followFrom = turnsNetworkEventsOn(request.itemData) ? await ctx.network(request.cluster).getSlot('processed') : null;
    let recordedNow = false;
    const handler = handlerOf(operationHandlers, request.operation);
    // The write's answer: a network transaction's result, or the offchain record when the operation answers with it.
    const answered = (tx: LedgerTransaction | null) => (tx && (outcome || handler.answersOffchainRecord) ? transactionResult(tx) : null);
    const result = await ctx.fork().transactional(async (em) => {
      recordedNow = false;
      // Locked: two attempts of one record may run at once (a workflow task retried while the first
      // attempt's local activity still runs); the second waits, then finds the outcome recorded.
      const found = await em.findOne(LedgerTransaction, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (found && found.success !== null && found.success !== undefined && recordedStatuses.includes(found.status)) {
        // Already recorded by an attempt whose completion was lost.
        return { transaction: answered(found), created: await createdReference(em, found.accountIds[0]) };
      }
      // Offchain only: nothing goes onchain, the record ends FINALIZED at once and keeps the resolution
      // (a replayed lookup then knows the write is done); the answer has no transaction unless the operation answers its record.
      const tx = found ?? (outcome ? null : newTransactionRecord(em, request, now));
      if (!outcome && tx) {
        applyStatus(tx, 'FINALIZED', now);
        tx.success = true;
        tx.resolved = { ...resolved, resumed: undefined };
      }
      if (tx && outcome) {
        applyStatus(tx, outcome.status, now);
        // A write resting at SIGNED has no outcome yet: Submit Transaction records it after delivery.
        tx.success = outcome.status === 'SIGNED' ? null : outcome.status !== 'FAILED' && outcome.status !== 'EXPIRED';
        if (outcome.status === 'FAILED') tx.errorMessage = explainFailure(outcome.errorMessage);
        if (outcome.status === 'EXPIRED') tx.errorMessage = 'the transaction did not land before its blockhash expired';
        if ('slot' in outcome && outcome.slot) tx.slot = BigInt(outcome.slot);
        if ('confirmations' in outcome) tx.confirmationsCount = grownCount(tx.confirmationsCount ?? null, outcome.confirmations ?? null);
        // The block's time, not the service's clock; unknown until the network keeps the transaction (finality following fills it then).
        if (tx.success) tx.txnTimestamp = landed?.blockTime ?? tx.txnTimestamp ?? null;
        if (landed) {
          tx.fee = landed.fee;
          tx.computeUnitsConsumed = landed.computeUnitsConsumed;
        }
        // The created record now guards its address; the reservation ends with the transaction.
        tx.reservedAddress = null;
      }
      if (outcome && (outcome.status === 'FAILED' || outcome.status === 'EXPIRED')) await releaseDebits(em, id, now);
      // Landed, failed or expired for the last time: its durable nonce is free again. A SIGNED one keeps it.
      // Only a write whose request asks for a durable nonce reserves one (ctx.lifetime): others send no statement.
      if (outcome && outcome.status !== 'SIGNED' && usesDurableNonce(request)) await releaseNonceAccount(em, id);
      // The write's hold on a loan ends with it: landed, failed, expired, or recorded offchain only (a same-lender refinance).
      if (handler.holdsLoan && (!outcome || outcome.status !== 'SIGNED')) await releaseLoan(em, id);
      if (followFrom !== null) await followNetworkEventsFrom(em, followFrom);
      const created = await handler.record(em, request, resolved, outcome, tx, now, part);
      if (tx && landed) {
        await applyBalanceChanges(em, request, tx, landed.balances, created?.offchainId, now);
        await moveOtherTenantsPositions(em, request, tx, landed.tokenBalances, now);
      }
      if (handler.reconcile && (outcome ? landedStatuses.includes(outcome.status) : handler.reconcilesOffchain)) {
        await em.flush();
        await handler.reconcile(em, ctx.deps, request, resolved);
      }
      recordedNow = true;
      return { transaction: answered(tx), created };
    });
    // Counted once committed, and not again when a replayed record finds it done.
    if (recordedNow) writesRecorded.inc({ operation: request.operation, status: outcome?.status ?? 'FINALIZED' });
    return result;
  };
}

/**
 * Moves each touched account's offchain balance by its onchain change and marks its last transaction.
 * Records this transaction created (the write's own, or the several a Create Durable Nonce Accounts
 * makes) start at the balance the handler gave them from the same transaction: they are not moved again.
 */
async function applyBalanceChanges(
  em: EntityManager,
  request: WriteRequest,
  tx: LedgerTransaction,
  balances: LandedTransaction['balances'],
  createdId: string | undefined,
  at: Date,
): Promise<void> {
  const addresses = [...new Set(balances.map((b) => b.address))];
  // Every tenant's record of a touched address moves (a shared account, an organization's fee payer
  // held by another, an address another tenant paid); the transaction lists only the caller's own,
  // the records it may see, and only those name it as their last transaction.
  const found = await em.find(Account, { cluster: request.cluster, address: { $in: addresses } });
  const touched = found.filter((account) => account.id !== createdId && account.creationTransactionId !== tx.id);
  for (const account of touched) {
    const change = balances.find((b) => b.address === account.address)!;
    const own = account.organizationId === request.organizationId;
    await moveAccountLamports(em, account.id, change.post - change.pre, tx, at, own);
    // Kept on the record (written with it, no statement of its own) to undo if the transaction leaves the chain.
    tx.balanceMoves = addBalanceMove(tx.balanceMoves, { kind: 'ACCOUNT', id: account.id, delta: change.post - change.pre });
    if (own) tx.accountIds = [...new Set([...tx.accountIds, account.id])];
  }
}

/**
 * Other tenants' position records of a touched token account (the same address held by several
 * organizations, e.g. of a shared instrument) move by the network's own change, as their account
 * records do; the writer's own positions are moved by the operation's record (its legs). They take
 * only the chain's facts: the balance and the time, never the writer's transaction as theirs.
 */
async function moveOtherTenantsPositions(
  em: EntityManager,
  request: WriteRequest,
  tx: LedgerTransaction,
  tokenBalances: LandedTransaction['tokenBalances'],
  at: Date,
): Promise<void> {
  if (!tokenBalances.length) return;
  const found = await em.find(Position, {
    cluster: request.cluster,
    address: { $in: tokenBalances.map((b) => b.address) },
    organizationId: { $ne: request.organizationId },
  });
  for (const position of found) {
    const change = tokenBalances.find((b) => b.address === position.address)!;
    await movePositionBalance(em, position.id, change.post - change.pre);
    tx.balanceMoves = addBalanceMove(tx.balanceMoves, { kind: 'POSITION', id: position.id, delta: change.post - change.pre });
    position.lastTransactionAt = at;
  }
}
