/**
 * The rules every loan write shares (docs/loans.md), over plain snapshots of what the handler looked
 * up: the borrower is the fee payer and owns every item, one write holds the loan at a time, the
 * vault is funded, an item out of the escrow is one it holds. Pure: each throws the LedgerError the
 * write answers (the field it names is the request's) or returns what the handler needs.
 */
import { conflict, LedgerError, notFound, validationError } from '../../errors';
import type { CollateralTerms } from '../../loans';
import { fromBaseUnits, resolveValue, type ValueInput } from '../../money';
import type { LoanMovementItem } from './loan.inputs';
import type { PositionLookupInput } from '../positions/position.inputs';

/** What the loan rules read of an instrument. */
export interface InstrumentFacts {
  id: string;
  mintAddress: string;
  decimals: number;
  defaultPositionState?: string | null;
}

/** What the loan rules read of a strategy. */
export interface StrategyFacts {
  principalInstrumentId: string;
  principalMint: string;
  collateral: CollateralTerms[];
  originationsEnabled: boolean;
  /** Base units of the principal, or null (no cap / no buffer). */
  originationCap?: string | null;
  liquidityBuffer?: string | null;
}

/** One pledged item of a loan: base units the escrow holds. */
export interface PledgedItem {
  financialInstrumentId: string;
  mintAddress: string;
  amount: string;
  escrowPosition: string;
}

/** What the loan rules read of a loan (amounts base units as decimal text, as stored). */
export interface LoanFacts {
  status: string;
  borrowerAddress: string;
  lenderAddress: string;
  strategyAddress: string;
  principalInstrumentId: string;
  principalMint: string;
  pledged: PledgedItem[];
  collateralInstrumentIds: string[];
  collateralMints: string[];
  principalDue: string;
  principalRepaid: string;
  interestOutstanding: string;
  apy: number;
  loanToValueRatio: number;
  liquidationRatio: number;
  maturityAt: Date;
  lastInterestUpdateTime: Date;
}

/** A loan that still owes (OPEN or OVERDUE): otherwise 409 on the escrow, with the operation's `message`. */
export function requireUnsettled(status: string, message: string): void {
  if (status !== 'OPEN' && status !== 'OVERDUE') throw conflict('itemData.escrow', message);
}

/** Spec 4.4 rule 3: a loan write names the borrower as its fee payer; answers the lookup to resolve. */
export function requireFeePayer<L>(feePayer: L | undefined): L {
  if (!feePayer) throw validationError('svmTransactionConfig.feePayer', 'a loan write names the borrower as its fee payer (svmTransactionConfig.feePayer)');
  return feePayer;
}

/** A position lookup names the position, or its owner and instrument (a position not opened yet); answers those two. */
export function requireOwnerAndInstrument(lookup: PositionLookupInput, field: string): Required<Pick<PositionLookupInput, 'owner' | 'financialInstrument'>> {
  if (!lookup.owner || !lookup.financialInstrument) throw validationError(field, `${field} needs position, or owner and financialInstrument`);
  return { owner: lookup.owner, financialInstrument: lookup.financialInstrument };
}

/** Spec 4.4 rule 4: every position of the loan's items belongs to the borrower. */
export function requireBorrowerOwns(owner: string, borrower: string, field: string): void {
  if (owner !== borrower)
    throw validationError(field, `${field} belongs to ${owner}; every item of a loan belongs to one owner, the borrower ${borrower} (the fee payer)`);
}

/** The fee payer of a write on a loan is the loan's borrower (spec 4.4, "same fee payer rule"). */
export function requireLoanBorrower(loan: Pick<LoanFacts, 'borrowerAddress'>, feePayer: string): void {
  if (feePayer !== loan.borrowerAddress)
    throw validationError('svmTransactionConfig.feePayer', `the fee payer must be the loan's borrower ${loan.borrowerAddress}`);
}

/** The hold on the loan (`held`: this write got it) is this write's; another write on it in progress is 409. */
export function requireHold(held: boolean, inUseByTransactionId: string | null | undefined): void {
  if (!held)
    throw conflict('itemData.escrow', `another write on this loan is in progress (transaction ${inUseByTransactionId ?? 'unknown'}); retry once it has ended`);
}

/** The vault's position of the principal (null: none yet) must exist: the lender funds it with a transfer. */
export function requireVaultFunded<P>(position: P | null, vault: string, principalMint: string, field: string): P {
  if (!position)
    throw conflict(
      field,
      `the vault ${vault} holds no ${principalMint} yet: the lender funds it with a transfer into the vault's position (initializeDestinationPositionIfNeeded)`,
    );
  return position;
}

/** A value more than zero, in base units of an instrument of `decimals`. */
export function positiveUnits(value: ValueInput, decimals: number, field: string): bigint {
  const units = resolveValue(value, decimals, field);
  if (units === 0n) throw validationError(field, 'the amount must be more than zero');
  return units;
}

/** The strategy's terms for a collateral instrument; one it does not accept is 400 naming `field`. */
export function acceptedTerms(strategy: Pick<StrategyFacts, 'collateral'>, instrument: InstrumentFacts, field: string): CollateralTerms {
  const terms = strategy.collateral.find((c) => c.financialInstrumentId === instrument.id);
  if (!terms) throw validationError(field, `the strategy does not accept ${instrument.mintAddress} as collateral`);
  return terms;
}

/**
 * One item out of the escrow back to the borrower (Repay's release, Swap's withdrawal): a pledged
 * instrument, positionLookup and value only, more than zero and at most what the escrow still holds
 * (`held`, by instrument id, after the write's earlier items). Answers the pledged item, the value and its units.
 */
export function checkOutOfEscrow(
  loan: Pick<LoanFacts, 'pledged'>,
  instrument: InstrumentFacts,
  item: LoanMovementItem,
  p: string,
  what: 'release' | 'withdrawal',
  held: ReadonlyMap<string, bigint>,
): { pledged: PledgedItem; value: ValueInput; amount: bigint } {
  const pledged = loan.pledged.find((x) => x.financialInstrumentId === instrument.id);
  if (!pledged) throw validationError(`${p}.positionLookup`, `the loan holds no ${instrument.mintAddress}`);
  if (item.repayAll || item.transferFrom || item.mintAsset)
    throw validationError(
      `${p}.${item.repayAll ? 'repayAll' : item.transferFrom ? 'transferFrom' : 'mintAsset'}`,
      `a ${what} takes positionLookup and value only`,
    );
  if (!item.value) throw validationError(`${p}.value`, `give the value to ${what === 'release' ? 'release' : 'withdraw'}`);
  const amount = positiveUnits(item.value, instrument.decimals, `${p}.value`);
  const left = held.get(instrument.id) ?? 0n;
  if (amount > left) throw validationError(`${p}.value`, `the escrow holds ${fromBaseUnits(left, instrument.decimals)} of ${instrument.mintAddress}`);
  return { pledged, value: item.value, amount };
}

/**
 * A movement rule's refusal as the loan request names it (`from` → `to`, longest first): a leg's
 * `source` is the loan request's `positionLookup`. Anything else is returned as it is.
 */
export function withLoanFieldNames(error: unknown, names: Record<string, string>): unknown {
  if (!(error instanceof LedgerError) || !error.field) return error;
  const field = error.field;
  const from = Object.keys(names)
    .sort((a, b) => b.length - a.length)
    .find((name) => field === name || field.startsWith(`${name}.`));
  if (!from) return error;
  return new LedgerError(error.code, error.message.replaceAll(from, names[from]), names[from] + field.slice(from.length), error.context);
}

/** The loan an escrow lookup names: 404 when the account is not a loan's escrow. */
export function requireLoanOfEscrow<T>(loan: T | null, escrowAddress: string, field: string): T {
  if (!loan) throw notFound(field, `account ${escrowAddress} is not the escrow of a loan`);
  return loan;
}
