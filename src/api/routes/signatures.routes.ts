/**
 * Sign Transaction, Submit Transaction and Cancel (API.md 1, 6, 8; docs/signatures.md): each
 * continues, or ends, the waiting write's own `ledgerWrite` workflow through one of its updates
 * (never a second workflow), then answers like the write it continues.
 */
import { isGrpcServiceError, ServiceError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { LedgerTransaction } from '../../db/entities';
import { transactionResult } from '../../db/repositories/transaction-records.repository';
import { LedgerError, validationError } from '../../domain/errors';
import { cancellingQueryName, writeUpdates, type SuppliedSignature, type TransactionResult, type TransactionStatus } from '../../domain/write';
import type { ledgerWrite } from '../../workflows/write/write.workflow';
import { signTransactionBody, waitingTransactionBody } from '../codecs/transaction.codecs';
import type { ApiDeps, LedgerContext } from '../context';
import { cancelledTransactionResponse, transactionResult as transactionResultResponse } from '../responses/transaction.responses';
import type { AcceptedWriteBody } from '../responses/write.responses';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
import { findTransaction } from './transactions.routes';
import { restingAnswer, resultOrRest, resultWithin, TIMED_OUT, transactionAnswer } from '../writes';

type WaitingBody = { itemData: { transaction: { offchainId?: string; onchainId?: string } }; tenancyConfig?: { overrideOrganizationExternalId?: string } };

/** Statuses after which a write changes no more: Sign and Submit answer its record as it is. */
const ended: TransactionStatus[] = ['CONFIRMED', 'FINALIZED', 'FAILED', 'REJECTED', 'EXPIRED', 'CANCELLED'];
const beforeSigned: TransactionStatus[] = ['PENDING', 'BUILT', 'AWAITING_APPROVAL'];
const waiting: TransactionStatus[] = ['AWAITING_SIGNATURES', 'AWAITING_APPROVAL'];
const UPDATE_ATTEMPTS = 3;
/** gRPC status 9: Temporal's "workflow not ready" (the workflow task carrying the update failed). */
const GRPC_FAILED_PRECONDITION = 9;

export function signatureRoutes(deps: ApiDeps): RouteSpec[] {
  /** The caller's transaction (tenancy as the other transaction routes). */
  async function transactionOf(ctx: LedgerContext, body: WaitingBody): Promise<LedgerTransaction> {
    const em = deps.orm.em.fork();
    return findTransaction(em, await actingCaller(ctx, deps, em, body.tenancyConfig), body.itemData.transaction);
  }

  const handleOf = (record: LedgerTransaction): WorkflowHandle<typeof ledgerWrite> => deps.temporal.client.workflow.getHandle(record.workflowId);
  /**
   * Runs one of the write's updates; a run that has ended meanwhile takes none: its record, when the
   * write ended (Sign and Submit answer it as it is, as for a write found ended), else 400. An update
   * whose workflow task failed as it completed (a signal came in the meantime) never took effect
   * (FAILED_PRECONDITION, "workflow not ready"): it is sent again.
   */
  async function update(record: LedgerTransaction, run: (handle: WorkflowHandle<typeof ledgerWrite>) => Promise<unknown>): Promise<LedgerTransaction | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        await run(handleOf(record));
        return undefined;
      } catch (error) {
        if (attempt < UPDATE_ATTEMPTS && error instanceof ServiceError && isGrpcServiceError(error.cause) && error.cause.code === GRPC_FAILED_PRECONDITION) continue;
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        const now = await reread(record);
        if (ended.includes(now.status as TransactionStatus)) return now;
        throw validationError('itemData.transaction', `the transaction is ${now.status} and its write no longer runs`);
      }
    }
  }

  /**
   * A record past AWAITING_SIGNATURES whose run still waits for them: the Sign that moved the record
   * was lost with its workflow task (Temporal and the worker died before it completed), so the run
   * replayed to its wait. Its signatures are on the record; the update, sent again, takes them from
   * there and the write goes on (deliver sends the same bytes, confirm records the landing once).
   */
  const stillAwaitsSignatures = async (record: LedgerTransaction) =>
    (record.status === 'SIGNED' || record.status === 'SUBMITTED') && (await handleOf(record).query<string>('currentStep').catch(() => '')) === 'awaitSignatures';

  const reread = async (record: LedgerTransaction) => (await deps.orm.em.fork().findOne(LedgerTransaction, { id: record.id })) ?? record;

  /** Whether the write was cancelled, or is being cancelled, by a Cancel that came first. */
  const cancelledBefore = async (record: LedgerTransaction) =>
    (await reread(record)).status === 'CANCELLED' || (await handleOf(record).query<boolean>(cancellingQueryName).catch(() => false));

  /**
   * Waits until the cancelled write's run has ended (its debits and its lifetime, a durable nonce,
   * given back after the record says CANCELLED); still running after WRITE_WAIT_SECONDS (no worker):
   * 503, ask again. A run no longer kept by Temporal has long ended.
   */
  async function cancelEnded(record: LedgerTransaction): Promise<void> {
    const ended = await resultWithin(handleOf(record), deps.writeWaitMs).catch(() => null);
    if (ended === TIMED_OUT) throw new LedgerError('UNAVAILABLE', `transaction ${record.id} is being cancelled and its write has not ended yet; send the same Cancel again`, undefined, { retryAfterSeconds: 1 });
  }

  /**
   * The answer of the write a request continued: its transaction result once it reached the
   * commitment or rests at SIGNED (200), or 202 with its status while it waits for signatures, with
   * Prefer: respond-async, or when the wait is over.
   */
  async function continued(ctx: LedgerContext, record: LedgerTransaction): Promise<TransactionResult | AcceptedWriteBody> {
    const handle = handleOf(record);
    if (!/respond-async/i.test(ctx.get('prefer'))) {
      const rested = await resultOrRest(deps, handle, record.id, async (r) => r.status === 'AWAITING_SIGNATURES' || (r.status === 'SIGNED' && (await handle.query<string>('currentStep').catch(() => '')) === 'awaitSubmit'));
      if (rested.rest) return transactionAnswer(ctx, restingAnswer(ctx, rested.rest));
      if (rested.result !== TIMED_OUT) return transactionAnswer(ctx, { async: false, ...rested.result, transaction: rested.result.transaction?.offchainId === record.id ? rested.result.transaction : transactionResult(await reread(record)) });
    }
    const now = await reread(record);
    ctx.set('Preference-Applied', 'respond-async');
    return transactionAnswer(ctx, { async: true, transaction: { offchainId: now.id, status: now.status } });
  }

  return [
    route({
      operationId: 'signTransaction',
      method: 'post',
      path: '/api/v1/transactions/sign',
      tag: 'Transactions',
      summary:
        'Sign Transaction: add the signatures a write waiting in AWAITING_SIGNATURES lacks (each an ed25519 signature of the transaction\'s serializedMessage by a signer it needs; a wrong one is 400 naming itemData.signatures[i]), or, without signatures, have the managed keys this organization may use sign (for a lookup that said autoSign: false). Once no signature is missing the write goes on (submitted, or resting at SIGNED with submitTransaction: false) and the answer is its transaction result; while some are still missing it is 202 with status AWAITING_SIGNATURES. Repeating it is harmless: a write no longer waiting is answered as it is.',
      role: 'WRITE',
      write: true,
      body: signTransactionBody,
      successStatus: 200,
      response: transactionResultResponse,
      async handler(ctx, body) {
        const record = await transactionOf(ctx, body);
        if (beforeSigned.includes(record.status as TransactionStatus)) throw validationError('itemData.transaction', `the transaction is ${record.status}, not waiting for signatures`);
        if (ended.includes(record.status as TransactionStatus)) return transactionResult(record);
        if (record.status === 'AWAITING_SIGNATURES' || (await stillAwaitsSignatures(record))) {
          const signatures: SuppliedSignature[] | null = body.itemData.signatures ?? null;
          // A write that ended meanwhile (its lifetime ran out as the signatures came) is answered as it is.
          const over = await update(record, (handle) => handle.executeUpdate<string[], [SuppliedSignature[] | null]>(writeUpdates.sign, { args: [signatures] }));
          if (over) return transactionResult(over);
        }
        return continued(ctx, record);
      },
    }),
    route({
      operationId: 'submitTransaction',
      method: 'post',
      path: '/api/v1/transactions/submit',
      tag: 'Transactions',
      summary:
        'Submit Transaction: a write resting at SIGNED (svmTransactionConfig.submitTransaction: false) is submitted and answered like a write: its transaction result once it reached the requested commitment (202 with Prefer: respond-async). A write waiting for signatures, or not signed yet, is 400. Repeating it is harmless: a submitted or ended write is answered with its current result. A write resting with a recent blockhash ends EXPIRED once the blockhash expired, so Submit must come before.',
      role: 'WRITE',
      write: true,
      body: waitingTransactionBody,
      successStatus: 200,
      response: transactionResultResponse,
      async handler(ctx, body) {
        const record = await transactionOf(ctx, body);
        if (record.status === 'AWAITING_SIGNATURES') throw validationError('itemData.transaction', 'the transaction is waiting for signatures: add them with Sign Transaction first');
        if (beforeSigned.includes(record.status as TransactionStatus)) throw validationError('itemData.transaction', `the transaction is ${record.status}: only a signed transaction is submitted`);
        if (ended.includes(record.status as TransactionStatus)) return transactionResult(record);
        if (record.status === 'SIGNED') {
          const over = await update(record, (handle) => handle.executeUpdate<void, []>(writeUpdates.submit, { args: [] }));
          if (over) return transactionResult(over);
        }
        return continued(ctx, record);
      },
    }),
    route({
      operationId: 'cancelTransaction',
      method: 'patch',
      path: '/api/v1/transactions/cancel',
      tag: 'Transactions',
      summary:
        'Cancel Transaction (a waiting write): one in AWAITING_SIGNATURES (or AWAITING_APPROVAL), or resting at SIGNED for Submit (submitTransaction: false), ends CANCELLED, its held debits and its message lifetime (a durable nonce) given back; nothing was sent. A write that is not waiting (on its way to the network, submitted, ended) is 400, and so is one awaiting approval whose approval an approver settled first (it goes on as decided; docs/approvals.md); cancelling a cancelled write again answers the same.',
      role: 'WRITE',
      body: waitingTransactionBody,
      successStatus: 200,
      response: cancelledTransactionResponse,
      async handler(ctx, body) {
        const record = await transactionOf(ctx, body);
        if (record.status !== 'CANCELLED') {
          // SIGNED: the workflow's validator refuses unless the write rests for Submit (never sent).
          if (!waiting.includes(record.status as TransactionStatus) && record.status !== 'SIGNED') throw validationError('itemData.transaction', `the transaction is ${record.status}: only a write waiting for signatures, approval or Submit can be cancelled`);
          try {
            const over = await update(record, (handle) => handle.executeUpdate<TransactionResult | null, []>(writeUpdates.cancel, { args: [] }));
            if (over && over.status !== 'CANCELLED') throw validationError('itemData.transaction', `the transaction is ${over.status} and its write no longer runs`);
          } catch (error) {
            // Another Cancel came first (two at once, or this one again after its answer was lost): answered as that one.
            if (!(await cancelledBefore(record))) throw error;
          }
        }
        await cancelEnded(record);
        return { transaction: { offchainId: record.id, status: 'CANCELLED' as const } };
      },
    }),
  ];
}
