/** Sign: the managed keys' signatures over the built message; the signature is recorded before anything is sent. */
import { getBase64EncodedWireTransaction, getBase64Encoder, getSignatureFromTransaction, getTransactionDecoder } from '@solana/kit';
import { LedgerError } from '../../domain/errors';
import { partTransactionId } from '../../domain/ids';
import type { BuiltTransaction, SignedTransaction, WriteRequest } from '../../domain/write';
import { setStatus } from '../../db/repositories/transaction-records.repository';
import type { PipelineContext } from './context';
import { awaitSignatures } from './signatures';

const base64Bytes = getBase64Encoder();

export function createSign(ctx: PipelineContext) {
  /**
   * Signs with the managed keys the lookup step allowed (`allowed`: it checked the organization may
   * use each); a signer outside that list is FORBIDDEN. Signers in `awaited` are left to Sign
   * Transaction: the record then rests AWAITING_SIGNATURES with the signatures it has. Idempotent:
   * ed25519 is deterministic, so a replay over a reused message gives the signature already
   * recorded (a threshold key's signature is recorded by the key store and reused), and signatures Sign Transaction supplied for that message are kept.
   */
  return async function sign(request: WriteRequest, built: BuiltTransaction, allowed: string[], part = 0, awaited: string[] = []): Promise<SignedTransaction> {
    // A durable nonce's authority signs too: build reserved the nonce only for an authority this organization may use.
    const nonceAuthority = built.lifetime.kind === 'DURABLE_NONCE' ? [built.lifetime.nonceAuthority] : [];
    const unexpected = built.signers.filter((s) => !allowed.includes(s) && !nonceAuthority.includes(s));
    if (unexpected.length)
      throw new LedgerError('FORBIDDEN', `the transaction needs signatures this request may not give: ${unexpected.join(', ')}`, undefined, { unexpected });
    const own = built.signers.filter((s) => !awaited.includes(s));
    const em = ctx.fork();
    const transaction = getTransactionDecoder().decode(base64Bytes.encode(built.messageBase64));
    const { transaction: signed, missing } = await ctx.deps.keyStore.signTransaction(em, own, transaction);
    if (missing.length) throw new LedgerError('VALIDATION_ERROR', `no managed key to sign for ${missing.join(', ')}`, undefined, { missing });
    const id = partTransactionId(request.transactionId, part);
    if (own.length < built.signers.length) return awaitSignatures(ctx, em, id, signed);
    const result = { signature: getSignatureFromTransaction(signed), wireBase64: getBase64EncodedWireTransaction(signed) };
    await setStatus(em, id, 'SIGNED', ctx.deps.now(), { signature: result.signature });
    return result;
  };
}
