/**
 * The steps of a write that waits after sign (docs/signatures.md): for missing signatures
 * (AWAITING_SIGNATURES) or, with `submitTransaction: false`, for Submit Transaction. Each reads the
 * write's record first, so a replay or a repeated request has one effect.
 */
import { Account, LedgerTransaction } from '../../db/entities';
import { maySign } from '../../db/repositories/accounts.repository';
import { releaseDebits } from '../../db/repositories/debit-reservations.repository';
import { releaseLoan } from '../../db/repositories/loan-holds.repository';
import { setStatus, transactionResult } from '../../db/repositories/transaction-records.repository';
import { validationError } from '../../domain/errors';
import { partTransactionId } from '../../domain/ids';
import type { MessageLifetime, SignedTransaction, SuppliedSignature, TransactionResult, WriteRequest } from '../../domain/write';
import type { PipelineContext } from './context';
import { awaitSignatures, signedSoFar, transactionOf, verifiedSignature } from './signatures';

export function createSignatureWait(ctx: PipelineContext) {
  return {
    /**
     * Sign Transaction: adds the supplied signatures (each checked against the message), or without
     * any the signatures of the managed keys this organization may use, and keeps them on the record
     * before the workflow acknowledges. Answers what is still missing. Idempotent: a record no longer
     * waiting is answered as it is. VALIDATION_ERROR naming `itemData.signatures[i]` for a wrong one.
     */
    async addSignatures(request: WriteRequest, part: number, supplied: SuppliedSignature[] | null): Promise<SignedTransaction> {
      const em = ctx.fork();
      const id = partTransactionId(request.transactionId, part);
      const record = await em.findOne(LedgerTransaction, { id });
      if (!record?.serializedMessage || !record.signatures) throw validationError('itemData.transaction', 'the transaction is not waiting for signatures');
      const transaction = transactionOf(record);
      if (record.status !== 'AWAITING_SIGNATURES') return signedSoFar(transaction);
      const signatures = { ...transaction.signatures };
      if (supplied) {
        for (const [i, { signer, signature }] of supplied.entries()) {
          signatures[signer as keyof typeof signatures] = await verifiedSignature(transaction, signer, signature, `itemData.signatures[${i}]`);
        }
        return awaitSignatures(ctx, em, id, { ...transaction, signatures });
      }
      const missing = Object.keys(signatures).filter((signer) => !signatures[signer as keyof typeof signatures]);
      const accounts = await em.find(Account, { cluster: request.cluster, address: { $in: missing } });
      const usable = accounts.filter((a) => a.status === 'ACTIVE' && maySign(a, request.organizationId, request.organizationExternalId)).map((a) => a.address);
      if (!usable.length)
        throw validationError('itemData.signatures', `the service holds no key this organization may use for ${missing.join(', ')}: send their signatures`);
      const { transaction: signed } = await ctx.deps.keyStore.signTransaction(em, usable, { ...transaction, signatures });
      return awaitSignatures(ctx, em, id, signed);
    },

    /** Whether a waiting message's lifetime is proven over (it can never land). Transport faults are retried. */
    async isLifetimeOver(request: WriteRequest, lifetime: MessageLifetime): Promise<boolean> {
      if (!(await ctx.lifetime(request).isOver(lifetime))) return false;
      // Proven over only when the network does not know the message either, as build and confirm
      // prove it: a durable nonce advances when the message itself lands (a Submit whose workflow
      // task was lost after deliver sent it), and the write then waits for that Submit again.
      const records = await ctx
        .fork()
        .find(
          LedgerTransaction,
          { $or: [{ id: request.transactionId }, { writeTransactionId: request.transactionId }] },
          { fields: ['signature', 'lifetime'] },
        );
      const message = records.find((record) => record.signature && sameLifetime(record.lifetime, lifetime));
      return !message || (await ctx.network(request.cluster).getSignatureStatus(message.signature!)) === null;
    },

    /** Cancel: the waiting transaction ends CANCELLED, its debits and its lifetime given back. Idempotent. */
    async recordCancellation(request: WriteRequest, part: number): Promise<TransactionResult | null> {
      const em = ctx.fork();
      const id = partTransactionId(request.transactionId, part);
      const now = ctx.deps.now();
      await releaseDebits(em, id, now);
      await releaseLoan(em, id);
      await setStatus(em, id, 'CANCELLED', now, { success: false, errorMessage: 'cancelled while waiting' });
      const record = await ctx.fork().findOne(LedgerTransaction, { id });
      if (record?.lifetime) await ctx.lifetime(request).release(record.lifetime);
      return record ? transactionResult(record) : null;
    },
  };
}

/** Whether a record's lifetime is the message's (the same blockhash, or the same nonce of the same account). */
function sameLifetime(recorded: MessageLifetime | null | undefined, lifetime: MessageLifetime): boolean {
  if (!recorded || recorded.kind !== lifetime.kind) return false;
  return recorded.kind === 'BLOCKHASH'
    ? recorded.blockhash === (lifetime as typeof recorded).blockhash
    : recorded.nonceAccount === (lifetime as typeof recorded).nonceAccount && recorded.nonce === (lifetime as typeof recorded).nonce;
}
