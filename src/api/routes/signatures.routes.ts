/**
 * Sign Transaction, Submit Transaction and Cancel (docs/signatures.md): each
 * continues, or ends, the waiting write's own `ledgerWrite` workflow through one of its updates
 * (never a second workflow), then answers like the write it continues.
 */
import type * as t from 'io-ts';
import { LedgerTransaction } from '../../db/entities';
import { transactionResult } from '../../db/repositories/transaction-records.repository';
import { validationError } from '../../domain/errors';
import type { TransactionResult, TransactionStatus } from '../../domain/write';
import { cancelWrite, continuedAnswer, endedStatuses as ended, signWrite, stillAwaitsSignatures, submitWrite } from '../../client/signatures';
import { signTransactionBody, waitingTransactionBody } from '../codecs/transaction.codecs';
import type { ApiDeps, LedgerContext } from '../context';
import { cancelledTransactionResponse, transactionResult as transactionResultResponse } from '../../domain/responses/transaction.responses';
import type { AcceptedWriteBody } from '../../domain/responses/write.responses';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
import { findTransaction } from './transactions.routes';
import { applied, respondsAsync, transactionAnswer } from '../writes';

type WaitingBody = { itemData: { transaction: { offchainId?: string; onchainId?: string } }; tenancyConfig?: { overrideOrganizationExternalId?: string } };

const beforeSigned: TransactionStatus[] = ['PENDING', 'BUILT', 'AWAITING_APPROVAL'];
const waiting: TransactionStatus[] = ['AWAITING_SIGNATURES', 'AWAITING_APPROVAL'];

export function signatureRoutes(deps: ApiDeps): RouteSpec[] {
  /** The caller's transaction (tenancy as the other transaction routes). */
  async function transactionOf(ctx: LedgerContext, body: WaitingBody): Promise<LedgerTransaction> {
    const em = deps.orm.em.fork();
    return findTransaction(em, await actingCaller(ctx, deps, em, body.tenancyConfig), body.itemData.transaction);
  }

  /**
   * Sign and Submit: POST writes on a waiting write, answered like it. `refuse` throws when the write
   * cannot take the step; an ended write is answered as it is; else `step` when `due` (a write it ends
   * is answered with that end), then the write's progress.
   */
  const moveOnRoute = <B extends WaitingBody>(
    spec: Pick<RouteSpec, 'operationId' | 'path' | 'summary'> & {
      body: t.Mixed & t.Decoder<unknown, B>;
      refuse: (record: LedgerTransaction) => void;
      due: (record: LedgerTransaction) => boolean | Promise<boolean>;
      step: (record: LedgerTransaction, body: B) => Promise<LedgerTransaction | null | undefined>;
    },
  ) =>
    route({
      operationId: spec.operationId,
      method: 'post',
      path: spec.path,
      tag: 'Transactions',
      summary: spec.summary,
      role: 'WRITE',
      write: true,
      body: spec.body,
      successStatus: 200,
      response: transactionResultResponse,
      async handler(ctx, body): Promise<TransactionResult | AcceptedWriteBody> {
        const record = await transactionOf(ctx, body);
        spec.refuse(record);
        if (ended.includes(record.status as TransactionStatus)) return transactionResult(record);
        if (await spec.due(record)) {
          const over = await spec.step(record, body);
          if (over) return transactionResult(over);
        }
        // 202 while it waits for signatures (with Prefer: respond-async, or once the wait is over).
        return transactionAnswer(ctx, applied(ctx, await continuedAnswer(deps, record, respondsAsync(ctx))));
      },
    });

  return [
    moveOnRoute({
      operationId: 'signTransaction',
      path: '/api/v1/transactions/sign',
      summary:
        "Sign Transaction: add the signatures a write waiting in AWAITING_SIGNATURES lacks (each an ed25519 signature of the transaction's serializedMessage by a signer it needs; a wrong one is 400 naming itemData.signatures[i]), or, without signatures, have the managed keys this organization may use sign (for a lookup that said autoSign: false). Once no signature is missing the write goes on (submitted, or resting at SIGNED with submitTransaction: false) and the answer is its transaction result; while some are still missing it is 202 with status AWAITING_SIGNATURES. Repeating it is harmless: a write no longer waiting is answered as it is.",
      body: signTransactionBody,
      refuse(record) {
        if (beforeSigned.includes(record.status as TransactionStatus))
          throw validationError('itemData.transaction', `the transaction is ${record.status}, not waiting for signatures`);
      },
      // A write that ended meanwhile (its lifetime ran out as the signatures came) is answered as it is.
      due: async (record) => record.status === 'AWAITING_SIGNATURES' || (await stillAwaitsSignatures(deps, record)),
      step: (record, body) => signWrite(deps, record, body.itemData.signatures ?? null),
    }),
    moveOnRoute({
      operationId: 'submitTransaction',
      path: '/api/v1/transactions/submit',
      summary:
        'Submit Transaction: a write resting at SIGNED (svmTransactionConfig.submitTransaction: false) is submitted and answered like a write: its transaction result once it reached the requested commitment (202 with Prefer: respond-async). A write waiting for signatures, or not signed yet, is 400. Repeating it is harmless: a submitted or ended write is answered with its current result. A write resting with a recent blockhash ends EXPIRED once the blockhash expired, so Submit must come before.',
      body: waitingTransactionBody,
      refuse(record) {
        if (record.status === 'AWAITING_SIGNATURES')
          throw validationError('itemData.transaction', 'the transaction is waiting for signatures: add them with Sign Transaction first');
        if (beforeSigned.includes(record.status as TransactionStatus))
          throw validationError('itemData.transaction', `the transaction is ${record.status}: only a signed transaction is submitted`);
      },
      due: (record) => record.status === 'SIGNED',
      step: (record) => submitWrite(deps, record),
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
        // SIGNED: the workflow's validator refuses unless the write rests for Submit (never sent).
        if (record.status !== 'CANCELLED' && !waiting.includes(record.status as TransactionStatus) && record.status !== 'SIGNED')
          throw validationError(
            'itemData.transaction',
            `the transaction is ${record.status}: only a write waiting for signatures, approval or Submit can be cancelled`,
          );
        await cancelWrite(deps, record);
        return { transaction: { offchainId: record.id, status: 'CANCELLED' as const } };
      },
    }),
  ];
}
