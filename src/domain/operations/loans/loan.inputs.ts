/** Loan request shapes (spec 4.4, docs/loans.md): strategies, Create Loan, Repay, Close, Fetch Loan Details. */
import * as t from 'io-ts';
import { createAccountItemData } from '../accounts/account.inputs';
import { accountLookup, valueInput } from '../../inputs/common.inputs';
import { positionLookup } from '../positions/position.inputs';
import { address, arrayOf, describe, integer, oneOf, strictObject, uuid } from '../../inputs/primitives';
import { durationDays, LEDGER_ESCROW } from '../../loans';

const cbps = describe(integer(0, 1_000_000), { description: 'cBPS: 1,000,000 = 100 %.' });
export const defiProtocol = oneOf([LEDGER_ESCROW] as const, 'DefiProtocol');
const durationIndex = describe(integer(0, durationDays.length - 1), {
  description: 'Duration index: 0 = 1 day, 1 = 1 week, 2 = 1 month (30 days), 3 = 3 months (90 days), 4 = 6 months (180 days).',
});

export const loanCollateralTerms = strictObject(
  'LoanCollateralTerms',
  { financialInstrument: accountLookup, apy: arrayOf(cbps, durationDays.length), loanToValueRatio: cbps, liquidationRatio: cbps },
  {},
  'A collateral the strategy accepts: APY (cBPS) per duration index it lends for (apy[0] for 1 day, apy[1] for 1 week, …), the loan-to-value limit a loan may open at, and the ratio past which it is liquidated.',
);

/** Create Loan Strategy itemData. */
export const createLoanStrategyItemData = strictObject(
  'CreateLoanStrategyItemData',
  {
    strategy: createAccountItemData,
    lender: accountLookup,
    principal: strictObject('LoanPrincipal', { financialInstrument: accountLookup }, {}),
    collateral: arrayOf(loanCollateralTerms, 16),
  },
  { originationsEnabled: t.boolean, originationCap: valueInput, liquidityBuffer: valueInput, rollover: t.boolean, idempotencyId: uuid },
);
export type CreateLoanStrategyItemData = t.TypeOf<typeof createLoanStrategyItemData>;

const protocolDetails = strictObject(
  'LoanProtocolDetails',
  {
    loanStrategyAddress: address,
    expectedLoanValues: strictObject(
      'ExpectedLoanValues',
      { expectedApy: cbps, expectedLqt: arrayOf(cbps, 16) },
      {},
      'The quote the borrower accepts: the APY for the duration and the liquidation ratio of each pledged item, in order. A quote that moved is 409.',
    ),
    durationIndex,
  },
  {},
);

export const itemToBorrow = strictObject(
  'ItemToBorrow',
  { positionLookup, value: valueInput },
  { transferTo: positionLookup },
  "positionLookup: the borrower's position of the strategy's principal (opened on the way when it is the owner's associated one); transferTo: another of the borrower's positions to receive it.",
);

export const itemToPledge = strictObject(
  'ItemToPledge',
  { positionLookup, value: valueInput },
  { transferFrom: positionLookup, mintAsset: t.boolean },
  "positionLookup: the borrower's position the collateral leaves from; transferFrom: another position of the borrower whose units go through it first; mintAsset: the units are minted into it first (the instrument's mint authority signs), in the same transaction.",
);

/** Create Loan itemData (spec 4.4, docs/loans.md). */
export const createLoanItemData = strictObject(
  'CreateLoanItemData',
  { defiProtocol, protocolDetails, itemsToBorrow: arrayOf(itemToBorrow, 1), itemsToPledge: arrayOf(itemToPledge, 8) },
  { idempotencyId: uuid },
);
export type CreateLoanItemData = t.TypeOf<typeof createLoanItemData>;

const isoTimestamp = describe(
  new t.Type<string, string, unknown>(
    'Timestamp',
    (u): u is string => typeof u === 'string',
    (u, c) =>
      typeof u === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(u) && !Number.isNaN(Date.parse(u))
        ? t.success(u)
        : t.failure(u, c, 'must be an ISO 8601 timestamp with a time zone'),
    (a) => a,
  ),
  { type: 'string', format: 'date-time' },
);

/** Fetch Loan Details itemData (spec 4.2): interest estimated until computeEstimatedInterestUntil (default now). */
export const loanDetailsItemData = strictObject('LoanDetailsItemData', { escrow: accountLookup }, { computeEstimatedInterestUntil: isoTimestamp });

/** An item of Repay Loan (spec 4.4): the borrower's position it comes from or goes to. */
export const loanMovementItem = strictObject(
  'LoanMovementItem',
  { positionLookup },
  { value: valueInput, repayAll: t.boolean, transferFrom: positionLookup, mintAsset: t.boolean },
  "positionLookup: the borrower's position (of the principal for a repayment, of the collateral for a release); value, or repayAll on a repayment; transferFrom and mintAsset top the position up first in the same transaction (repayments only).",
);
export type LoanMovementItem = t.TypeOf<typeof loanMovementItem>;

/** The loan a write on an open loan is about: its protocol and its escrow. */
const theLoan = { defiProtocol, escrow: accountLookup };

/** Repay Loan itemData (spec 4.4). */
export const repayLoanItemData = strictObject('RepayLoanItemData', theLoan, {
  itemsToRepay: arrayOf(loanMovementItem, 1),
  itemsToRelease: arrayOf(loanMovementItem, 8),
  idempotencyId: uuid,
});
export type RepayLoanItemData = t.TypeOf<typeof repayLoanItemData>;

/** Close Loan itemData. */
export const closeLoanItemData = strictObject('CloseLoanItemData', theLoan, { refundDestination: accountLookup, idempotencyId: uuid });
export type CloseLoanItemData = t.TypeOf<typeof closeLoanItemData>;

/** The liquidation a loan's workflow runs (no route): the escrow's collateral to the lender's vault. */
export const liquidateLoanItemData = strictObject('LiquidateLoanItemData', theLoan, {});
export type LiquidateLoanItemData = t.TypeOf<typeof liquidateLoanItemData>;

/** Swap Collateral itemData (spec 4.4): collateral into the escrow and out of it, in one transaction. */
export const swapCollateralItemData = strictObject('SwapCollateralItemData', theLoan, {
  itemsToDeposit: arrayOf(loanMovementItem, 8),
  itemsToWithdraw: arrayOf(loanMovementItem, 8),
  idempotencyId: uuid,
});
export type SwapCollateralItemData = t.TypeOf<typeof swapCollateralItemData>;

/** Refinance Loan itemData (spec 4.4): the same lender's rollover, or the move to another strategy that pays the first off (docs/loans.md). */
export const refinanceLoanItemData = strictObject(
  'RefinanceLoanItemData',
  { ...theLoan, durationIndex },
  {
    borrowedItem: positionLookup,
    fromLender: accountLookup,
    toLender: accountLookup,
    borrower: accountLookup,
    submitTransaction: t.boolean,
    idempotencyId: uuid,
  },
  "toLender: the vault account of the strategy to move the loan to (loanStrategy in Fetch Loan Strategies); its vault pays the loan's lender principal and interest in one network transaction. Omitted, the loan's lender or its strategy's vault: a rollover with the same lender. fromLender: the loan's lender (its account or its strategy's vault); borrower: the loan's borrower; borrowedItem: the borrower's position of the principal (nothing moves to it).",
);
export type RefinanceLoanItemData = t.TypeOf<typeof refinanceLoanItemData>;
