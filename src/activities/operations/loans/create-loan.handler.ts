/**
 * Create Loan (spec 4.4, docs/loans.md) in the pipeline: a new escrow wallet (a managed key made
 * once per write); the pledged items into the escrow from the borrower's positions (topped up first
 * by transferFrom or mintAsset), the principal out of the strategy's vault to the borrower, all in
 * one network transaction signed by the borrower (the fee payer) and the vault. The guards run
 * before anything is signed; the loan's record is written with the movements' in the record step.
 */
import { Loan, LoanStrategy, Position, type FinancialInstrument } from '../../../db/entities';
import { createAccountRecord, createdBy } from '../../../db/repositories/accounts.repository';
import type { CreateLoanItemData } from '../../../domain/operations/loans/loan.inputs';
import { graceMsOf, type CollateralTerms } from '../../../domain/loans';
import {
  checkExpectedValues,
  checkOpeningLoanToValue,
  checkPledge,
  openedLoanRecord,
  type OpeningLoan,
  requireOneBorrow,
  requirePledges,
  requireStrategyPrincipal,
} from '../../../domain/operations/loans/create-loan.rules';
import { quoteFor, requireOriginations, type LoanQuote } from '../../../domain/operations/loans/lending.rules';
import { positiveUnits } from '../../../domain/operations/loans/loan.rules';
import { settleFreezes, type Leg } from '../../../domain/operations/positions/movement.rules';
import type { ActivityDeps } from '../../deps';
import { resolveFeePayer } from '../fee-payer';
import { loanToValueAt } from './loan-value';
import { borrowerOf, existingPosition, planIntoEscrow, planOutOf, planTopUp, requireBorrowerOwns, vaultPosition } from './loan-legs';
import { requireCapacity } from './strategy-guards';
import { legsInstructions, legsResolution, newPlanContext, onchainBalance, type PlannedLeg, recordLegs } from '../positions/movement-legs';
import { landed, scopeOf, type OperationHandler, type OperationRequest } from '../operation-handler';
import type { EntityManager } from '@mikro-orm/postgresql';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';

interface CreateLoanData extends OpeningLoan {
  legs: Leg[];
}

const P = 'itemData.protocolDetails';

/** The cap, the buffer and the loan-to-value (docs/loans.md): refused before anything is signed. */
async function checkGuards(
  em: EntityManager,
  deps: ActivityDeps,
  request: OperationRequest<CreateLoanItemData>,
  strategy: LoanStrategy,
  principal: FinancialInstrument,
  units: bigint,
  vaultUnits: bigint,
  pledged: { instrument: FinancialInstrument; units: bigint }[],
  quote: LoanQuote,
): Promise<void> {
  await requireCapacity(em, strategy, principal, units, vaultUnits, 'itemData.itemsToBorrow[0].value');
  const collateral = pledged.map((p, i) => ({ instrument: p.instrument, units: p.units, field: `itemData.itemsToPledge[${i}].positionLookup` }));
  checkOpeningLoanToValue(await loanToValueAt(deps, request.organizationId, principal, units, 'itemData.itemsToBorrow[0].positionLookup', collateral), quote);
}

export const createLoanHandler: OperationHandler<CreateLoanItemData, CreateLoanData> = {
  tooLargeHint:
    "Pledge fewer items at once (a frozen-by-default collateral adds thaw instructions), prefund the borrower's positions instead of transferFrom or mintAsset, and add the rest with Swap Collateral.",

  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    const vaultAddress = item.protocolDetails.loanStrategyAddress;
    const strategy = requireOriginations(await em.findOne(LoanStrategy, { ...scope, vaultAddress }), vaultAddress, `${P}.loanStrategyAddress`);

    const borrower = await borrowerOf(em, scope, request);
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig);

    const borrow = requireOneBorrow(item.itemsToBorrow);
    const principal = await requireBorrowerOwns(em, scope, borrower.address, borrow.positionLookup, 'itemData.itemsToBorrow[0].positionLookup');
    requireStrategyPrincipal(strategy, principal);
    if (borrow.transferTo) await requireBorrowerOwns(em, scope, borrower.address, borrow.transferTo, 'itemData.itemsToBorrow[0].transferTo');
    const units = positiveUnits(borrow.value, principal.decimals, 'itemData.itemsToBorrow[0].value');

    requirePledges(item.itemsToPledge);
    const pledged: { instrument: FinancialInstrument; units: bigint; terms: CollateralTerms }[] = [];
    for (const [i, pledge] of item.itemsToPledge.entries()) {
      const p = `itemData.itemsToPledge[${i}]`;
      const instrument = await requireBorrowerOwns(em, scope, borrower.address, pledge.positionLookup, `${p}.positionLookup`);
      if (pledge.transferFrom) await requireBorrowerOwns(em, scope, borrower.address, pledge.transferFrom, `${p}.transferFrom`);
      const { terms, units: amount } = checkPledge(
        strategy,
        instrument,
        pledge,
        p,
        pledged.map((x) => x.instrument.id),
      );
      pledged.push({ instrument, units: amount, terms });
    }

    const quote = quoteFor(
      pledged.map((p) => p.terms),
      item.protocolDetails.durationIndex,
      `${P}.durationIndex`,
    );
    checkExpectedValues(quote, item.protocolDetails.expectedLoanValues, `${P}.expectedLoanValues`);

    const vault = await vaultPosition(em, scope, strategy.vaultAddress, principal, `${P}.loanStrategyAddress`);
    const ctx = newPlanContext(em, deps, request, {});
    const vaultUnits = await onchainBalance(ctx, vault);
    await checkGuards(em, deps, request, strategy, principal, units, vaultUnits, pledged, quote);

    // Keyed by the write: a replayed lookup gets the same escrow.
    const escrow = await deps.keyStore.generate(em, request.organizationId, `${request.transactionId}:escrow`);
    const planned: PlannedLeg[] = [];
    for (const [i, pledge] of item.itemsToPledge.entries()) {
      const p = `itemData.itemsToPledge[${i}]`;
      planned.push(...(await planTopUp(ctx, pledge, p)));
      const source = await existingPosition(em, scope, pledge.positionLookup, `${p}.positionLookup`);
      planned.push(await planIntoEscrow(ctx, pledge.positionLookup, escrow, pledged[i].instrument, pledge.value, p, source?.frozen ?? false));
    }
    const b = 'itemData.itemsToBorrow[0]';
    planned.push(
      await planOutOf(ctx, vault, principal, borrow.transferTo ?? borrow.positionLookup, borrow.value, b, {
        source: `${P}.loanStrategyAddress`,
        destination: borrow.transferTo ? `${b}.transferTo` : `${b}.positionLookup`,
      }),
    );
    settleFreezes(planned.map((x) => x.leg));

    const data: CreateLoanData = {
      legs: planned.map((x) => x.leg),
      escrow,
      strategyId: strategy.id,
      strategyAddress: strategy.vaultAddress,
      borrower: { address: borrower.address, id: borrower.id },
      lender: { address: strategy.lenderAddress, id: strategy.lenderAccountId },
      principal: { id: principal.id, mint: principal.mintAddress, decimals: principal.decimals, units: units.toString() },
      pledged: pledged.map((p) => ({ financialInstrumentId: p.instrument.id, mintAddress: p.instrument.mintAddress, amount: p.units.toString() })),
      quote,
      durationIndex: item.protocolDetails.durationIndex,
      secondsPerDay: deps.loanSecondsPerDay ?? 86_400,
    };
    return legsResolution(ctx, feePayer, planned, data);
  },

  instructions: legsInstructions,

  async record(em, request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const d = resolved.data;
    await recordLegs(em, request, d.legs, tx, at);
    const escrowId = request.extraRecordIds!.escrow;
    createAccountRecord(
      em,
      {
        id: escrowId,
        ...scopeOf(request),
        address: d.escrow,
        type: 'DEFI_SETTLEMENT_WALLET',
        managed: true,
        comments: `escrow of loan ${request.newRecordId}`,
        ...createdBy(tx, at),
      },
      at,
    );
    await em.flush();
    // The escrow's positions were opened by the movements before its record existed.
    const escrowPositions = await em.find(Position, { ...scopeOf(request), ownerAddress: d.escrow });
    for (const position of escrowPositions) position.ownerAccountId = escrowId;
    em.create(Loan, { id: request.newRecordId!, ...scopeOf(request), ...openedLoanRecord(d, escrowId, escrowPositions, tx?.id ?? null, at) });
    linkRecords(tx, [escrowId], true);
    return { onchainId: d.escrow, offchainId: escrowId };
  },

  /** The loan's own workflow starts once its records exist (fixed id: a replay finds it started). */
  async reconcile(em, deps, request, resolved) {
    const loan = await em.findOneOrFail(Loan, { id: request.newRecordId! });
    await deps.loans?.start({
      organizationId: request.organizationId,
      organizationExternalId: request.organizationExternalId,
      apiKeyId: request.apiKeyId,
      cluster: request.cluster,
      loanId: loan.id,
      escrow: resolved.data.escrow,
      borrower: resolved.data.borrower.address,
      lender: loan.lenderAddress,
      strategy: loan.strategyAddress,
      maturityAt: loan.maturityAt.toISOString(),
      status: 'OPEN',
      graceMs: graceMsOf(resolved.data.secondsPerDay),
      // Its nextAction is the rollover from the start, when the strategy rolls its loans over.
      rollover: (await em.findOneOrFail(LoanStrategy, { id: loan.strategyId })).rollover,
    });
  },
};
