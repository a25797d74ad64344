/**
 * The contract of a loan's own workflow (docs/loans.md): its id, its input, the query, signal and
 * update it answers and the search attributes operators find it by. JSON-safe: it lives in workflow history.
 */
import { GRACE_HOURS } from './loans';
import type { Operation, WriteRequest } from './write';
import { organizationSegment, type OrganizationIds } from './workflow-ids';

export const loanWorkflowType = 'loanLifecycle';

/**
 * `loan-<organization's external id>-<escrow address>`: one per loan, started idempotently when
 * Create Loan lands. Loans created before this release run as `legacyLoanWorkflowId` (docs/loans.md:
 * whoever looks a loan's workflow up tries this id, then that one).
 */
export const loanWorkflowId = (organization: OrganizationIds, escrow: string) => `loan-${organizationSegment(organization)}-${escrow}`;
/** The id of a loan created before workflow ids named the organization by its external id. */
export const legacyLoanWorkflowId = (organizationId: string, escrow: string) => `loan-${organizationId}-${escrow}`;
/** The rollover write of a loan's term that ends at `maturityAt` (ms): one per term. `organization`: organizationSegment's (the internal id in older runs). */
export const rolloverWorkflowId = (organization: string, loanId: string, maturityAt: string) =>
  `rollover-loan-${organization}-${loanId}-${Date.parse(maturityAt)}`;
/** The liquidation write of a loan: one per loan, whatever runs it. `organization`: organizationSegment's (the internal id in older runs). */
export const liquidationWorkflowId = (organization: string, loanId: string) => `liquidate-loan-${organization}-${loanId}`;

export interface LoanLifecycleInput {
  organizationId: string;
  organizationExternalId: string;
  /** The API key of the Create Loan: the loan's own writes (liquidation) act for it. */
  apiKeyId: string;
  cluster: string;
  loanId: string;
  escrow: string;
  borrower: string;
  /** The lender's address and the strategy's (`loanStrategyAddress`): search attributes (absent in runs started before they were). */
  lender?: string;
  strategy?: string;
  /** ISO timestamp: when the current term ends. */
  maturityAt: string;
  /** A settled status when a movement started it again after it had ended (it takes the movement and ends). */
  status: 'OPEN' | 'OVERDUE' | 'REPAID' | 'LIQUIDATED' | 'CLOSED';
  /** How long an OVERDUE loan waits before liquidation (48 h, shortened with LOAN_SECONDS_PER_DAY). */
  graceMs: number;
  /** Its strategy rolls it over at maturity (absent in runs started before the workflow kept it: known from its first reading of the loan). */
  rollover?: boolean;
}

/** What the loan waits for next, and when (the `nextAction` query). */
export interface LoanNextAction {
  action: 'MARK_OVERDUE' | 'ROLLOVER' | 'LIQUIDATE' | 'NONE';
  at: string | null;
  status: string;
}

/** The loan as its workflow holds it between wake-ups: what its next action follows from. */
export type LoanState = Pick<LoanLifecycleInput, 'status' | 'maturityAt' | 'graceMs' | 'rollover'>;

/**
 * What the loan's workflow does next and when: at maturity an OPEN loan starts a new term when its
 * strategy rolls over, else is marked OVERDUE; an OVERDUE one is liquidated after the grace period.
 */
export function nextActionOf(loan: LoanState): LoanNextAction {
  if (loan.status === 'OPEN') return { action: loan.rollover ? 'ROLLOVER' : 'MARK_OVERDUE', at: loan.maturityAt, status: loan.status };
  if (loan.status === 'OVERDUE') return { action: 'LIQUIDATE', at: new Date(Date.parse(loan.maturityAt) + loan.graceMs).toISOString(), status: loan.status };
  return { action: 'NONE', at: null, status: loan.status };
}

export const loanQueries = { nextAction: 'nextAction' } as const;
/** Sent after a write changed the loan (repaid, closed): the workflow reads the loan again at once. */
export const loanChangedSignal = 'loanChanged';

/**
 * Repay, Swap Collateral, Refinance and Close pass through the loan's workflow as this update
 * (docs/loans.md, "One movement of a loan at a time"); its update id is the write's workflow id.
 */
export const loanMovementUpdate = 'moveLoan';

/** The writes on a loan that go through its workflow (the liquidation and the rollover are its own). */
export const loanMovementOperations: readonly Operation[] = ['REPAY_LOAN', 'SWAP_COLLATERAL', 'REFINANCE_LOAN', 'CLOSE_LOAN'];

/** One movement of a loan, as the API would have started it: the write's request and its workflow task timeout. */
export interface LoanMovement {
  request: WriteRequest;
  workflowTaskTimeoutSeconds: number;
}

/**
 * Why a loan in `status` refuses the movement at once (the update's validator: nothing written), or
 * null when it may run. The write's own lookup checks again against the record when its turn comes.
 */
export function movementRefusal(status: string, operation: Operation): string | null {
  if (!loanMovementOperations.includes(operation)) return `${operation} is not a movement of a loan`;
  const settled = status === 'REPAID' || status === 'LIQUIDATED' || status === 'CLOSED';
  if (operation === 'CLOSE_LOAN')
    return status === 'REPAID' || status === 'LIQUIDATED' ? null : `the loan is ${status}: only a REPAID or LIQUIDATED loan is closed`;
  return settled ? `the loan is ${status}: it no longer moves` : null;
}

/** The loan's record, as far as its workflow's input needs it. */
export interface LoanRecordFields {
  id: string;
  cluster: string;
  escrowAddress: string;
  borrowerAddress: string;
  lenderAddress: string;
  strategyAddress: string;
  status: string;
  termStartAt: Date;
  maturityAt: Date;
  durationDays: number;
}

/**
 * The input a movement starts the loan's workflow with when none runs (update-with-start): the loan
 * as its record stands. The grace period scales with the loan's own day length, read from its term
 * (LOAN_SECONDS_PER_DAY when it began), as Create Loan's start does.
 */
export function lifecycleInputOf(loan: LoanRecordFields, organization: OrganizationIds, apiKeyId: string, rollover: boolean): LoanLifecycleInput {
  const termMs = loan.maturityAt.getTime() - loan.termStartAt.getTime();
  const secondsPerDay = loan.durationDays > 0 && termMs > 0 ? termMs / 1000 / loan.durationDays : 86_400;
  return {
    organizationId: organization.id,
    organizationExternalId: organization.externalId,
    apiKeyId,
    cluster: loan.cluster,
    loanId: loan.id,
    escrow: loan.escrowAddress,
    borrower: loan.borrowerAddress,
    lender: loan.lenderAddress,
    strategy: loan.strategyAddress,
    maturityAt: loan.maturityAt.toISOString(),
    status: loan.status as LoanLifecycleInput['status'],
    graceMs: GRACE_HOURS * 3600 * 1000 * (secondsPerDay / 86_400),
    rollover,
  };
}

/** The write holding the loan (`in_use_by_transaction_id`) and its record's status. */
export interface LoanHolder {
  transactionId: string;
  status: string;
}

/**
 * Why a movement is refused behind the write holding the loan, or null: that write rests, waiting on
 * people (approvers, signers, Submit Transaction) possibly for days, so the movement would wait as
 * long. SIGNED rests only for a write sent with submitTransaction: false (`submits` false); for
 * any other it is the moment between sign and submit.
 */
export function restingRefusal(holder: LoanHolder, submits: boolean): string | null {
  const waitsFor =
    holder.status === 'AWAITING_APPROVAL'
      ? 'approval'
      : holder.status === 'AWAITING_SIGNATURES'
        ? 'signatures'
        : holder.status === 'SIGNED' && !submits
          ? 'Submit Transaction'
          : null;
  return waitsFor ? `another write on this loan (transaction ${holder.transactionId}) waits for ${waitsFor}; retry once it has ended` : null;
}

export const loanSearchAttributeNames = {
  escrow: 'LedgerEscrow',
  borrower: 'LedgerBorrower',
  status: 'LedgerLoanStatus',
  nextMaturity: 'LedgerLoanNextMaturity',
  lender: 'LedgerLender',
  strategy: 'LedgerLoanStrategy',
} as const;

/** The loan as its workflow reads it at each wake-up. */
export interface LoanSnapshot {
  status: string;
  maturityAt: string;
  /** The loan's lender and strategy addresses (a refinance may move it to another strategy; absent in histories before they were search attributes). */
  lender?: string;
  strategy?: string;
  /** The strategy rolls its loans over at maturity (absent in histories before rollover existed). */
  rollover?: boolean;
  durationIndex?: number;
  /** Its loan-to-value at the latest prices is past the liquidation ratio (absent in histories before price liquidation existed). */
  pastLiquidationRatio?: boolean;
  /** The write holding the loan (absent in histories before movements behind a resting write were refused by the workflow). */
  heldBy?: LoanHolder | null;
}

/** Timers and the loop run at most this many times before the workflow continues as new (a loan of months keeps a short history). */
export const LOAN_ITERATIONS_BEFORE_CONTINUE = 50;
