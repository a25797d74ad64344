/**
 * The write workflow as a layer: the real `ledgerWrite` bundle on a real Worker against the dev
 * server, with fake activities injected (canned answers, faults, blocking steps). Asserts what the
 * workflow decides: its result, which steps ran in which order with which arguments, the
 * `currentStep` query, the post-submit child and the search attributes an operator filters on.
 */
import { ApplicationFailure, Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import {
  approvalDecidedSignal,
  DEFAULT_WRITE_DEADLINE_MS,
  searchAttributeNames,
  writeOutageMemo,
  writeUpdates,
  type Outcome,
  type WriteOutage,
  type WriteRequest,
} from '../../src/domain/write';
import { waitFor } from '../support/wait';
import type { ledgerWrite, scheduledOracleRefresh } from '../../src/workflows';
import { temporalTarget, uniqueTaskQueue } from '../support/temporal';
import { deferred, fakeActivities, resolved, routedActivities, writeRequest, type FakeActivities } from '../support/workflow-fakes/fake-activities';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed in this process: keep that logger.
}

const statusKey = defineSearchAttributeKey(searchAttributeNames.status, SearchAttributeType.KEYWORD);
const signatureKey = defineSearchAttributeKey(searchAttributeNames.signature, SearchAttributeType.KEYWORD);

const { address, namespace } = temporalTarget();
const taskQueue = uniqueTaskQueue('write-workflow');
const fakesByWorkflowId = new Map<string, FakeActivities>();
let connection: Connection;
let client: Client;
let workerConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

// One worker (one workflow bundle) for the file; each case's activities are routed to its own fakes by workflow id.
beforeAll(async () => {
  connection = await Connection.connect({ address });
  client = new Client({ connection, namespace });
  workerConnection = await NativeConnection.connect({ address });
  worker = await Worker.create({
    connection: workerConnection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('../../src/workflows'),
    activities: routedActivities((workflowId) => {
      // A child write's id is derived by its parent: its fakes are registered under the id's prefix.
      const fakes = fakesByWorkflowId.get(workflowId) ?? [...fakesByWorkflowId].find(([prefix]) => prefix.endsWith('-') && workflowId.startsWith(prefix))?.[1];
      if (!fakes) throw new Error(`no fakes registered for ${workflowId}`);
      return fakes;
    }),
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await workerConnection?.close();
  await connection?.close();
});

let cases = 0;
async function startWrite(fakes: FakeActivities, overrides: Partial<WriteRequest> = {}) {
  const workflowId = `${taskQueue}-w${++cases}`;
  fakesByWorkflowId.set(workflowId, fakes);
  const request = writeRequest(workflowId, overrides);
  const handle = await client.workflow.start<typeof ledgerWrite>('ledgerWrite', { taskQueue, workflowId, args: [request] });
  return { handle, request, workflowId };
}

const confirmed: Outcome = { status: 'CONFIRMED', slot: '42', confirmations: 1 };
const expired: Outcome = { status: 'EXPIRED' };

/** Answers in turn, the last one repeated. */
function answers<T>(...values: T[]): () => Promise<T> {
  let next = 0;
  return async () => values[Math.min(next++, values.length - 1)];
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The signature a fake sign answered (deliver passes it on to record). */
const signatureOf = (signed: unknown) => (signed as { signature: string }).signature;

describe('ledgerWrite on a real worker with fake activities', () => {
  it('runs lookup → checkLimits → build → sign → submit → confirm → record and answers with what record returned', async () => {
    const fakes = fakeActivities();
    const { handle, request } = await startWrite(fakes);
    const result = await handle.result();

    expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'submit', 'confirm', 'record']);
    const [built] = fakes.returnsOf('build');
    const [signed] = fakes.returnsOf('sign');
    expect(fakes.argsOf('lookup')).toEqual([[request]]);
    expect(fakes.argsOf('checkLimits')).toEqual([[request, resolved()]]);
    expect(fakes.argsOf('build')).toEqual([[request, resolved(), 0]]);
    expect(fakes.argsOf('sign')).toEqual([[request, built, ['FeePayer1111', 'NewAccount1111'], 0]]);
    expect(fakes.argsOf('submit')).toEqual([[request, signed, 0]]);
    expect(fakes.argsOf('confirm')).toEqual([[request, signed, built]]);
    // Deliver tells record the signature it sent (record then reads no record for it).
    expect(fakes.argsOf('record')).toEqual([[request, resolved(), confirmed, 0, signatureOf(signed)]]);
    expect(result).toEqual(fakes.returnsOf('record')[0]);
    expect(result.transaction?.status).toBe('CONFIRMED');
    // Pre-submit webhooks are skipped when no involved account has any.
    expect(fakes.argsOf('callPreSubmitWebhooks')).toEqual([]);
    expect(await handle.query<string>('currentStep')).toBe('done');
    // The engine's cost: one workflow task, two local activities (prepare: lookup → sign; deliver: submit → record).
    const { events } = await handle.fetchHistory();
    expect(events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events!.filter((e) => e.markerRecordedEventAttributes)).toHaveLength(2);
  });

  it('records an onboarding with nothing to send without building anything', async () => {
    const fakes = fakeActivities({ lookup: async () => resolved({ needsTransaction: false }) });
    const { handle, request } = await startWrite(fakes);
    const result = await handle.result();

    expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'record']);
    expect(fakes.argsOf('record')).toEqual([[request, resolved({ needsTransaction: false }), null, 0]]);
    expect(result).toEqual(fakes.returnsOf('record')[0]);
  });

  describe('an expired lifetime', () => {
    it('rebuilds with a new lifetime and re-signs, and records the landing once', async () => {
      const fakes = fakeActivities({ confirm: answers<Outcome>(expired, expired, confirmed) });
      const { handle, request } = await startWrite(fakes);
      const result = await handle.result();

      // Build proves the expiry again itself before it makes a new message.
      const lifetime = ['build', 'sign', 'submit', 'confirm'];
      expect(fakes.names()).toEqual(['lookup', 'checkLimits', ...lifetime, ...lifetime, ...lifetime, 'record']);
      // Each lifetime sends its own signed bytes, signed over its own build.
      const builds = fakes.returnsOf('build');
      const signs = fakes.returnsOf('sign');
      expect(new Set(builds.map((b) => JSON.stringify(b))).size).toBe(3);
      expect(fakes.argsOf('sign')).toEqual(builds.map((b) => [request, b, ['FeePayer1111', 'NewAccount1111'], 0]));
      expect(fakes.argsOf('submit')).toEqual(signs.map((s) => [request, s, 0]));
      expect(fakes.argsOf('record')).toEqual([[request, resolved(), confirmed, 0, signatureOf(signs[2])]]);
      expect(result.transaction?.status).toBe('CONFIRMED');
    });

    it('gives up after MAX_LIFETIMES (3) and records EXPIRED without a fourth build', async () => {
      const fakes = fakeActivities({ confirm: answers<Outcome>(expired) });
      const { handle, request } = await startWrite(fakes);
      const result = await handle.result();

      expect(fakes.argsOf('build')).toHaveLength(3);
      expect(fakes.argsOf('submit')).toHaveLength(3);
      expect(fakes.argsOf('record')).toEqual([[request, resolved(), expired, 0, signatureOf(fakes.returnsOf('sign')[2])]]);
      expect(fakes.names().at(-1)).toBe('record');
      expect(result.transaction?.status).toBe('EXPIRED');
    });
  });

  describe('a write resumed after a crash (the record holds its signed message)', () => {
    it('skips the limit check, puts the reused message to the pre-submit webhook (which answers from its log), and sends it again', async () => {
      const fakes = fakeActivities({
        lookup: async () => resolved({ resumed: true, webhooks: { preSubmit: true, postSubmit: false } }),
        build: async () => ({
          messageBase64: 'message-1',
          signers: ['FeePayer1111', 'NewAccount1111'],
          lifetime: { kind: 'BLOCKHASH', blockhash: 'hash-1', lastValidBlockHeight: '100' },
          size: 200,
          reused: true,
        }),
      });
      const { handle } = await startWrite(fakes);
      const result = await handle.result();

      expect(fakes.names()).toEqual(['lookup', 'build', 'sign', 'callPreSubmitWebhooks', 'submit', 'confirm', 'record']);
      expect(result.transaction?.status).toBe('CONFIRMED');
    });

    it('goes on to confirm when submit fails past its retries (the bytes may have arrived)', async () => {
      const fakes = fakeActivities({
        submit: async () => {
          throw ApplicationFailure.create({ type: 'UNAVAILABLE', nonRetryable: true, message: 'connection reset' });
        },
      });
      const { handle } = await startWrite(fakes);
      const result = await handle.result();

      // Three attempts inside the delivery, then confirm finds the bytes landed.
      expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'submit', 'submit', 'submit', 'confirm', 'record']);
      expect(result.transaction?.status).toBe('CONFIRMED');
    });
  });

  describe('a write of several network transactions', () => {
    it('builds, signs, sends, confirms and records each in turn and lists them all', async () => {
      const fakes = fakeActivities({ lookup: async () => resolved({ transactionCount: 3 }) });
      const { handle, request } = await startWrite(fakes);
      const result = await handle.result();

      const one = ['build', 'sign', 'submit', 'confirm', 'record'];
      expect(fakes.names()).toEqual(['lookup', 'checkLimits', ...one, ...one, ...one]);
      expect(fakes.argsOf('build').map((args) => args[2])).toEqual([0, 1, 2]);
      expect(fakes.argsOf('record').map((args) => args[3])).toEqual([0, 1, 2]);
      expect(fakes.argsOf('checkLimits')).toEqual([[request, resolved({ transactionCount: 3 })]]);
      expect(result.transactions).toHaveLength(3);
      expect(result.transactions!.every((t) => t.status === 'CONFIRMED')).toBe(true);
    });

    it('stops after a transaction that failed onchain, answering what ran', async () => {
      let confirms = 0;
      const fakes = fakeActivities({
        lookup: async () => resolved({ transactionCount: 3 }),
        confirm: async (): Promise<Outcome> => (++confirms === 2 ? { status: 'FAILED', errorMessage: 'custom program error: 0x11' } : confirmed),
      });
      const { handle } = await startWrite(fakes);
      const result = await handle.result();

      expect(fakes.argsOf('build')).toHaveLength(2);
      expect(result.transactions!.map((t) => t.status)).toEqual(['CONFIRMED', 'FAILED']);
      expect(result.transaction?.status).toBe('FAILED');
    });

    it('records the refusal of a later transaction on its own record and keeps what landed', async () => {
      let builds = 0;
      const fakes = fakeActivities({
        lookup: async () => resolved({ transactionCount: 2 }),
        build: async () => {
          if (++builds === 2) throw ApplicationFailure.create({ type: 'TRANSACTION_TOO_LARGE', nonRetryable: true, message: 'too large' });
          return {
            messageBase64: 'message-1',
            signers: ['FeePayer1111'],
            lifetime: { kind: 'BLOCKHASH', blockhash: 'h', lastValidBlockHeight: '1' },
            size: 200,
          };
        },
        recordFailure: async (request: WriteRequest) => ({
          success: false,
          offchainId: `${request.transactionId}-1`,
          status: 'FAILED',
          onchainId: null,
          confirmationsCount: null,
          serializedMessage: null,
          errorMessage: 'too large',
          txnTimestamp: null,
        }),
      });
      const { handle, request } = await startWrite(fakes);
      const result = await handle.result();

      expect(fakes.argsOf('recordFailure')).toEqual([[request, 'TRANSACTION_TOO_LARGE', 'too large', 1]]);
      expect(result.transactions!.map((t) => t.status)).toEqual(['CONFIRMED', 'FAILED']);
    });
  });

  it('records FAILED with the reason and never confirms when the network rejects the submit', async () => {
    const fakes = fakeActivities({ submit: async () => ({ rejected: 'insufficient funds for rent' }) });
    const { handle, request } = await startWrite(fakes);
    const result = await handle.result();

    expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'submit', 'record']);
    expect(fakes.argsOf('record')).toEqual([
      [request, resolved(), { status: 'FAILED', errorMessage: 'insufficient funds for rent' }, 0, signatureOf(fakes.returnsOf('sign')[0])],
    ]);
    expect(result.transaction).toMatchObject({ status: 'FAILED', success: false, errorMessage: 'insufficient funds for rent' });
  });

  it('rests at SIGNED when the request says submit: false, and delivers on the submit update', async () => {
    const fakes = fakeActivities();
    const { handle, request } = await startWrite(fakes, { submit: false });
    while ((await handle.query<string>('currentStep')) !== 'awaitSubmit') await sleep(50);

    expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'record']);
    expect(fakes.argsOf('record')).toEqual([[request, resolved(), { status: 'SIGNED' }, 0]]);
    await handle.executeUpdate(writeUpdates.submit);
    const result = await handle.result();
    expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'record', 'submit', 'confirm', 'record']);
    expect(result.transaction?.status).toBe('CONFIRMED');
    expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('CONFIRMED');
  });

  it('ends a write resting at SIGNED as EXPIRED once its lifetime is proven over, without sending it', async () => {
    const fakes = fakeActivities({ isLifetimeOver: async () => true });
    const { handle, request } = await startWrite(fakes, { submit: false });
    const result = await handle.result();
    expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'record', 'isLifetimeOver', 'record']);
    expect(fakes.argsOf('record')[1]).toEqual([request, resolved(), { status: 'EXPIRED' }, 0]);
    expect(result.transaction?.status).toBe('EXPIRED');
  }, 30_000);

  it('refuses Sign on a write resting for Submit, and Cancel once it was submitted', async () => {
    const fakes = fakeActivities();
    const { handle } = await startWrite(fakes, { submit: false });
    while ((await handle.query<string>('currentStep')) !== 'awaitSubmit') await sleep(50);
    await expect(handle.executeUpdate(writeUpdates.sign, { args: [null] })).rejects.toThrow();
    await handle.executeUpdate(writeUpdates.submit);
    await expect(handle.executeUpdate(writeUpdates.cancel)).rejects.toThrow();
    expect((await handle.result()).transaction?.status).toBe('CONFIRMED');
    expect(fakes.names()).not.toContain('addSignatures');
    expect(fakes.names()).not.toContain('recordCancellation');
  });

  it('cancels a write resting for Submit: recorded CANCELLED, nothing delivered', async () => {
    const fakes = fakeActivities();
    const { handle, request } = await startWrite(fakes, { submit: false });
    while ((await handle.query<string>('currentStep')) !== 'awaitSubmit') await sleep(50);
    await handle.executeUpdate(writeUpdates.cancel);
    await handle.result();
    expect(fakes.argsOf('recordCancellation')).toEqual([[request, 0]]);
    expect(fakes.names()).not.toContain('submit');
  });

  describe('pre-submit webhooks', () => {
    const withHooks = () => resolved({ webhooks: { preSubmit: true, postSubmit: false } });

    it('a veto, after the message is signed, records the rejection and nothing is sent', async () => {
      const fakes = fakeActivities({ lookup: async () => withHooks(), callPreSubmitWebhooks: async () => 'VETO' as const });
      const { handle, request } = await startWrite(fakes);
      const result = await handle.result();

      expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'callPreSubmitWebhooks', 'recordRejection']);
      expect(fakes.argsOf('callPreSubmitWebhooks')).toEqual([[request, fakes.returnsOf('build')[0], fakes.returnsOf('sign')[0], 0]]);
      expect(fakes.argsOf('recordRejection')).toEqual([[request, expect.stringContaining('pre-submit webhook'), 0]]);
      expect(result).toEqual(fakes.returnsOf('recordRejection')[0]);
      expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('REJECTED');
    });

    it('an OK lets the pipeline go on', async () => {
      const fakes = fakeActivities({ lookup: async () => withHooks(), callPreSubmitWebhooks: async () => 'OK' as const });
      const { handle, request } = await startWrite(fakes);
      const result = await handle.result();

      // The webhook sees the signed bytes that are then submitted, signed once.
      expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'callPreSubmitWebhooks', 'submit', 'confirm', 'record']);
      expect(fakes.argsOf('callPreSubmitWebhooks')).toEqual([[request, fakes.returnsOf('build')[0], fakes.returnsOf('sign')[0], 0]]);
      expect(fakes.argsOf('submit')[0][1]).toEqual(fakes.returnsOf('sign')[0]);
      expect(result.transaction?.status).toBe('CONFIRMED');
    });
  });

  it('completes with a business refusal (its code, message and field), after recording the failure, LedgerStatus REFUSED', async () => {
    const fakes = fakeActivities({
      lookup: async () => {
        throw ApplicationFailure.create({
          type: 'CONFLICT',
          nonRetryable: true,
          message: 'dup',
          details: [{ field: 'itemData.onchainId', context: { holder: 'x' } }],
        });
      },
    });
    const { handle, request } = await startWrite(fakes);
    const result = await handle.result();

    // The answer, not a fault: the run completes (the Web UI counts it Completed, not Failed).
    expect(result.refusal).toEqual({ code: 'CONFLICT', message: 'dup', field: 'itemData.onchainId', context: { holder: 'x' } });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    // Non-retryable: one lookup attempt, then the failure is recorded and nothing else runs.
    expect(fakes.names()).toEqual(['lookup', 'recordFailure']);
    expect(fakes.argsOf('recordFailure')).toEqual([[request, 'CONFLICT', 'dup', 0]]);
    expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('REFUSED');
  });

  it('fails on a fault (a service that never answered), with UNAVAILABLE in the cause chain, after recording the failure, LedgerStatus FAILED', async () => {
    const fakes = fakeActivities({
      lookup: async () => {
        throw ApplicationFailure.create({ type: 'UNAVAILABLE', nonRetryable: true, message: 'the database did not answer' });
      },
    });
    const { handle, request } = await startWrite(fakes);
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(WorkflowFailedError);
    const refusal = causeChain(error).find((e): e is ApplicationFailure => e instanceof ApplicationFailure);
    expect(refusal).toMatchObject({ type: 'UNAVAILABLE', nonRetryable: true });
    expect(fakes.argsOf('recordFailure')).toEqual([[request, 'UNAVAILABLE', 'the database did not answer', 0]]);
    expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('FAILED');
  });

  describe('a fault before anything is sent (a service the write needs is away)', () => {
    it("is no outcome: the write retries past the step's own retries (and the 10 attempts that once ended it), says so in its outage memo, and completes once the service is back", async () => {
      let down = true;
      let failedAttempts = 0;
      const fakes = fakeActivities({
        lookup: async () => {
          if (down) {
            failedAttempts++;
            throw new TypeError('fetch failed');
          }
          return resolved();
        },
      });
      const { handle } = await startWrite(fakes);
      const outage = await waitFor(async () => failedAttempts > 10 && ((await handle.describe()).memo?.[writeOutageMemo] as WriteOutage | undefined));
      expect(outage).toMatchObject({ message: expect.stringContaining('fetch failed') });
      expect(Date.parse(outage.deadline) - Date.parse(outage.since)).toBeLessThanOrEqual(DEFAULT_WRITE_DEADLINE_MS);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      down = false;

      const result = await handle.result();
      expect(result.transaction?.status).toBe('CONFIRMED');
      expect(fakes.argsOf('recordFailure')).toEqual([]);
      expect((await handle.describe()).memo?.[writeOutageMemo]).toBeUndefined();
    }, 60_000);

    it("counts the deadline from the step's start: a write approved after longer than the deadline still rides out a fault in build", async () => {
      let builds = 0;
      const fakes = fakeActivities({
        checkLimits: async () => ({ approvalId: 'approval-1', timeoutMs: 60_000 }),
        build: async () => {
          if (++builds <= 4) throw new TypeError('fetch failed');
          return {
            messageBase64: 'message-1',
            signers: ['FeePayer1111', 'NewAccount1111'],
            lifetime: { kind: 'BLOCKHASH', blockhash: 'hash-1', lastValidBlockHeight: '100' },
            size: 200,
          };
        },
      });
      const { handle } = await startWrite(fakes, { deadlineMs: 2000 });
      await waitFor(async () => (await handle.query<string>('currentStep')) === 'awaitApproval');
      // The approvers take longer than the whole deadline (a lower bound: waiting longer proves the same).
      await sleep(2500);
      await handle.signal(approvalDecidedSignal, 'APPROVED');

      const result = await handle.result();
      expect(result.transaction?.status).toBe('CONFIRMED');
      expect(builds).toBe(5);
      expect(fakes.argsOf('recordFailure')).toEqual([]);
    }, 60_000);

    it("past the write's deadline ends it with nothing sent: recorded FAILED as UNAVAILABLE, the run failed (so the key may start afresh), LedgerStatus FAILED", async () => {
      const fakes = fakeActivities({
        lookup: async () => {
          throw new TypeError('fetch failed');
        },
      });
      const { handle, request } = await startWrite(fakes, { deadlineMs: 1 });
      const error = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(error).toBeInstanceOf(WorkflowFailedError);
      const refusal = causeChain(error).find((e): e is ApplicationFailure => e instanceof ApplicationFailure);
      expect(refusal).toMatchObject({ type: 'UNAVAILABLE', message: expect.stringMatching(/^nothing was sent: .*fetch failed/) });
      expect(fakes.argsOf('recordFailure')).toEqual([[request, 'UNAVAILABLE', refusal!.message, 0]]);
      expect(fakes.names()).not.toContain('submit');
      expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('FAILED');
    });
  });

  it('a fault past every retry after the refusal steps still ends the write with LedgerStatus FAILED', async () => {
    const fakes = fakeActivities({
      lookup: async () => resolved({ needsTransaction: false }),
      record: async () => {
        throw ApplicationFailure.create({ type: 'INTERNAL', nonRetryable: true, message: 'a bug' });
      },
    });
    const { handle } = await startWrite(fakes);
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('FAILED');
  });

  it('a scheduled oracle refresh reads its refused child write (completed, not failed) as refused', async () => {
    const organizationExternalId = `sched-${++cases}`;
    const fakes = fakeActivities({
      lookup: async () => {
        throw ApplicationFailure.create({ type: 'VALIDATION_ERROR', nonRetryable: true, message: 'the job gave no value' });
      },
    });
    fakesByWorkflowId.set(`refresh_oracle_data_source-sched_${cases}-`, fakes);
    const target = { dataSourceId: 'source-1', organizationId: 'internal-1', organizationExternalId, apiKeyId: 'key-1', cluster: 'LOCAL' };
    const run = await client.workflow.start<typeof scheduledOracleRefresh>('scheduledOracleRefresh', {
      taskQueue,
      workflowId: `${taskQueue}-refresh-${cases}`,
      args: [target],
    });

    expect(await run.result()).toEqual({ refused: 'the job gave no value' });
    const [child] = fakes.argsOf('recordFailure')[0] as [WriteRequest];
    expect(child.workflowId).toMatch(new RegExp(`^refresh_oracle_data_source-sched_${cases}-scheduled-`));
    expect((await client.workflow.getHandle(child.workflowId).describe()).typedSearchAttributes.get(statusKey)).toBe('REFUSED');
  });

  it('fails on a refusal whose record holds a possibly-sent message (the API starts a run that reconciles it)', async () => {
    const fakes = fakeActivities({
      lookup: async () => {
        throw ApplicationFailure.create({ type: 'VALIDATION_ERROR', nonRetryable: true, message: 'no longer valid' });
      },
      recordFailure: async () => ({
        success: false,
        offchainId: 'txn',
        status: 'SUBMITTED' as const,
        onchainId: 'sig',
        confirmationsCount: null,
        serializedMessage: null,
        errorMessage: null,
        txnTimestamp: null,
      }),
    });
    const { handle } = await startWrite(fakes);
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('FAILED');
  });

  it('retries a transient submit fault with the same signed bytes, never re-signing', async () => {
    let attempts = 0;
    const fakes = fakeActivities({
      submit: async () => {
        if (++attempts <= 2) throw new Error('ECONNRESET: socket hang up');
        return { rejected: null };
      },
    });
    const { handle, request } = await startWrite(fakes);
    const result = await handle.result();

    const [signed] = fakes.returnsOf('sign');
    expect(fakes.argsOf('sign')).toHaveLength(1);
    expect(fakes.argsOf('build')).toHaveLength(1);
    expect(fakes.argsOf('submit')).toEqual([
      [request, signed, 0],
      [request, signed, 0],
      [request, signed, 0],
    ]);
    expect(fakes.names()).toEqual(['lookup', 'checkLimits', 'build', 'sign', 'submit', 'submit', 'submit', 'confirm', 'record']);
    expect(result.transaction?.status).toBe('CONFIRMED');
  });

  it('answers the currentStep query with the step in progress', async () => {
    const entered = deferred();
    const release = deferred();
    const fakes = fakeActivities({
      confirm: async () => {
        entered.resolve();
        await release.promise;
        return confirmed;
      },
    });
    const { handle } = await startWrite(fakes);

    await entered.promise;
    try {
      // Submit, confirm and record run as one local activity: deliver.
      expect(await handle.query<string>('currentStep')).toBe('deliver');
    } finally {
      release.resolve();
    }
    const result = await handle.result();
    expect(result.transaction?.status).toBe('CONFIRMED');
    expect(fakes.argsOf('confirm')).toHaveLength(1);
    expect(await handle.query<string>('currentStep')).toBe('done');
  });

  it('hands post-submit webhooks to their own delivery workflow (fixed id) without holding up the answer', async () => {
    let delivered = false;
    const fakes = fakeActivities({
      lookup: async () => resolved({ webhooks: { preSubmit: false, postSubmit: true } }),
      callPostSubmitWebhooks: async () => {
        await sleep(3000);
        delivered = true;
      },
      // As the real step does: a client start under the fixed id, from a local activity.
      startPostSubmitDelivery: async (request: WriteRequest) => {
        await client.workflow.start('deliverPostSubmitWebhooks', {
          taskQueue,
          workflowId: `${request.workflowId}-post-submit`,
          args: [request],
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
      },
    });
    const started = Date.now();
    const { handle, request, workflowId } = await startWrite(fakes);
    const result = await handle.result();
    const answeredAfter = Date.now() - started;

    expect(result.transaction?.status).toBe('CONFIRMED');
    expect(delivered).toBe(false);
    expect(answeredAfter).toBeLessThan(3000);

    const child = client.workflow.getHandle(`${workflowId}-post-submit`);
    const description = await child.describe();
    expect(description.type).toBe('deliverPostSubmitWebhooks');
    // One workflow task for the write: no child-start events to wait for.
    const { events } = await handle.fetchHistory();
    expect(events!.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(fakes.argsOf('startPostSubmitDelivery')).toEqual([[request]]);
    await child.result();
    expect(delivered).toBe(true);
    expect(fakes.argsOf('callPostSubmitWebhooks')).toEqual([[request]]);
    expect(fakes.names().indexOf('callPostSubmitWebhooks')).toBeGreaterThan(fakes.names().indexOf('record'));
  });

  it('leaves the final status and the signature in the search attributes', async () => {
    const fakes = fakeActivities();
    const { handle } = await startWrite(fakes);
    await handle.result();

    const [signed] = fakes.returnsOf('sign') as { signature: string }[];
    const { typedSearchAttributes } = await handle.describe();
    expect(typedSearchAttributes.get(statusKey)).toBe('CONFIRMED');
    expect(typedSearchAttributes.get(signatureKey)).toBe(signed.signature);
  });
});
