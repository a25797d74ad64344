/**
 * Refinance Loan (spec 4.4), two ways (docs/loans.md):
 * - with the same lender, and the rollover a strategy with `rollover: true` makes at maturity (the
 *   loan's workflow runs it as a child write): a new term for durationIndex at the strategy's current
 *   rate, the accrued interest added to principalDue. No value moves, so no network transaction: the
 *   loan's record changes in the record step.
 * - to another strategy (`toLender` names its vault): in one network transaction the new vault pays
 *   the old one what the loan owes (principal and interest to the lookup), and the loan becomes the
 *   new strategy's, at its rate, for a new term that starts when the transaction lands. The guards
 *   are Create Loan's, on the new strategy.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FinancialInstrument, Loan, LoanStrategy } from '../../../db/entities';
import { findAccountByLookup, type TenantScope } from '../../../db/repositories/accounts.repository';
import type { RefinanceLoanItemData } from '../../../domain/operations/loans/loan.inputs';
import { interestAt } from '../../../domain/loans';
import { requireOriginations, type LoanQuote } from '../../../domain/operations/loans/lending.rules';
import {
  checkMoveLoanToValue,
  isSameLender,
  quoteOf,
  refinancedLoanFields,
  requireBorrowedItem,
  requireFromLender,
  requireNamedBorrower,
  requireRefinanceable,
  requireSamePrincipal,
  requireStrategyVault,
  TO_LENDER as T,
  type RefinancedTerms,
} from '../../../domain/operations/loans/refinance-loan.rules';
import { legInstructions } from '../../../domain/operations/positions/movement-instructions';
import type { Leg } from '../../../domain/operations/positions/movement.rules';
import type { ActivityDeps } from '../../deps';
import { resolveFeePayer, offchainOnly } from '../fee-payer';
import { changeLoan, heldLoan, planOutOf, requireBorrowerOwns, requireLoanBorrower, vaultPosition } from './loan-legs';
import { currentLoanToValue } from './loan-value';
import { newPlanContext, onchainBalance, recordLeg } from '../positions/movement-legs';
import { landed, scopeOf, type OperationHandler, type OperationRequest, type OperationResolved } from '../operation-handler';
import { requireCapacity } from './strategy-guards';
import { signerSet } from '../../../domain/write';

interface RefinanceLoanData extends RefinancedTerms {
  loanId: string;
  /** Set when the loan moves to another strategy: its new vault pays the old one off. */
  to?: {
    strategyId: string;
    vault: string;
    lender: { address: string; id: string };
    /** Interest accrued to the lookup, base units: the payoff is principalDue plus this. */
    interest: string;
    legs: Leg[];
  };
}

/**
 * The strategy `toLender` moves the loan to, or null for the same lender's rollover (toLender
 * omitted, the loan's lender, or its strategy's vault). Any other account must be a strategy's vault.
 */
async function targetStrategy(em: EntityManager, scope: TenantScope, loan: Loan, lookup: RefinanceLoanItemData['toLender']): Promise<LoanStrategy | null> {
  if (!lookup) return null;
  const account = await findAccountByLookup(em, scope, lookup, T);
  if (isSameLender(loan, account.address)) return null;
  return requireStrategyVault(await em.findOne(LoanStrategy, { ...scope, vaultAddress: account.address }), account.address);
}

/**
 * To another strategy: Create Loan's guards on it (same principal, collateral accepted, originations
 * on, cap, buffer, loan-to-value at oracle prices within its limit), then the one movement, the
 * payoff from the new vault's position into the old vault's. The borrower pays the fees.
 */
async function moveTo(
  em: EntityManager,
  deps: ActivityDeps,
  request: OperationRequest<RefinanceLoanItemData>,
  loan: Loan,
  strategy: LoanStrategy,
  principal: FinancialInstrument,
  base: Omit<RefinanceLoanData, 'to' | keyof LoanQuote | 'apy'>,
): Promise<OperationResolved<RefinanceLoanData>> {
  const scope = scopeOf(request);
  await requireLoanBorrower(em, scope, request, loan);
  const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig);
  requireSamePrincipal(strategy, loan);
  const quote = quoteOf(strategy, loan, request.itemData.durationIndex, T);
  requireOriginations(strategy, strategy.vaultAddress, T);

  const now = deps.now();
  const interest = interestAt(loan, now);
  const payoff = BigInt(loan.principalDue) + interest;
  const newVault = await vaultPosition(em, scope, strategy.vaultAddress, principal, T);
  const oldVault = await vaultPosition(em, scope, loan.strategyAddress, principal, 'itemData.fromLender');
  const ctx = newPlanContext(em, deps, request, {});
  await requireCapacity(em, strategy, principal, payoff, await onchainBalance(ctx, newVault), T);
  checkMoveLoanToValue(await currentLoanToValue(em, deps, loan, now, 'itemData.escrow'), quote);

  const planned = await planOutOf(ctx, newVault, principal, { position: { offchainId: oldVault.id } }, { lamports: payoff.toString() }, T, {
    source: T,
    destination: 'itemData.fromLender',
  });
  return {
    needsTransaction: true,
    feePayer: feePayer.address,
    signers: signerSet(feePayer.address, planned.signers),
    awaitedSigners: [...ctx.awaited].filter((signer) => signer !== feePayer.address),
    debits: planned.debits,
    webhooks: feePayer.webhooks,
    data: {
      ...base,
      apy: quote.apy,
      loanToValueRatio: quote.loanToValueRatio,
      liquidationRatio: quote.liquidationRatio,
      to: {
        strategyId: strategy.id,
        vault: strategy.vaultAddress,
        lender: { address: strategy.lenderAddress, id: strategy.lenderAccountId },
        interest: interest.toString(),
        legs: [planned.leg],
      },
    },
  };
}

export const refinanceLoanHandler: OperationHandler<RefinanceLoanItemData, RefinanceLoanData> = {
  holdsLoan: true,
  async lookup(em, deps, request) {
    const item = request.itemData;
    const { scope, loan } = await heldLoan(em, request, requireRefinanceable);
    // fromLender names the loan's lender (its account, or its strategy's vault).
    if (item.fromLender) {
      const from = await findAccountByLookup(em, scope, item.fromLender, 'itemData.fromLender');
      requireFromLender(loan, from.address);
    }
    if (item.borrower) requireNamedBorrower(loan, (await findAccountByLookup(em, scope, item.borrower, 'itemData.borrower')).address);
    const principal = await em.findOneOrFail(FinancialInstrument, { id: loan.principalInstrumentId });
    // borrowedItem names the borrower's position of the principal; nothing moves to it.
    if (item.borrowedItem)
      requireBorrowedItem(principal, await requireBorrowerOwns(em, scope, loan.borrowerAddress, item.borrowedItem, 'itemData.borrowedItem'));
    const base = { loanId: loan.id, durationIndex: item.durationIndex, secondsPerDay: deps.loanSecondsPerDay ?? 86_400 };
    const target = await targetStrategy(em, scope, loan, item.toLender);
    if (target) return moveTo(em, deps, request, loan, target, principal, base);

    // The loan's own workflow (rollover) names no fee payer; a caller names the borrower.
    if (request.svmTransactionConfig.feePayer) await requireLoanBorrower(em, scope, request, loan);
    const strategy = await em.findOneOrFail(LoanStrategy, { id: loan.strategyId });
    const quote = quoteOf(strategy, loan, item.durationIndex, 'itemData.escrow');
    const data: RefinanceLoanData = { ...base, apy: quote.apy, loanToValueRatio: quote.loanToValueRatio, liquidationRatio: quote.liquidationRatio };
    return offchainOnly(deps.feePayerAddress, data);
  },

  instructions(_request, resolved) {
    return (resolved.data.to?.legs ?? []).flatMap((leg) => legInstructions(leg, resolved.feePayer));
  },

  async record(em, request, resolved, outcome, tx, at) {
    const d = resolved.data;
    if (d.to ? !landed(outcome) : outcome) return undefined;
    for (const leg of d.to?.legs ?? []) await recordLeg(em, request, leg, tx, at);
    const loan = await em.findOneOrFail(Loan, { id: d.loanId });
    // Moved: the new lender lent what the old one was paid (interest to the lookup); the same lender's: interest to now.
    const interest = d.to ? BigInt(d.to.interest) : interestAt(loan, at);
    const lender = d.to
      ? { strategyId: d.to.strategyId, strategyAddress: d.to.vault, lenderAddress: d.to.lender.address, lenderAccountId: d.to.lender.id }
      : {};
    changeLoan(loan, { ...lender, ...refinancedLoanFields(loan, d, interest, at) }, tx, at, [loan.escrowAccountId], true);
    return { onchainId: loan.escrowAddress, offchainId: loan.escrowAccountId };
  },

  /** The same lender's rollover sends nothing: it answers its record (FINALIZED, onchainId null), as the other loan writes answer theirs. */
  answersOffchainRecord: true,
  /** The loan's workflow reads the loan again: its new term (and lender) set the next timer. */
  reconcilesOffchain: true,
  async reconcile(em, deps, request, resolved) {
    const loan = await em.findOneOrFail(Loan, { id: resolved.data.loanId });
    await deps.loans?.changed(request.organizationId, loan.escrowAddress);
  },
};
