/**
 * One workflow per loan (docs/loans.md), `loan-<organization>-<escrow>`, started when Create Loan
 * lands: it sleeps on durable timers until the term is over, marks the loan OVERDUE, waits out the
 * grace period and liquidates it as a child `ledgerWrite` (so the movement has its records, limits
 * and webhooks like any write). It reads the loan at each wake-up (a repaid or closed loan ends it),
 * is told of changes by the `loanChanged` signal (writes on the loan, and each oracle refresh of one
 * of its instruments: past its liquidation ratio at the new prices, it is liquidated at once), answers `nextAction`, keeps its search attributes
 * current and continues as new after a bounded number of turns.
 *
 * Repay, Swap Collateral, Refinance and Close come in as the `moveLoan` update (sent with
 * update-with-start: a movement starts the workflow again when it had ended): the validator refuses
 * at once what the loan's state refuses (nothing written to history), the handler refuses one behind
 * a write that rests, else runs the write as a child `ledgerWrite` with the workflow id the write
 * client would have used, one movement at a time (the liquidation and the rollover take their turn
 * too), then reads the loan again.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createActivities } from '../activities';
import {
  liquidationWorkflowId,
  rolloverWorkflowId,
  LOAN_ITERATIONS_BEFORE_CONTINUE,
  loanChangedSignal,
  loanMovementUpdate,
  loanQueries,
  movementRefusal,
  nextActionOf,
  restingRefusal,
  type LoanLifecycleInput,
  type LoanMovement,
  type LoanNextAction,
  type LoanSnapshot,
} from '../domain/loan-lifecycle';
import { searchAttributeNames, type WriteRequest, type WriteResult } from '../domain/write';
import { organizationSegment } from '../domain/workflow-ids';
import { loanSearchAttributes } from './loan-search-attributes';
import { writeStartOptions } from './write/start-options';
import { stepSummary } from './write/proxies';
import type { ledgerWrite } from './write/write.workflow';
import { oneAtATime, type Turn } from './one-at-a-time';

type Activities = ReturnType<typeof createActivities>;

/** The loan's activities, each with its summary in the Web UI's timeline (fixed words, never a value from a request). */
const records = (summary: string) =>
  proxyActivities<Activities>({
    startToCloseTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
    summary,
  });

export const nextActionQuery = defineQuery<LoanNextAction>(loanQueries.nextAction);
export const loanChanged = defineSignal<[]>(loanChangedSignal);
/**
 * A movement of the loan (Repay, Swap Collateral, Refinance, Close): answers the write's result, null
 * when its workflow id had already run (the API reads that run's result), or fails with the write's refusal.
 */
export const moveLoan = defineUpdate<WriteResult | null, [LoanMovement]>(loanMovementUpdate);

const settled = (status: string) => status === 'REPAID' || status === 'LIQUIDATED' || status === 'CLOSED';

/** A write the loan's own workflow starts (fixed id), acting for the API key that created the loan. */
function loanWrite(
  input: LoanLifecycleInput,
  operation: 'LIQUIDATE_LOAN' | 'REFINANCE_LOAN',
  workflowId: string,
  extra: Record<string, unknown> = {},
): WriteRequest {
  return {
    operation,
    transactionId: uuid4(),
    workflowId,
    organizationId: input.organizationId,
    organizationExternalId: input.organizationExternalId,
    apiKeyId: input.apiKeyId,
    cluster: input.cluster,
    idempotencyKey: workflowId,
    commitment: 'confirmed',
    submit: true,
    itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: input.escrow }, ...extra },
    svmTransactionConfig: {},
  };
}

/** The organization in the ids of the loan's writes: its external id (the internal one in runs from before the patch). */
const organizationPart = (input: LoanLifecycleInput) =>
  patched('workflow-ids-external-organization')
    ? organizationSegment({ id: input.organizationId, externalId: input.organizationExternalId })
    : input.organizationId;

/**
 * What the loan's writes start with: what the write client gives a write (its search attributes,
 * LedgerStatus PENDING, the Web UI's summary). Histories from before `loan-writes-start-options`
 * started a movement with three search attributes and the liquidation and rollover with none.
 */
function startOptions(request: WriteRequest, movement: boolean) {
  const options = writeStartOptions(request);
  if (patched('loan-writes-start-options')) return options;
  return movement ? { typedSearchAttributes: options.typedSearchAttributes.filter((pair) => pair.key.name !== searchAttributeNames.status) } : {};
}

/**
 * The workflow's own write (liquidation, rollover) in its turn, if `still` holds when the turn comes (a
 * movement before it may have settled the loan or begun a new term); the pause after a refusal is outside the turn.
 */
async function runChild(request: WriteRequest, own: Turn, still: () => boolean): Promise<boolean> {
  const ran = await own(async () => {
    if (!still()) return true;
    try {
      const result = await executeChild<typeof ledgerWrite>('ledgerWrite', {
        workflowId: request.workflowId,
        args: [request],
        taskQueue: workflowInfo().taskQueue,
        ...startOptions(request, false),
      });
      return !result.refusal;
    } catch {
      // Failed, or refused by a write from before `write-refusal-completes` (it failed the child).
      return false;
    }
  });
  // Refused (e.g. repaid meanwhile): read the loan again after a pause.
  if (!ran) await sleep('10 seconds');
  return ran;
}

/**
 * A movement the API sent: the write's own workflow as a child, with the API's id, search attributes
 * and request (idempotency, Fetch Transaction Status, approvals, webhooks and signatures work as for
 * a write the API starts). The child outlives the loan's workflow (ABANDON): a write is never cut off.
 * A refusal is the write's result (`refusal`), answered by the API as for any write.
 */
async function runMovement({ request, workflowTaskTimeoutSeconds }: LoanMovement): Promise<WriteResult | null> {
  try {
    return await executeChild<typeof ledgerWrite>('ledgerWrite', {
      workflowId: request.workflowId,
      args: [request],
      taskQueue: workflowInfo().taskQueue,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      parentClosePolicy: 'ABANDON',
      workflowTaskTimeout: `${workflowTaskTimeoutSeconds}s`,
      ...startOptions(request, true),
    });
  } catch (error) {
    // This write ran before (a repeat after continue-as-new, or started by the API itself): its run holds the answer.
    if (error instanceof WorkflowExecutionAlreadyStartedError) return null;
    // A write that failed (a fault, or terminated): the update fails with it, and the API answers from the write's run.
    if (error instanceof ChildWorkflowFailure && error.cause instanceof ApplicationFailure) throw error.cause;
    throw error;
  }
}

/** A movement's refusal: 409 CONFLICT naming the escrow. */
const conflictFailure = (why: string) =>
  ApplicationFailure.create({ type: 'CONFLICT', message: why, nonRetryable: true, details: [{ field: 'itemData.escrow', context: {} }] });

/** The validator's refusal: the loan's state refuses the movement. */
function refuseMovement(status: string, { request }: LoanMovement): void {
  const why = movementRefusal(status, request.operation);
  if (why) throw conflictFailure(why);
}

export async function loanLifecycle(input: LoanLifecycleInput): Promise<string> {
  let state = { ...input };
  let changed = false;
  const next = (): LoanNextAction => nextActionOf(state);
  setHandler(nextActionQuery, next);
  setHandler(loanChanged, () => {
    changed = true;
  });
  const show = (snapshot: LoanSnapshot) => {
    // The strategy's rollover (a refinance may have moved the loan to another strategy): `nextAction` only.
    state = { ...state, rollover: snapshot.rollover ?? state.rollover };
    // A refinance onto another strategy (and lender), or a run begun before LedgerLender/LedgerLoanStrategy existed.
    const moved = (snapshot.lender ?? state.lender) !== state.lender || (snapshot.strategy ?? state.strategy) !== state.strategy;
    if (snapshot.status === state.status && snapshot.maturityAt === state.maturityAt && !(moved && patched('loan-lender-strategy-attributes'))) return;
    state = {
      ...state,
      status: snapshot.status as LoanLifecycleInput['status'],
      maturityAt: snapshot.maturityAt,
      lender: snapshot.lender ?? state.lender,
      strategy: snapshot.strategy ?? state.strategy,
    };
    upsertSearchAttributes(loanSearchAttributes(state));
  };
  // One movement of the loan at a time: the movements sent to it (updates) and the workflow's own.
  const queue = oneAtATime();
  let taken = 0;
  /** The movement whose write runs in the turn now (its request: whether it rests at SIGNED). */
  let moving: WriteRequest | null = null;
  const inTurn: Turn = async (step) => {
    taken++;
    try {
      return await queue(step);
    } finally {
      taken--;
    }
  };
  // Old histories (before updates) ran their own movements directly: they replay the same way.
  const own: Turn = (step) => (patched('loan-movement-updates') ? inTurn(step) : step());
  /**
   * Why a movement arriving while the turn is taken is refused: the write holding the loan rests
   * (docs/loans.md). Asked when it arrives, never in its turn, so it does not wait days to hear it.
   */
  const behindResting = async (): Promise<string | null> => {
    const holder = (await records('read the loan').loanSnapshot(state.loanId))?.heldBy;
    return holder ? restingRefusal(holder, !(moving?.transactionId === holder.transactionId && moving.submit === false)) : null;
  };
  setHandler(
    moveLoan,
    async (movement) => {
      // Histories from before this check queued every movement: they replay the same way.
      const refusal = taken > 0 && patched('movement-behind-resting-write') ? behindResting() : null;
      // It takes its place in the queue at once (arrival order), and gives it up if refused.
      const run = inTurn(async () => {
        if (refusal && (await refusal)) return null;
        moving = movement.request;
        try {
          return await runMovement(movement);
        } finally {
          moving = null;
          // The state follows the record, whatever the write ended with; the loop looks again too.
          const after = await records('read the loan').loanSnapshot(state.loanId);
          if (after) show(after);
          changed = true;
        }
      });
      const why = refusal && (await refusal);
      if (why) {
        // A PENDING record made for a respond-async request ends FAILED with the refusal, as a refused write's.
        await records(stepSummary(movement.request.operation, 'record FAILED')).recordFailure(movement.request, 'CONFLICT', why);
        throw conflictFailure(why);
      }
      return run;
    },
    { validator: (movement) => refuseMovement(state.status, movement) },
  );
  // A run ends (or continues as new) only once every movement it accepted has ended.
  const settle = async <T>(value: () => T): Promise<T> => {
    await condition(allHandlersFinished);
    return value();
  };

  const unsettled = () => !settled(state.status);

  for (let turn = 0; turn < LOAN_ITERATIONS_BEFORE_CONTINUE; turn++) {
    const due = next();
    if (due.action === 'NONE') return settle(() => state.status);
    // Sleep until the next action is due, or until a write tells us the loan changed.
    const waitMs = Math.max(1, Date.parse(due.at!) - Date.now());
    await condition(() => changed, waitMs);
    changed = false;
    const snapshot = await records('read the loan').loanSnapshot(state.loanId);
    if (!snapshot) return settle(() => 'GONE');
    show(snapshot);
    // A price refresh (or any change) may have put the loan past its liquidation ratio: collateral to the lender now.
    if (!settled(snapshot.status) && snapshot.pastLiquidationRatio && patched('loan-price-liquidation')) {
      await runChild(loanWrite(state, 'LIQUIDATE_LOAN', liquidationWorkflowId(organizationPart(state), state.loanId)), own, unsettled);
      const after = await records('read the loan').loanSnapshot(state.loanId);
      if (after) show(after);
      continue;
    }
    if (settled(snapshot.status) || Date.now() < Date.parse(next().at ?? '')) continue;
    if (state.status === 'OPEN' && snapshot.rollover && patched('loan-rollover')) {
      // The strategy rolls its loans over: a new term (a child refinance write), interest capitalised.
      const term = state.maturityAt;
      await runChild(
        loanWrite(state, 'REFINANCE_LOAN', rolloverWorkflowId(organizationPart(state), state.loanId, term), { durationIndex: snapshot.durationIndex ?? 0 }),
        own,
        () => state.status === 'OPEN' && state.maturityAt === term,
      );
      const after = await records('read the loan').loanSnapshot(state.loanId);
      if (after) show(after);
    } else if (state.status === 'OPEN') {
      const marked = await own(() => records('mark the loan OVERDUE').markLoanOverdue(state.loanId));
      if (marked) show(marked);
    } else if (state.status === 'OVERDUE') {
      await runChild(loanWrite(state, 'LIQUIDATE_LOAN', liquidationWorkflowId(organizationPart(state), state.loanId)), own, unsettled);
      const after = await records('read the loan').loanSnapshot(state.loanId);
      if (after) show(after);
    }
  }
  await condition(allHandlersFinished);
  return continueAsNew<typeof loanLifecycle>(state);
}
