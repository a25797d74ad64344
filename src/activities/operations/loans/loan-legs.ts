/**
 * What the loan writes share: the lookups their rules need (the owner of a loan's positions, the
 * borrower, the vault's position, the loan of an escrow, its hold), each then checked by
 * loan.rules.ts; and the movements into and out of a loan's escrow and vault as ordinary movement
 * legs (planTransfer, planMint: balances, freeze rules, debits and records as any transfer), with
 * their refusals naming the loan request's own fields.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActivityDeps } from '../../deps';
import { Account, FinancialInstrument, Loan, LoanStrategy, Position, type LedgerTransaction } from '../../../db/entities';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { findAccountByLookup, type TenantScope } from '../../../db/repositories/accounts.repository';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { findPositionByLookup } from '../../../db/repositories/positions.repository';
import { LedgerError } from '../../../domain/errors';
import { holdLoan } from '../../../db/repositories/loan-holds.repository';
import { partTransactionId } from '../../../domain/ids';
import type { AccountLookupInput } from '../../../domain/inputs/common.inputs';
import type { PositionLookupInput, TransferOperation } from '../../../domain/operations/positions/position.inputs';
import type { ValueInput } from '../../../domain/money';
import type { LoanMovementItem } from '../../../domain/operations/loans/loan.inputs';
import {
  checkOutOfEscrow,
  requireBorrowerOwns as checkBorrowerOwns,
  requireFeePayer,
  requireHold,
  requireLoanBorrower as checkLoanBorrower,
  requireOwnerAndInstrument,
  requireLoanOfEscrow,
  requireVaultFunded,
  withLoanFieldNames,
} from '../../../domain/operations/loans/loan.rules';
import type { WriteRequest } from '../../../domain/write';
import type { Leg } from '../../../domain/operations/positions/movement.rules';
import { newPlanContext, onchainBalance, planMint, planTransfer, recordLegs, type PlanContext, type PlannedLeg } from '../positions/movement-legs';
import { resolveFeePayer, type FeePayer } from '../fee-payer';
import { scopeOf } from '../operation-handler';

/** Runs `plan` with its refusals' fields renamed as the loan request names them (withLoanFieldNames). */
export async function renamed<T>(plan: () => Promise<T>, names: Record<string, string>): Promise<T> {
  try {
    return await plan();
  } catch (error) {
    throw withLoanFieldNames(error, names);
  }
}

/** The owner account of a position lookup's position (the position's, or the lookup's owner for a position not opened yet). */
export async function ownerOfLookup(
  em: EntityManager,
  scope: TenantScope,
  lookup: PositionLookupInput,
  field: string,
): Promise<{ address: string; instrument: FinancialInstrument }> {
  if (lookup.position) {
    const position = await findPositionByLookup(em, scope, lookup, field);
    return { address: position.ownerAddress, instrument: await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId }) };
  }
  const named = requireOwnerAndInstrument(lookup, field);
  const owner = await findAccountByLookup(em, scope, named.owner, `${field}.owner`);
  return { address: owner.address, instrument: await findInstrumentByLookup(em, scope, named.financialInstrument, `${field}.financialInstrument`) };
}

/** The instrument of a position lookup the borrower owns (spec 4.4 rule 4, checkBorrowerOwns). */
export async function requireBorrowerOwns(
  em: EntityManager,
  scope: TenantScope,
  borrower: string,
  lookup: PositionLookupInput,
  field: string,
): Promise<FinancialInstrument> {
  const { address, instrument } = await ownerOfLookup(em, scope, lookup, field);
  checkBorrowerOwns(address, borrower, field);
  return instrument;
}

/** The borrower: the fee payer a loan write must name (spec 4.4 rule 3). */
export async function borrowerOf(em: EntityManager, scope: TenantScope, request: WriteRequest): Promise<Account> {
  return findAccountByLookup(em, scope, requireFeePayer(request.svmTransactionConfig.feePayer), 'svmTransactionConfig.feePayer');
}

/** The position a lookup names, or null when it is not opened yet (a top-up in the same transaction opens it). */
export async function existingPosition(em: EntityManager, scope: TenantScope, lookup: PositionLookupInput, field: string): Promise<Position | null> {
  try {
    return await findPositionByLookup(em, scope, lookup, field);
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

/** An account's associated position of an instrument, active, or null. */
export function associatedPosition(em: EntityManager, scope: TenantScope, owner: string, instrumentId: string): Promise<Position | null> {
  return em.findOne(Position, { ...scope, ownerAddress: owner, financialInstrumentId: instrumentId, associated: true, status: 'ACTIVE' });
}

/** A lookup of an account the service holds (the vault, the escrow), as a movement's owner lookup. */
const heldOwner = (address: string) => ({ onchainId: address, offPlatform: true });

/** The freeze options of a movement of a frozen-by-default instrument (spec 4.4 rule 6): thawed where needed, the source frozen again. */
function thawOptions(instrument: FinancialInstrument, sourceFrozen: boolean): Partial<TransferOperation> {
  if (instrument.defaultPositionState !== 'FROZEN') return {};
  return { unfreezeDestination: true, ...(sourceFrozen ? { unfreezeSource: true, freezeSource: true } : {}) };
}

/** Units from a position of the borrower (`lookup`, field `p.positionLookup`) into the escrow's position of the instrument, opened on the way. */
export async function planIntoEscrow(
  ctx: PlanContext,
  lookup: PositionLookupInput,
  escrow: string,
  instrument: FinancialInstrument,
  value: ValueInput,
  p: string,
  sourceFrozen: boolean,
): Promise<PlannedLeg> {
  const item: TransferOperation = {
    source: lookup,
    destination: { owner: heldOwner(escrow), financialInstrument: { offchainId: instrument.id } },
    value,
    initializeDestinationPositionIfNeeded: true,
    ...thawOptions(instrument, sourceFrozen),
  };
  const planned = await renamed(() => planTransfer(ctx, item, p), { [`${p}.source`]: `${p}.positionLookup`, [`${p}.destination`]: `${p}.positionLookup` });
  // The escrow is a managed account the service holds (its record is written with the loan's).
  for (const debit of planned.debits) if (debit.destination) debit.destination.class = 'MANAGED';
  return planned;
}

/** Units from a position the service holds (the vault's, the escrow's) to `destination`, opened on the way when it is an associated one. */
export async function planOutOf(
  ctx: PlanContext,
  source: Position,
  instrument: FinancialInstrument,
  destination: PositionLookupInput,
  value: ValueInput,
  p: string,
  names: { source: string; destination: string },
): Promise<PlannedLeg> {
  const item: TransferOperation = {
    source: { position: { offchainId: source.id } },
    destination,
    value,
    initializeDestinationPositionIfNeeded: true,
    ...thawOptions(instrument, source.frozen),
  };
  return renamed(() => planTransfer(ctx, item, p), { [`${p}.source`]: names.source, [`${p}.destination`]: names.destination });
}

/** Spec 4.4 rule 5: units minted into the borrower's position, or moved into it from another of the borrower's, before they go on (same transaction). */
export async function planTopUp(
  ctx: PlanContext,
  item: { positionLookup: PositionLookupInput; value: ValueInput; transferFrom?: PositionLookupInput; mintAsset?: boolean },
  p: string,
): Promise<PlannedLeg[]> {
  const legs: PlannedLeg[] = [];
  if (item.mintAsset)
    legs.push(await renamed(() => planMint(ctx, { mintTo: item.positionLookup, value: item.value }, p), { [`${p}.mintTo`]: `${p}.positionLookup` }));
  if (item.transferFrom) {
    const transfer: TransferOperation = {
      source: item.transferFrom,
      destination: item.positionLookup,
      value: item.value,
      initializeDestinationPositionIfNeeded: true,
    };
    legs.push(await renamed(() => planTransfer(ctx, transfer, p), { [`${p}.source`]: `${p}.transferFrom`, [`${p}.destination`]: `${p}.positionLookup` }));
  }
  return legs;
}

/** The vault's associated position of the principal (requireVaultFunded: it must exist). */
export async function vaultPosition(em: EntityManager, scope: TenantScope, vault: string, principal: FinancialInstrument, field: string): Promise<Position> {
  return requireVaultFunded(await associatedPosition(em, scope, vault, principal.id), vault, principal.mintAddress, field);
}

/** The loan whose escrow the lookup names (a lookup: 404 when the account is not a loan's escrow). */
export async function loanOfEscrow(em: EntityManager, scope: TenantScope, lookup: AccountLookupInput, field: string): Promise<Loan> {
  const escrow = await findAccountByLookup(em, scope, lookup, field);
  return requireLoanOfEscrow(await em.findOne(Loan, { ...scope, escrowAccountId: escrow.id }), escrow.address, field);
}

/** Holds the loan for this write (loan-holds.repository); another write on it in progress is 409. */
export async function holdLoanFor(em: EntityManager, request: WriteRequest, loan: Loan): Promise<void> {
  requireHold(await holdLoan(em, loan.id, partTransactionId(request.transactionId, 0)), loan.inUseByTransactionId);
}

/** A write on an existing loan: the loan whose escrow `itemData.escrow` names (404), held for this write (409), then checked by `rule`. */
export async function heldLoan(
  em: EntityManager,
  request: WriteRequest & { itemData: { escrow: AccountLookupInput } },
  rule: (loan: Loan) => void,
): Promise<{ scope: TenantScope; loan: Loan }> {
  const scope = scopeOf(request);
  const loan = await loanOfEscrow(em, scope, request.itemData.escrow, 'itemData.escrow');
  await holdLoanFor(em, request, loan);
  rule(loan);
  return { scope, loan };
}

/** A borrower's write on its loan (Repay, Swap, Close): heldLoan, then the fee payer, who must be the loan's borrower. */
export async function borrowersLoan(
  em: EntityManager,
  deps: ActivityDeps,
  request: WriteRequest & { itemData: { escrow: AccountLookupInput } },
  rule: (loan: Loan) => void,
): Promise<{ scope: TenantScope; loan: Loan; strategy: LoanStrategy; borrower: Account; feePayer: FeePayer; ctx: PlanContext }> {
  const { scope, loan } = await heldLoan(em, request, rule);
  const borrower = await requireLoanBorrower(em, scope, request, loan);
  const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig);
  const strategy = await em.findOneOrFail(LoanStrategy, { id: loan.strategyId });
  return { scope, loan, strategy, borrower, feePayer, ctx: newPlanContext(em, deps, request, {}) };
}

/**
 * Everything the escrow's active positions hold on the network (in address order) to the associated
 * positions of `toAccountId`, as legs without debits (Close's leftovers, Liquidate's seizure).
 */
export async function planEmptyEscrow(
  ctx: PlanContext,
  scope: TenantScope,
  escrowAddress: string,
  toAccountId: string,
): Promise<{ positions: Position[]; planned: PlannedLeg[] }> {
  const positions = await ctx.em.find(Position, { ...scope, ownerAddress: escrowAddress, status: 'ACTIVE' }, { orderBy: { address: 'asc' } });
  const planned: PlannedLeg[] = [];
  for (const position of positions) {
    const units = await onchainBalance(ctx, position);
    if (units === 0n) continue;
    const instrument = await ctx.em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
    const destination = { owner: { offchainId: toAccountId }, financialInstrument: { offchainId: instrument.id } };
    planned.push(
      withoutDebits(
        await planOutOf(ctx, position, instrument, destination, { lamports: units.toString() }, 'itemData', {
          source: 'itemData.escrow',
          destination: 'itemData.escrow',
        }),
      ),
    );
  }
  return { positions, planned };
}

/** A loan write's borrower: the fee payer must be the loan's borrower (spec 4.4, "same fee payer rule"). */
export async function requireLoanBorrower(em: EntityManager, scope: TenantScope, request: WriteRequest, loan: Loan): Promise<Account> {
  const borrower = await borrowerOf(em, scope, request);
  checkLoanBorrower(loan, borrower.address);
  return borrower;
}

/** Movements out of the escrow follow the loan's rules, not the escrow's debit limits (it is the service's own account): their debits are dropped. */
export const withoutDebits = (planned: PlannedLeg): PlannedLeg => ({ ...planned, debits: [] });

/**
 * One item out of the escrow back to the borrower (Repay's release, Swap's withdrawal): checked by
 * checkOutOfEscrow (`held` is counted down), planned as a leg without debits (the escrow gives
 * collateral back, it is no debit of the borrower's).
 */
export async function planOutOfEscrow(
  em: EntityManager,
  ctx: PlanContext,
  scope: TenantScope,
  loan: Loan,
  borrowerAddress: string,
  item: LoanMovementItem,
  p: string,
  what: 'release' | 'withdrawal',
  held: Map<string, bigint>,
): Promise<{ instrument: FinancialInstrument; amount: bigint; planned: PlannedLeg }> {
  const instrument = await requireBorrowerOwns(em, scope, borrowerAddress, item.positionLookup, `${p}.positionLookup`);
  const { pledged, value, amount } = checkOutOfEscrow(loan, instrument, item, p, what, held);
  held.set(instrument.id, (held.get(instrument.id) ?? 0n) - amount);
  const escrowPosition = await em.findOneOrFail(Position, { ...scope, address: pledged.escrowPosition });
  const planned = withoutDebits(
    await planOutOf(ctx, escrowPosition, instrument, item.positionLookup, value, p, { source: 'itemData.escrow', destination: `${p}.positionLookup` }),
  );
  return { instrument, amount, planned };
}

/**
 * A landed write's change to the loan's record: its fields, the transaction that made it (the last
 * one kept when there is none), and the records the transaction is linked to (the escrow by default).
 */
export function changeLoan(
  loan: Loan,
  fields: Partial<Loan>,
  tx: LedgerTransaction | null,
  at: Date,
  linked: readonly string[] = [loan.escrowAccountId],
  first = false,
): void {
  Object.assign(loan, { ...fields, lastTransactionId: tx?.id ?? loan.lastTransactionId, updatedAt: at });
  linkRecords(tx, linked, first);
}

/** Records a landed loan write's legs (balances, positions) and answers the loan's record, to change next. */
export async function recordLoanLegs(
  em: EntityManager,
  request: WriteRequest,
  data: { legs: readonly Leg[]; loanId: string },
  tx: LedgerTransaction | null,
  at: Date,
): Promise<Loan> {
  await recordLegs(em, request, data.legs, tx, at);
  return em.findOneOrFail(Loan, { id: data.loanId });
}
