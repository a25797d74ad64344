/** Loan and loan strategy answers (spec 2.6, docs/loans.md). */
import type * as t from 'io-ts';
import { accountDetailed, offchainIdentifier, onchainIdentifier, recordIdentifiers } from './account.responses';
import { authorityReference } from './financial-instrument.responses';
import { boolean, constant, exactAmount, integer, listOf, nullable, strictObject, textEnum, timestamp, uuid } from './building-blocks';
import { recordPage } from './bulk.responses';
import { recordReference, referenceAnswer, transactionResult } from './write.responses';
import { loanStatuses } from '../loans';

const cbps = integer;

export const createLoanStrategyResponse = referenceAnswer(
  'newLoanStrategy',
  'CreateLoanStrategyResponse',
  "The new strategy (its vault's address and offchain id) and the transaction that created the vault. Fund the vault with a transfer of the principal into the vault's position.",
);

export const loanStrategyRecord = strictObject(
  'LoanStrategy',
  {
    loanStrategy: accountDetailed,
    lender: authorityReference,
    principal: strictObject('LoanStrategyPrincipal', { financialInstrument: authorityReference }, {}),
    collateral: listOf(
      strictObject(
        'LoanStrategyCollateral',
        { financialInstrument: authorityReference, apy: listOf(cbps, 'cBPS per duration index.'), loanToValueRatio: cbps, liquidationRatio: cbps },
        {},
      ),
    ),
    originationsEnabled: boolean,
    originationCap: nullable(exactAmount),
    liquidityBuffer: nullable(exactAmount),
    rollover: boolean,
    outstandingPrincipal: exactAmount,
  },
  {},
  "A loan strategy: the vault's account record, the lender, the principal, the collateral it accepts and its terms (cBPS), and the principal owed on its OPEN and OVERDUE loans.",
);
export type LoanStrategyBody = t.TypeOf<typeof loanStrategyRecord>;

export const loanStrategyPage = recordPage(
  'LoanStrategyPage',
  loanStrategyRecord,
  'One page of loan strategies: count is the number that match the filter (all pages).',
);

export const createLoanResponse = strictObject(
  'CreateLoanResponse',
  {
    newLoan: nullable(strictObject('NewLoan', { offchainId: uuid, escrow: recordReference }, {})),
    svmTransaction: nullable(transactionResult),
  },
  {},
  'The new loan (its offchain id and escrow wallet) and the transaction that opened it (newLoan null when the transaction failed onchain).',
);

const loanStatus = textEnum(
  loanStatuses,
  'OPEN → REPAID → CLOSED; OPEN → OVERDUE (term over, not rolled over) → REPAID or LIQUIDATED; LIQUIDATED also past the liquidation ratio.',
);

export const loanDetailed = strictObject(
  'LoanDetailed',
  {
    offchainId: uuid,
    status: loanStatus,
    loanStrategy: recordReference,
    escrow: accountDetailed,
    borrower: accountDetailed,
    lender: accountDetailed,
    pledgedItems: listOf(
      strictObject(
        'PledgedItem',
        { pledgedAmount: exactAmount, accountDetails: accountDetailed },
        {},
        "The escrow's units of one collateral; accountDetails is the instrument's mint account.",
      ),
    ),
    borrowedItems: listOf(
      strictObject(
        'BorrowedItem',
        {
          apy: cbps,
          loanToValueRatio: nullable(cbps),
          liquidationRatio: cbps,
          duration: strictObject('LoanDuration', { code: constant('DAYS'), unit: integer }, {}),
          principalDue: exactAmount,
          principalRepaid: exactAmount,
          interestPerSecond: exactAmount,
          interestOutstanding: exactAmount,
          estimatedInterest: exactAmount,
          lastInterestUpdateTime: timestamp,
          accountDetails: accountDetailed,
        },
        {},
        "The principal: rates and ratios in cBPS (loanToValueRatio the loan's current ratio at the prices in marketData, null when a price is missing), amounts in the principal's UI units; interestOutstanding accrued until now, estimatedInterest until computeEstimatedInterestUntil; accountDetails is the principal's mint account.",
      ),
    ),
    marketData: listOf(
      strictObject(
        'LoanMarketData',
        { financialInstrument: authorityReference, price: nullable(exactAmount), dataSource: nullable(recordReference), updatedAt: nullable(timestamp) },
        {},
        'An instrument of the loan and the price used for it (null for a loan whose instruments are all its principal, or when no data source has a price).',
      ),
    ),
    durationIndex: integer,
    termStartAt: timestamp,
    maturityAt: timestamp,
  },
  {},
  'A loan (spec 2.6).',
);
export type LoanDetailedBody = t.TypeOf<typeof loanDetailed>;

export const loanCompact = strictObject(
  'LoanCompact',
  {
    onchain: onchainIdentifier,
    offchain: offchainIdentifier,
    status: loanStatus,
    loanStrategy: recordReference,
    borrower: recordReference,
    lender: recordReference,
    principalDue: exactAmount,
    maturityAt: timestamp,
  },
  {},
  'The compact detail level of a loan: its escrow (onchain.id) and offchain id, status, parties, principal due and maturity.',
);
export type LoanCompactBody = t.TypeOf<typeof loanCompact>;

export const loanLevels = { identifiers: recordIdentifiers, compact: loanCompact, detailed: loanDetailed };
