/**
 * The local activities a write runs (`prepare`: lookup → sign; `deliver`: submit → record), run in
 * the SDK's MockActivityEnvironment over fake steps: which steps run, in which order, and what each
 * stage answers when the network refuses, goes away, or the message expires.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createStages, type Steps } from '../../src/activities/pipeline/stages';
import type { BuiltTransaction, Outcome, Resolved, WriteRequest } from '../../src/domain/write';

const request = { operation: 'CREATE_ACCOUNT', transactionId: 'txn-1', workflowId: 'wf-1', submit: true } as WriteRequest;
const resolved = (overrides: Partial<Resolved> = {}): Resolved => ({
  needsTransaction: true,
  feePayer: 'FeePayer1111',
  signers: ['FeePayer1111'],
  debits: [],
  webhooks: { preSubmit: false, postSubmit: false },
  data: {},
  ...overrides,
});
const built: BuiltTransaction = {
  messageBase64: 'message',
  signers: ['FeePayer1111'],
  lifetime: { kind: 'BLOCKHASH', blockhash: 'hash', lastValidBlockHeight: '100' },
  size: 200,
};
const signed = { signature: 'sig', wireBase64: 'wire' };
const confirmed: Outcome = { status: 'CONFIRMED', slot: '7', confirmations: 1 };

/** Fake steps that log their names; `overrides` replace single steps. */
function fakeSteps(overrides: Partial<Steps> = {}) {
  const log: string[] = [];
  const base: Steps = {
    lookup: async () => resolved(),
    checkLimits: async () => undefined,
    build: async () => built,
    sign: async () => signed,
    submit: async () => ({ rejected: null }),
    confirm: async () => confirmed,
    record: async (_request, _resolved, outcome) => ({
      transaction: outcome
        ? {
            success: outcome.status !== 'FAILED',
            offchainId: 'txn-1',
            status: outcome.status,
            onchainId: 'sig',
            confirmationsCount: 1,
            serializedMessage: null,
            errorMessage: null,
            txnTimestamp: null,
          }
        : null,
    }),
  };
  const steps = Object.fromEntries(
    Object.entries({ ...base, ...overrides }).map(([name, fn]) => [
      name,
      async (...args: unknown[]) => {
        log.push(name);
        return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as Steps;
  return { log, stages: createStages(steps) };
}

/** Runs a stage as an activity of the SDK's mock environment, typed as the stage answers. */
const run = <A extends unknown[], R>(stage: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
  new MockActivityEnvironment().run(stage, ...args) as Promise<R>;

describe('prepare', () => {
  it('runs lookup → limit check → build → sign and answers the signed message with the resolution', async () => {
    const { log, stages } = fakeSteps();
    const answer = await run(stages.prepare, request);
    expect(log).toEqual(['lookup', 'checkLimits', 'build', 'sign']);
    expect(answer).toEqual({ resolved: resolved(), prepared: { built, signed } });
  });

  it('skips the limit check of a resumed write (its debits were held before it was signed)', async () => {
    const { log, stages } = fakeSteps({ lookup: async () => resolved({ resumed: true }) });
    await run(stages.prepare, request);
    expect(log).toEqual(['lookup', 'build', 'sign']);
  });

  it('signs even when a pre-submit webhook is to see the message (it sees the signed transaction, docs/webhooks.md)', async () => {
    const { log, stages } = fakeSteps({ lookup: async () => resolved({ webhooks: { preSubmit: true, postSubmit: false } }) });
    const answer = await run(stages.prepare, request);
    expect(log).toEqual(['lookup', 'checkLimits', 'build', 'sign']);
    expect(answer.prepared).toEqual({ built, signed });
  });

  it("hands lookup's recordAbsent to build alone: prepare's answer (kept in history) never holds it", async () => {
    const builds: unknown[][] = [];
    const { stages } = fakeSteps({
      lookup: async () => resolved({ recordAbsent: true }),
      build: async (...args) => (builds.push(args), built),
    });
    const answer = await run(stages.prepare, request);
    expect(builds[0][3]).toBe(true);
    expect(answer.resolved).toEqual(resolved());
    expect(answer.resolved).not.toHaveProperty('recordAbsent');
  });

  it('builds nothing for a write with nothing to send', async () => {
    const { log, stages } = fakeSteps({ lookup: async () => resolved({ needsTransaction: false }) });
    const answer = await run(stages.prepare, request);
    expect(log).toEqual(['lookup', 'checkLimits']);
    expect(answer.prepared).toBeUndefined();
  });

  it('fails with the refusal of a step, and runs nothing after it', async () => {
    const { log, stages } = fakeSteps({
      checkLimits: async () => {
        throw new Error('LIMIT_EXCEEDED');
      },
    });
    await expect(run(stages.prepare, request)).rejects.toThrow('LIMIT_EXCEEDED');
    expect(log).toEqual(['lookup', 'checkLimits']);
  });
});

describe('deliver', () => {
  it('submits, confirms and records, answering the record', async () => {
    const { log, stages } = fakeSteps();
    const answer = await run(stages.deliver, request, resolved(), built, signed, 0, false);
    expect(log).toEqual(['submit', 'confirm', 'record']);
    expect(answer).toMatchObject({ expired: false, result: { transaction: { status: 'CONFIRMED', success: true } } });
  });

  it('tells record the signature it sent (record then reads no record for it)', async () => {
    const records: unknown[][] = [];
    const { stages } = fakeSteps({ record: async (...args) => (records.push(args), { transaction: null }) });
    await run(stages.deliver, request, resolved(), built, signed, 0, false);
    expect(records[0][4]).toBe('sig');
  });

  it('records a refusal of the bytes as FAILED without confirming', async () => {
    const { log, stages } = fakeSteps({ submit: async () => ({ rejected: 'insufficient funds for rent' }) });
    const answer = await run(stages.deliver, request, resolved(), built, signed, 0, false);
    expect(log).toEqual(['submit', 'record']);
    expect(answer).toMatchObject({ expired: false, result: { transaction: { status: 'FAILED', success: false } } });
  });

  it('goes on to confirm after three failed sends (the bytes may have arrived)', async () => {
    const { log, stages } = fakeSteps({
      submit: async () => {
        throw new Error('ECONNRESET');
      },
    });
    const answer = await run(stages.deliver, request, resolved(), built, signed, 0, false);
    expect(log).toEqual(['submit', 'submit', 'submit', 'confirm', 'record']);
    expect(answer).toMatchObject({ expired: false, result: { transaction: { status: 'CONFIRMED' } } });
  });

  it('answers a proven expiry without recording it while another lifetime is allowed', async () => {
    const { log, stages } = fakeSteps({ confirm: async () => ({ status: 'EXPIRED' }) });
    expect(await run(stages.deliver, request, resolved(), built, signed, 0, false)).toEqual({ expired: true });
    expect(log).toEqual(['submit', 'confirm']);
  });

  it('records the expiry on the last lifetime', async () => {
    const { log, stages } = fakeSteps({ confirm: async () => ({ status: 'EXPIRED' }) });
    const answer = await run(stages.deliver, request, resolved(), built, signed, 0, true);
    expect(log).toEqual(['submit', 'confirm', 'record']);
    expect(answer).toMatchObject({ expired: false, result: { transaction: { status: 'EXPIRED' } } });
  });

  it('fails when confirm cannot reach the network, so Temporal retries the whole delivery with the same bytes', async () => {
    const sent: unknown[] = [];
    const { stages } = fakeSteps({
      submit: async (_request, bytes) => {
        sent.push(bytes);
        return { rejected: null };
      },
      confirm: async () => {
        throw new Error('fetch failed');
      },
    });
    await expect(run(stages.deliver, request, resolved(), built, signed, 0, false)).rejects.toThrow('fetch failed');
    await expect(run(stages.deliver, request, resolved(), built, signed, 0, false)).rejects.toThrow('fetch failed');
    expect(sent).toEqual([signed, signed]);
  });
});
