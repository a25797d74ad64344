/**
 * One workflow per loan (docs/loans.md), `loan-<organization>-<escrow>`, started when Create Loan
 * lands: it sleeps on durable timers until the term is over, marks the loan OVERDUE, waits out the
 * grace period and liquidates it as a child `ledgerWrite` (so the movement has its records, limits
 * and webhooks like any write). It reads the loan at each wake-up (a repaid or closed loan ends it),
 * is told of changes by the `loanChanged` signal (writes on the loan, and each oracle refresh of one
 * of its instruments: past its liquidation ratio at the new prices, it is liquidated at once), answers `nextAction`, keeps its search attributes
 * current and continues as new after a bounded number of turns.
 */
import { condition, continueAsNew, defineQuery, defineSignal, executeChild, patched, proxyActivities, setHandler, sleep, upsertSearchAttributes, uuid4, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { liquidationWorkflowId, rolloverWorkflowId, LOAN_ITERATIONS_BEFORE_CONTINUE, loanChangedSignal, loanQueries, type LoanLifecycleInput, type LoanNextAction, type LoanSnapshot } from '../domain/loan-lifecycle';
import type { WriteRequest } from '../domain/write';
import { organizationSegment } from '../domain/workflow-ids';
import { loanSearchAttributes } from './loan-search-attributes';
import type { ledgerWrite } from './write.workflow';

type Activities = ReturnType<typeof createActivities>;

const records = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

export const nextActionQuery = defineQuery<LoanNextAction>(loanQueries.nextAction);
export const loanChanged = defineSignal<[]>(loanChangedSignal);

const settled = (status: string) => status === 'REPAID' || status === 'LIQUIDATED' || status === 'CLOSED';

/** A write the loan's own workflow starts (fixed id), acting for the API key that created the loan. */
function loanWrite(input: LoanLifecycleInput, operation: 'LIQUIDATE_LOAN' | 'REFINANCE_LOAN', workflowId: string, extra: Record<string, unknown> = {}): WriteRequest {
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
const organizationPart = (input: LoanLifecycleInput) => (patched('workflow-ids-external-organization') ? organizationSegment({ id: input.organizationId, externalId: input.organizationExternalId }) : input.organizationId);

async function runChild(request: WriteRequest): Promise<boolean> {
  try {
    const result = await executeChild<typeof ledgerWrite>('ledgerWrite', { workflowId: request.workflowId, args: [request], taskQueue: workflowInfo().taskQueue });
    if (!result.refusal) return true;
  } catch {
    // Failed, or refused by a write from before `write-refusal-completes` (it failed the child).
  }
  // Refused (e.g. repaid meanwhile): read the loan again after a pause.
  await sleep('10 seconds');
  return false;
}

export async function loanLifecycle(input: LoanLifecycleInput): Promise<string> {
  let state = { ...input };
  let changed = false;
  const next = (): LoanNextAction => {
    if (state.status === 'OPEN') return { action: 'MARK_OVERDUE', at: state.maturityAt, status: state.status };
    if (state.status === 'OVERDUE') return { action: 'LIQUIDATE', at: new Date(Date.parse(state.maturityAt) + state.graceMs).toISOString(), status: state.status };
    return { action: 'NONE', at: null, status: state.status };
  };
  setHandler(nextActionQuery, next);
  setHandler(loanChanged, () => {
    changed = true;
  });
  const show = (snapshot: LoanSnapshot) => {
    if (snapshot.status === state.status && snapshot.maturityAt === state.maturityAt) return;
    state = { ...state, status: snapshot.status as LoanLifecycleInput['status'], maturityAt: snapshot.maturityAt };
    upsertSearchAttributes(loanSearchAttributes(state));
  };

  for (let turn = 0; turn < LOAN_ITERATIONS_BEFORE_CONTINUE; turn++) {
    const due = next();
    if (due.action === 'NONE') return state.status;
    // Sleep until the next action is due, or until a write tells us the loan changed.
    const waitMs = Math.max(1, Date.parse(due.at!) - Date.now());
    await condition(() => changed, waitMs);
    changed = false;
    const snapshot = await records.loanSnapshot(state.loanId);
    if (!snapshot) return 'GONE';
    show(snapshot);
    // A price refresh (or any change) may have put the loan past its liquidation ratio: collateral to the lender now.
    if (!settled(snapshot.status) && snapshot.pastLiquidationRatio && patched('loan-price-liquidation')) {
      await runChild(loanWrite(state, 'LIQUIDATE_LOAN', liquidationWorkflowId(organizationPart(state), state.loanId)));
      const after = await records.loanSnapshot(state.loanId);
      if (after) show(after);
      continue;
    }
    if (settled(snapshot.status) || Date.now() < Date.parse(next().at ?? '')) continue;
    if (state.status === 'OPEN' && snapshot.rollover && patched('loan-rollover')) {
      // The strategy rolls its loans over: a new term (a child refinance write), interest capitalised.
      await runChild(loanWrite(state, 'REFINANCE_LOAN', rolloverWorkflowId(organizationPart(state), state.loanId, state.maturityAt), { durationIndex: snapshot.durationIndex ?? 0 }));
      const after = await records.loanSnapshot(state.loanId);
      if (after) show(after);
    } else if (state.status === 'OPEN') {
      const marked = await records.markLoanOverdue(state.loanId);
      if (marked) show(marked);
    } else if (state.status === 'OVERDUE') {
      await runChild(loanWrite(state, 'LIQUIDATE_LOAN', liquidationWorkflowId(organizationPart(state), state.loanId)));
      const after = await records.loanSnapshot(state.loanId);
      if (after) show(after);
    }
  }
  return continueAsNew<typeof loanLifecycle>(state);
}
