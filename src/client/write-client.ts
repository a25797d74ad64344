/**
 * The write client (docs/write-engine.md, "The write client"): starting, joining and answering a
 * write below HTTP. One `ledgerWrite` workflow per write, its id from the idempotency key, so a
 * repeat finds the first run (and its result) instead of starting a second. Plain inputs in (the
 * caller, the operation, its itemData and config, the key, whether to answer at once), a plain
 * answer out (the result, a resting write, or accepted to run on); refusals and outages are thrown
 * as the LedgerError they are. Used by the API (which only parses headers and shapes answers) and tests.
 */
import { createHash, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, fromPayloadsAtIndex } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidFromText } from '../domain/ids';
import {
  writeOutageMemo,
  writeWorkflowId,
  type Commitment,
  type Operation,
  type TransactionResult,
  type TransactionStatus,
  type WriteOutage,
  type WriteRequest,
  type WriteResult,
} from '../domain/write';
import { conflict, isErrorCode, isRefusalCode, LedgerError } from '../domain/errors';
import { checkComputeUnitConfig } from '../domain/fees';
import type { SvmTransactionConfigInput } from '../domain/inputs/common.inputs';
import { LedgerTransaction } from '../db/entities';
import type { Orm } from '../db/orm';
import {
  createdReference,
  deletePendingRecord,
  insertPendingRecord,
  reopenUnsentRecord,
  transactionResult,
} from '../db/repositories/transaction-records.repository';
import type { ledgerWrite } from '../workflows/write/write.workflow';
import { writeStartOptions } from '../workflows/write/start-options';
import type { RestWaiter, WriteRests } from './write-rests';

/** What the write client needs: the API's dependencies satisfy it as they are. */
export interface WriteClientDeps {
  orm: Orm;
  /** eager: a worker in this process polls `taskQueue` on the client's connection, so writes start on it. */
  temporal: { client: Client; taskQueue: string; eager: boolean; writeTaskTimeoutSeconds: number };
  /** Sealed secrets count as one value in a request's digest. */
  sealer: { isSealed(value: string): boolean };
  defaultCommitment: Commitment;
  /** How long a write waits for its result before it is answered as accepted (202). */
  writeWaitMs: number;
  /** How long a write retries faults before it has sent anything (WRITE_DEADLINE_SECONDS). */
  writeDeadlineMs?: number;
  now: () => Date;
  /** The API process's listener for writes coming to rest (src/client/write-rests.ts); none (tests, the CLI): the record is polled. */
  rests?: WriteRests;
}

/** Who a write acts for: the API key and the organization it acts in. */
export interface WriteCaller {
  apiKeyId: string;
  organizationId: string;
  organizationExternalId: string;
}

export interface WriteInput {
  operation: Operation;
  caller: WriteCaller;
  cluster: string;
  itemData: unknown;
  svmTransactionConfig?: SvmTransactionConfigInput;
  /** The write's idempotency key and the field that gave it (named in a conflict); none: every request is a new write. */
  idempotency?: { key: string; field: string };
  /** Answer as soon as the write is accepted (the record exists), not when it ends. */
  respondAsync?: boolean;
  newRecordId?: string;
  extraRecordIds?: Record<string, string>;
  /** Starts the write's run another way than startWorkflow (a loan movement goes through its loan's workflow: src/client/loan-movements.ts). */
  start?: StartWrite;
}

/**
 * A write's answer: accepted and running on (`async`, its transaction's id and status: 202), or its
 * result (a write resting at SIGNED answers its transaction; one waiting for signatures or approval
 * is `async` with that status).
 */
export type WriteAnswer = { async: true; transaction: { offchainId: string; status: string } } | ({ async: false } & WriteResult);

/**
 * The transaction offchain id of a write with an idempotency key: derived from the organization, the
 * operation and the key, so every request of that write (sync, async, a retry) names the same record.
 */
export function transactionIdFor(organizationId: string, operation: Operation, key: string): string {
  return uuidFromText(`${organizationId}\n${operation}\n${key}`);
}

/**
 * An idempotency key names one write per organization: a key another operation used, or this
 * operation with another request, is a conflict (a repeat of the same request gets the first
 * result). Returns the key's record, if any.
 */
async function requireSameWrite(em: EntityManager, request: WriteRequest, field: string): Promise<LedgerTransaction | null> {
  const used = await em.find(LedgerTransaction, { organizationId: request.organizationId, idempotencyKey: request.idempotencyKey }, { limit: 2 });
  const other = used.find((t) => t.operation !== request.operation);
  if (other) throw conflict(field, `${field} was already used for a ${other.operation} write (transaction ${other.id}); use a new one`);
  const same = used.find((t) => t.operation === request.operation) ?? null;
  if (same?.requestDigest && same.requestDigest !== request.requestDigest)
    throw conflict(field, `${field} was already used for another ${request.operation} request (transaction ${same.id}); use a new one`);
  return same;
}

/**
 * A key whose run ended with no record (refused before building) names the request that run was
 * started with, in its history's first event: another request under the key is a conflict, as
 * against a record (a repeat of the same request gets the same refusal).
 */
async function requireSameRun(deps: WriteClientDeps, request: WriteRequest, field: string): Promise<void> {
  const { client } = deps.temporal;
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: request.workflowId },
    maximumPageSize: 1,
  });
  const payloads = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  const first = fromPayloadsAtIndex<WriteRequest | undefined>(client.options.loadedDataConverter.payloadConverter, 0, payloads);
  // Runs from before requests carried a digest compare nothing.
  if (first?.requestDigest && first.requestDigest !== request.requestDigest)
    throw conflict(field, `${field} was already used for another ${request.operation} request (refused, or ended before it was recorded); use a new one`);
}

/**
 * The same request gives the same digest, whatever the order of its properties. Sealed secrets (a
 * fresh IV each time) count as one value, so no digest depends on a secret.
 */
function requestDigest(deps: WriteClientDeps, input: WriteInput): string {
  const canonical = (value: unknown): unknown =>
    typeof value === 'string' && deps.sealer.isSealed(value)
      ? '(sealed)'
      : Array.isArray(value)
        ? value.map(canonical)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
            )
          : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical([input.itemData, input.svmTransactionConfig ?? {}])))
    .digest('hex');
}

/** The record of a keyed write (by its derived id, or by key for records made before ids were derived). */
async function keyedRecord(em: EntityManager, request: WriteRequest): Promise<LedgerTransaction | null> {
  return (
    (await em.findOne(LedgerTransaction, { id: request.transactionId })) ??
    (await em.findOne(LedgerTransaction, { organizationId: request.organizationId, operation: request.operation, idempotencyKey: request.idempotencyKey }))
  );
}

/** Inserts the PENDING record of a write that answers before it ends, unless its record exists already. */
async function acceptTransaction(deps: WriteClientDeps, request: WriteRequest): Promise<{ offchainId: string; status: string }> {
  const em = deps.orm.em.fork();
  await insertPendingRecord(em, request, deps.now());
  const record = request.idempotencyKey ? await keyedRecord(em, request) : await em.findOne(LedgerTransaction, { id: request.transactionId });
  if (!record) throw new Error(`the record of transaction ${request.transactionId} is missing after its insert`);
  return { offchainId: record.id, status: record.status };
}

/** A PENDING record whose write's run has ended without building (refused, or offchain-only, before it existed) will never move: gone. */
async function dropOrphan(deps: WriteClientDeps, offchainId: string): Promise<void> {
  await deletePendingRecord(deps.orm.em.fork(), offchainId);
}

/** Every transaction of a write that needed several, in order (null for a one-transaction write). */
async function partsOf(em: EntityManager, record: LedgerTransaction): Promise<TransactionResult[] | undefined> {
  const parts = await em.find(LedgerTransaction, { writeTransactionId: record.id, part: { $gt: 0 } }, { orderBy: { part: 'asc' } });
  return parts.length ? [record, ...parts].map(transactionResult) : undefined;
}

/** A keyed write that was sent and ended: answered from its record without a run (its run may be gone, and a new one must not send again). */
async function answerFromRecord(em: EntityManager, record: LedgerTransaction | null): Promise<WriteAnswer | null> {
  // Offchain-only writes (no signature) are answered by their run, as the first time.
  if (!record?.signature || !(record.success === true || record.status === 'FAILED')) return null;
  const transactions = await partsOf(em, record);
  return {
    async: false,
    transaction: transactions?.at(-1) ?? transactionResult(record),
    ...(transactions ? { transactions } : {}),
    created: await createdReference(em, record.accountIds[0]),
  };
}

/** Whether the write's record holds a possibly-sent message that no outcome was recorded for. */
async function sentWithoutOutcome(deps: WriteClientDeps, transactionId: string): Promise<boolean> {
  const record = await deps.orm.em.fork().findOne(LedgerTransaction, { id: transactionId });
  return Boolean(record?.signature) && (record!.status === 'SIGNED' || record!.status === 'SUBMITTED' || record!.status === 'BUILT');
}

/**
 * Runs a write to its answer: a keyed write already sent and ended is answered from its record; else
 * its workflow is started or joined (a run ended by a fault after it may have sent is resumed from the
 * record). Idempotent per key. Throws the write's refusal, or UNAVAILABLE (503) for an outage.
 */
export async function runWrite(deps: WriteClientDeps, input: WriteInput): Promise<WriteAnswer> {
  checkComputeUnitConfig(input.svmTransactionConfig);
  const idempotencyKey = input.idempotency?.key ?? null;
  const transactionId = idempotencyKey ? transactionIdFor(input.caller.organizationId, input.operation, idempotencyKey) : randomUUID();
  const workflowId = writeWorkflowId(
    input.operation,
    { id: input.caller.organizationId, externalId: input.caller.organizationExternalId },
    idempotencyKey ?? transactionId,
  );
  const request: WriteRequest = {
    operation: input.operation,
    transactionId,
    newRecordId: input.newRecordId,
    extraRecordIds: input.extraRecordIds,
    workflowId,
    organizationId: input.caller.organizationId,
    organizationExternalId: input.caller.organizationExternalId,
    apiKeyId: input.caller.apiKeyId,
    cluster: input.cluster,
    idempotencyKey,
    requestDigest: idempotencyKey ? requestDigest(deps, input) : undefined,
    commitment: input.svmTransactionConfig?.commitmentConfig?.commitmentLevel ?? deps.defaultCommitment,
    submit: input.svmTransactionConfig?.submitTransaction ?? true,
    itemData: input.itemData,
    svmTransactionConfig: input.svmTransactionConfig ?? {},
    ...(deps.writeDeadlineMs ? { deadlineMs: deps.writeDeadlineMs } : {}),
  };
  // A write that waits for approval or signatures, or rests at SIGNED until Submit Transaction, is answered while its run waits on.
  const resting: TransactionStatus[] = request.submit ? ['AWAITING_APPROVAL', 'AWAITING_SIGNATURES'] : ['AWAITING_APPROVAL', 'AWAITING_SIGNATURES', 'SIGNED'];
  // Watching before the run starts (and before the key's record is looked up): no rest is announced unheard.
  const waiter = deps.rests?.watch(transactionId, resting);
  try {
    // Whether the key's request can be compared with a record (else, with its run's request, once found ended).
    let keyRecorded = false;
    if (input.idempotency) {
      const em = deps.orm.em.fork();
      const record = await requireSameWrite(em, request, input.idempotency.field);
      keyRecorded = Boolean(record);
      // A record of the key may rest already (a repeat of a write waiting for signatures): no announcement will come for it.
      if (record) waiter?.poke();
      const recorded = await answerFromRecord(em, record);
      if (recorded) return recorded;
    }
    // An async write's record exists before the answer, so Fetch Transaction Status finds it at once.
    const accepted = input.respondAsync ? await acceptTransaction(deps, request) : undefined;
    let { handle, ended } = await (input.start ?? startWorkflow)(deps, request, input.caller.organizationExternalId);
    // A key whose run ended without a record to compare with (refused): compared with that run's request.
    if (ended && input.idempotency && !keyRecorded) {
      await requireSameRun(deps, request, input.idempotency.field).catch(async (error: unknown) => {
        if (accepted) await dropOrphan(deps, accepted.offchainId);
        throw error;
      });
    }
    // A run that ended without recording the outcome of a message it may have sent (terminated, or
    // failed by a fault): a new run resumes from the record and reconciles it with the chain. One that
    // a fault ended before it sent anything (its deadline passed) starts afresh: nothing was sent.
    if (ended && ((await sentWithoutOutcome(deps, transactionId)) || (await endedByFault(handle)))) {
      await reopenUnsentRecord(deps.orm.em.fork(), transactionId, deps.now());
      ({ handle, ended } = await startWorkflow(deps, request, input.caller.organizationExternalId, true));
      if (accepted) Object.assign(accepted, await acceptTransaction(deps, request));
    }
    if (accepted) {
      if (!(ended && accepted.status === 'PENDING')) return { async: true, transaction: accepted };
      await dropOrphan(deps, accepted.offchainId);
    }
    let result: WriteResult | typeof TIMED_OUT;
    try {
      const rested = await resultOrRest(deps, handle, transactionId, (record) => resting.includes(record.status as TransactionStatus), waiter);
      if (rested.rest) return restingAnswer(rested.rest);
      result = rested.result;
    } catch (error) {
      // A run that failed (or was terminated) after its message may have been sent is never answered
      // as failed: a new run resumes from the record and answers what the chain says.
      if (!(error instanceof WorkflowFailedError)) throw error;
      if (!(await sentWithoutOutcome(deps, transactionId))) throw unsentFailure(error);
      ({ handle } = await startWorkflow(deps, request, input.caller.organizationExternalId, true));
      result = await resultWithin(handle, deps.writeWaitMs);
    }
    if (result !== TIMED_OUT) return { async: false, ...result };
    // Still running (e.g. a slow network): answer as an async write; its record exists from now on.
    const pending = await acceptTransaction(deps, request);
    const description = await handle.describe().catch(() => undefined);
    if (description && description.status.name !== 'RUNNING') {
      await dropOrphan(deps, pending.offchainId);
      return { async: false, ...answerOf(await handle.result()) };
    }
    // Held by an outage before anything was sent: 503 (the write goes on; the same key joins it).
    const outage = description?.memo?.[writeOutageMemo] as WriteOutage | undefined;
    if (outage) throw outageAnswer(deps, pending.offchainId, outage);
    return { async: true, transaction: pending };
  } finally {
    waiter?.stop();
  }
}

/**
 * Whether the ended run of a key was ended by a fault (its deadline passed with a service away, an
 * operator ended it, a bug) rather than completed or refused: then no answer was given, and a new
 * run may go on (afresh when nothing was sent, reconciling when something may have been).
 */
async function endedByFault(handle: WorkflowHandle<typeof ledgerWrite>): Promise<boolean> {
  try {
    await handle.result();
    return false;
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    return !isRefusal(error.cause);
  }
}

/** A domain failure raised inside a workflow (or one of its updates), back as the LedgerError it started as; any other error as it is. Pure. */
export function fromWorkflowFailure(error: unknown): unknown {
  const cause = error instanceof WorkflowFailedError || error instanceof WorkflowUpdateFailedError ? error.cause : error;
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) {
    const details = (cause.details?.[0] ?? {}) as { field?: string | null; context?: Record<string, unknown> };
    return new LedgerError(cause.type, cause.message, details.field ?? undefined, details.context ?? {});
  }
  return error;
}

/** A refusal with a 4xx code: an answer (runs before `write-refusal-completes` failed with theirs). */
const isRefusal = (failure: unknown) => failure instanceof ApplicationFailure && isRefusalCode(failure.type);

/**
 * The answer to a run that failed without having sent anything: its failure with a code of ours as
 * it is (a refusal; NETWORK_ERROR of an oracle job), the deadline's UNAVAILABLE or any other fault
 * (a bug, an operator's termination) as 503 saying nothing was sent and that the same request starts
 * the write afresh.
 */
function unsentFailure(error: WorkflowFailedError): unknown {
  const cause = error.cause;
  const coded = cause instanceof ApplicationFailure && isErrorCode(cause.type);
  if (coded && cause.type !== 'UNAVAILABLE') return error;
  const reason = cause?.message ?? error.message;
  return new LedgerError(
    'UNAVAILABLE',
    `${/^nothing was sent/.test(reason) ? reason : `nothing was sent: ${reason}`}; send the same request again (same key) to start the write afresh`,
    undefined,
    { retryAfterSeconds: 1 },
  );
}

/** 503 for a write an outage holds before it sent anything; its record exists, so its status can be fetched. */
function outageAnswer(deps: WriteClientDeps, transactionId: string, outage: WriteOutage): LedgerError {
  const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(outage.retryAt) - deps.now().getTime()) / 1000));
  return new LedgerError(
    'UNAVAILABLE',
    `a service the write needs is not answering (${outage.message}) since ${outage.since}; nothing has been sent. Transaction ${transactionId} keeps trying until ${outage.deadline}: send the same request again (same key) for its outcome`,
    undefined,
    { retryAfterSeconds, transactionId },
  );
}

/**
 * Starts the write's workflow, or finds the run of its id: one running is joined, one ended answers
 * (`ended`). `reconcile` allows a new run where the last one failed or was terminated.
 */
export async function startWorkflow(
  deps: WriteClientDeps,
  request: WriteRequest,
  organizationExternalId: string,
  reconcile = false,
): Promise<{ handle: WorkflowHandle<typeof ledgerWrite>; ended: boolean }> {
  try {
    const handle = await deps.temporal.client.workflow.start<typeof ledgerWrite>('ledgerWrite', {
      taskQueue: deps.temporal.taskQueue,
      workflowId: request.workflowId,
      args: [request],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: reconcile ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
      // The worker in this process takes the write's one workflow task straight from the start call.
      requestEagerStart: deps.temporal.eager,
      workflowTaskTimeout: `${deps.temporal.writeTaskTimeoutSeconds}s`,
      // Its search attributes, and what the Web UI lists and heads the write by (operation, organization, amounts and ends).
      ...writeStartOptions(request, organizationExternalId),
    });
    return { handle, ended: false };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    // The run of this key has ended: its result (or refusal) is the answer.
    return { handle: deps.temporal.client.workflow.getHandle(request.workflowId), ended: true };
  }
}

export type StartWrite = typeof startWorkflow;

export const TIMED_OUT = Symbol('timed out');

/** Without a listener: waits before the first look at the record (most writes end sooner) and between looks; with one: waits this long to read again after a read failed. */
const REST_POLL_MS = 250;
/** The SQL comment on a polled look at a write's record while its run goes on (`/* rest look *\/ select …`). */
export const REST_LOOK_COMMENT = 'rest look';
/** The SQL comment on a read of a write's record that an announcement (or a listener's gap) asked for. */
export const REST_READ_COMMENT = 'rest read';

/**
 * The run's result within WRITE_WAIT_SECONDS, or the write's record once it rests (`resting`:
 * AWAITING_SIGNATURES; SIGNED with submitTransaction: false) while its run waits on. With the API's
 * listener (`deps.rests`) the record is read only when its rest is announced, or after a gap in the
 * listener; `waiter` is one registered before the run started (none: one is registered here and
 * the record read once, as it may rest already). Without a listener the record is polled every
 * REST_POLL_MS, the first look only after REST_POLL_MS, so a write that ends sooner costs no read.
 * No slow safety poll with a listener: a rest commits an announcement, a lost one is a gap, and a
 * failed read is retried.
 */
export async function resultOrRest(
  deps: WriteClientDeps,
  handle: WorkflowHandle<typeof ledgerWrite>,
  transactionId: string,
  resting: (record: LedgerTransaction) => boolean | Promise<boolean>,
  waiter?: RestWaiter,
): Promise<{ result: WriteResult | typeof TIMED_OUT; rest?: undefined } | { rest: LedgerTransaction; result?: undefined }> {
  const own = waiter || !deps.rests ? undefined : deps.rests.watch(transactionId);
  own?.poke();
  const push = waiter ?? own;
  let settled = false;
  const rest = (async () => {
    for (;;) {
      if (push) await push.next();
      else await new Promise((resolve) => setTimeout(resolve, REST_POLL_MS));
      if (settled) return new Promise<never>(() => {});
      // The database away for a moment: the run's result may still come (and the next look may work).
      // Tagged (pg_stat_activity, the statements-per-write test): polled looks follow the write's latency, not its steps.
      const record = await deps.orm.em
        .fork()
        .findOne(LedgerTransaction, { id: transactionId }, { comments: [push ? REST_READ_COMMENT : REST_LOOK_COMMENT] })
        .catch(() => undefined);
      if (settled) return new Promise<never>(() => {});
      if (record === undefined && push) setTimeout(() => push.poke(), REST_POLL_MS);
      if (record && (await resting(record)) && !settled) return { rest: record };
    }
  })();
  try {
    return await Promise.race([resultWithin(handle, deps.writeWaitMs).then((result): { result: WriteResult | typeof TIMED_OUT } => ({ result })), rest]);
  } finally {
    settled = true;
    own?.stop();
  }
}

/** The answer of a write that rests: SIGNED is its transaction result (200); waiting for signatures or approval is accepted (202) with the status. */
export function restingAnswer(record: LedgerTransaction): WriteAnswer {
  if (record.status === 'SIGNED') return { async: false, transaction: transactionResult(record) };
  return { async: true, transaction: { offchainId: record.id, status: record.status } };
}

/** A completed write's result, or its refusal thrown as the error it is (the same answer as a run that failed with it). */
function answerOf(result: WriteResult): WriteResult {
  const refusal = result.refusal;
  if (refusal) throw new LedgerError(refusal.code, refusal.message, refusal.field ?? undefined, refusal.context);
  return result;
}

/**
 * The run's result, or TIMED_OUT after `ms`. A refusal is thrown (the run completed with one, or
 * failed with one before `write-refusal-completes`); the Temporal server being unreachable for a
 * while (a restart) is waited out until the time is up.
 */
export async function resultWithin(handle: Pick<WorkflowHandle<typeof ledgerWrite>, 'result'>, ms: number): Promise<WriteResult | typeof TIMED_OUT> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return TIMED_OUT;
    let timer: NodeJS.Timeout | undefined;
    let result: WriteResult | typeof TIMED_OUT;
    try {
      result = await Promise.race([handle.result(), new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), left)))]);
    } catch (error) {
      if (error instanceof WorkflowFailedError) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, Math.max(0, deadline - Date.now()))));
      continue;
    } finally {
      clearTimeout(timer);
    }
    return result === TIMED_OUT ? result : answerOf(result);
  }
}
