/** Submit: the signed bytes to the network. */
import { partTransactionId } from '../../domain/ids';
import { sentSignature, type SignedTransaction, type WriteRequest } from '../../domain/write';
import { TransactionRejectedError } from '../../network/svm-network';
import { setStatus } from '../../db/repositories/transaction-records.repository';
import type { PipelineContext } from './context';

export function createSubmit(ctx: PipelineContext) {
  /**
   * Sends the signed bytes; a retry or replay sends the same bytes, which the network takes once.
   * A definite refusal is returned, not thrown, unless the network already knows the signature (the
   * same bytes landed before: a replay that resends after expiry is refused, yet it is no failure).
   * An unknown blockhash is no refusal of those bytes (see below). Transport faults are thrown:
   * retried, and past the retries the workflow goes on to confirm.
   */
  return async function submit(request: WriteRequest, signed: SignedTransaction, part = 0): Promise<{ rejected: string | null }> {
    const network = ctx.network(request.cluster);
    try {
      await network.sendTransaction(signed.wireBase64, sentSignature(signed));
    } catch (error) {
      if (!(error instanceof TransactionRejectedError)) throw error;
      // A node that does not know the blockhash (lagging, or restarted without its last blocks) says
      // nothing about bytes sent before: confirm waits for the proof that they can never land.
      if (/blockhash ?not ?found/i.test(`${error.message} ${String(error.err)}`)) return { rejected: null };
      if ((await network.getSignatureStatus(sentSignature(signed))) === null) return { rejected: error.message };
    }
    await setStatus(ctx.fork(), partTransactionId(request.transactionId, part), 'SUBMITTED', ctx.deps.now());
    return { rejected: null };
  };
}
