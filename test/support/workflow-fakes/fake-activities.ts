/**
 * Fake activities for workflow-layer tests: plain objects that record every attempt of each pipeline
 * step and end (name, args, and what they returned) and answer with small canned values; the steps
 * are grouped into the workflow's activities by the real `createStages`. A test overrides only the
 * steps it is about.
 */
import type { createActivities, Steps } from '../../../src/activities';
import { createStages } from '../../../src/activities/pipeline/stages';
import type { BuiltTransaction, Outcome, Resolved, TransactionResult, TransactionStatus, WriteRequest, WriteResult } from '../../../src/domain/write';

export type Activities = ReturnType<typeof createActivities>;
/** What a test fakes: the pipeline steps and the activities that are not made of steps. */
export type Fakeable = Steps & Omit<Activities, keyof ReturnType<typeof createStages>>;
export type ActivityName = keyof Fakeable;

export interface Call {
  name: ActivityName;
  args: unknown[];
  /** What the attempt returned; absent when it threw. */
  returned?: unknown;
}

export interface FakeActivities {
  readonly calls: Call[];
  readonly activities: Activities;
  /** Activity names in the order the attempts started. */
  names(): ActivityName[];
  /** Arguments of every attempt of one activity. */
  argsOf(name: ActivityName): unknown[][];
  /** Return values of the successful attempts of one activity. */
  returnsOf(name: ActivityName): unknown[];
}

export function writeRequest(workflowId: string, overrides: Partial<WriteRequest> = {}): WriteRequest {
  return {
    operation: 'CREATE_ACCOUNT',
    transactionId: `txn-${workflowId}`,
    newRecordId: `acc-${workflowId}`,
    workflowId,
    organizationId: 'org-1',
    organizationExternalId: 'org-ext-1',
    apiKeyId: 'key-1',
    cluster: 'LOCAL',
    idempotencyKey: workflowId,
    commitment: 'confirmed',
    submit: true,
    itemData: { managed: true },
    svmTransactionConfig: {},
    ...overrides,
  };
}

export function resolved(overrides: Partial<Resolved> = {}): Resolved {
  return {
    needsTransaction: true,
    feePayer: 'FeePayer1111',
    signers: ['FeePayer1111', 'NewAccount1111'],
    debits: [],
    webhooks: { preSubmit: false, postSubmit: false },
    data: { address: 'NewAccount1111' },
    ...overrides,
  };
}

function transactionResult(request: WriteRequest, status: TransactionStatus, errorMessage: string | null = null): TransactionResult {
  return {
    success: status !== 'FAILED' && status !== 'EXPIRED' && status !== 'REJECTED',
    offchainId: request.transactionId,
    status,
    onchainId: null,
    confirmationsCount: null,
    serializedMessage: null,
    errorMessage,
    txnTimestamp: null,
  };
}

/** A reconciliation pass that found nothing. */
const noReconciliation = (cluster: string) => ({
  cluster,
  accountsChecked: 0,
  positionsChecked: 0,
  differences: 0,
  explained: 0,
  findings: 0,
  newFindings: 0,
  repaired: 0,
  resolved: 0,
  openFindings: 0,
});

/** Canned answers; every build (and so every sign) gets a distinct message and signature. */
function defaults(): Fakeable {
  let builds = 0;
  return {
    lookup: async () => resolved(),
    checkLimits: async () => undefined,
    build: async (): Promise<BuiltTransaction> => {
      builds += 1;
      return {
        messageBase64: `message-${builds}`,
        signers: ['FeePayer1111', 'NewAccount1111'],
        lifetime: { kind: 'BLOCKHASH', blockhash: `hash-${builds}`, lastValidBlockHeight: String(100 * builds) },
        size: 200,
      };
    },
    sign: async (_request: WriteRequest, built: BuiltTransaction) => ({
      signature: `sig-of-${built.messageBase64}`,
      wireBase64: `wire-of-${built.messageBase64}`,
    }),
    submit: async () => ({ rejected: null }),
    confirm: async (): Promise<Outcome> => ({ status: 'CONFIRMED', slot: '42', confirmations: 1 }),
    record: async (request: WriteRequest, _resolved: Resolved, outcome: Outcome | null): Promise<WriteResult> => ({
      transaction: outcome ? transactionResult(request, outcome.status, outcome.status === 'FAILED' ? outcome.errorMessage : null) : null,
      created: { onchainId: 'NewAccount1111', offchainId: request.newRecordId ?? 'none' },
    }),
    recordFailure: async () => null,
    startPostSubmitDelivery: async () => undefined,
    recordRejection: async (request: WriteRequest, reason: string): Promise<WriteResult> => ({ transaction: transactionResult(request, 'REJECTED', reason) }),
    callPreSubmitWebhooks: async () => 'OK' as const,
    callPostSubmitWebhooks: async () => undefined,
    replayWebhookEvent: async () => undefined,
    callMissingSignatureWebhooks: async () => undefined,
    addSignatures: async () => ({ signature: 'sig', wireBase64: 'wire' }),
    isLifetimeOver: async () => false,
    recordCancellation: async () => null,
    endApproval: async () => 'EXPIRED',
    loanSnapshot: async () => null,
    markLoanOverdue: async () => null,
    followChain: async (cluster: string) => ({
      cluster,
      slot: 0,
      tipSlot: 0,
      caughtUp: true,
      lagSlots: 0,
      lagSeconds: 0,
      recorded: 0,
      updatedAt: new Date(0).toISOString(),
    }),
    callNetworkTransactionWebhooks: async () => undefined,
    callLeftChainWebhooks: async () => undefined,
    reconciliationClusters: async () => [],
    reconcileCluster: async ({ cluster }) => noReconciliation(cluster),
  };
}

/** The workflow's activities over (recorded) fakes, with the steps they group (the previous workflow shape's activities). */
function compose(fakes: Fakeable): Activities & Steps {
  return { ...fakes, ...createStages(fakes) };
}

/** Every activity answering its canned value at once, nothing recorded (the benchmark's no-op activities too). */
export const cannedActivities = () => compose(defaults());

export function fakeActivities(overrides: Partial<Fakeable> = {}): FakeActivities {
  const calls: Call[] = [];
  const answers = { ...defaults(), ...overrides } as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const activities = {} as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const [name, answer] of Object.entries(answers)) {
    activities[name] = async (...args: unknown[]) => {
      const call: Call = { name: name as ActivityName, args };
      calls.push(call);
      const returned = await answer(...args);
      call.returned = returned;
      return returned;
    };
  }
  return {
    calls,
    activities: compose(activities as unknown as Fakeable),
    names: () => calls.map((c) => c.name),
    argsOf: (name) => calls.filter((c) => c.name === name).map((c) => c.args),
    returnsOf: (name) => calls.filter((c) => c.name === name && 'returned' in c).map((c) => c.returned),
  };
}

/**
 * One activity set for a worker shared by a file's tests: each call goes to the fakes registered
 * for its request's workflowId (every activity takes the WriteRequest first), so cases stay apart.
 */
export function routedActivities(fakesFor: (workflowId: string) => FakeActivities): Activities {
  const routed = {} as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of Object.keys(cannedActivities())) {
    routed[name] = (...args: unknown[]) => {
      const request = args[0] as WriteRequest;
      const target = (fakesFor(request.workflowId).activities as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name];
      return target(...args);
    };
  }
  return routed as unknown as Activities;
}

/** A promise with its resolver outside, for steps that block until the test lets them go. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
