/** The ends of a write that sends nothing: refused (a rule, a limit, too large) or vetoed by a pre-submit webhook. */
import { releaseDebits } from '../../db/repositories/debit-reservations.repository';
import { releaseNonceAccount } from '../../db/repositories/durable-nonces.repository';
import { releaseLoan } from '../../db/repositories/loan-holds.repository';
import { partTransactionId } from '../../domain/ids';
import type { TransactionResult, WriteRequest, WriteResult } from '../../domain/write';
import { setStatus, transactionResult } from '../../db/repositories/transaction-records.repository';
import { possiblySent, type PipelineContext } from './context';

export function createRefusals(ctx: PipelineContext) {
  return {
    /**
     * Marks one transaction's record FAILED with the refusal's code and reason and gives its debits
     * back; answers the record (null when none was made yet). A record holding a possibly-sent
     * message is left as it is: that transaction may still land.
     */
    async recordFailure(request: WriteRequest, code: string, message: string, part = 0): Promise<TransactionResult | null> {
      const em = ctx.fork();
      const id = partTransactionId(request.transactionId, part);
      const record = await ctx.findRecord(em, request, part);
      if (possiblySent(record)) return transactionResult(record);
      await releaseDebits(em, id, ctx.deps.now());
      await releaseNonceAccount(em, id);
      await releaseLoan(em, id);
      await setStatus(em, id, 'FAILED', ctx.deps.now(), { success: false, errorCode: code, errorMessage: message });
      const failed = await ctx.findRecord(ctx.fork(), request, part);
      return failed ? transactionResult(failed) : null;
    },

    /** Ends one transaction as REJECTED (a pre-submit webhook's veto) and gives its debits back. Idempotent. */
    async recordRejection(request: WriteRequest, reason: string, part = 0): Promise<WriteResult> {
      const em = ctx.fork();
      const id = partTransactionId(request.transactionId, part);
      await releaseDebits(em, id, ctx.deps.now());
      await releaseNonceAccount(em, id);
      await releaseLoan(em, id);
      await setStatus(em, id, 'REJECTED', ctx.deps.now(), { success: false, errorMessage: reason });
      const record = await ctx.findRecord(ctx.fork(), request, part);
      return { transaction: record ? transactionResult(record) : null };
    },
  };
}
