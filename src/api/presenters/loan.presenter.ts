/** Loans (spec 2.6) and loan strategies as the API shows them. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, FinancialInstrument, Loan, type LoanStrategy } from '../../db/entities';
import { interestAt, interestPerSecondText, loanToValue } from '../../domain/loans';
import { fromBaseUnits } from '../../domain/money';
import type { InstrumentPrice, PriceSource } from '../../domain/prices';
import type { LoanCompactBody, LoanDetailedBody, LoanStrategyBody } from '../../domain/responses/loan.responses';
import type { RecordIdentifiersBody } from '../../domain/responses/account.responses';
import { exactNumber, presentAccount, type DetailLevel } from './account.presenter';

/** What the records of a page show beside them, loaded in one go. */
export interface LoanRelated {
  accounts: Map<string, Account>;
  instruments: Map<string, FinancialInstrument>;
  prices: Map<string, InstrumentPrice | null>;
  /** Interest runs until here for estimatedInterest (computeEstimatedInterestUntil, default now). */
  until: Date;
  now: Date;
}

const amount = (units: bigint, decimals: number) => exactNumber(fromBaseUnits(units, decimals));
const instrumentReference = (i: FinancialInstrument) => ({
  onchain: { id: i.mintAddress },
  offchain: { id: i.id },
  managed: i.managed,
  tenantOrganizationId: i.organizationId,
});

const settled = (loan: Loan) => loan.status === 'REPAID' || loan.status === 'CLOSED' || loan.status === 'LIQUIDATED';

/** Loads the accounts, instruments (with their mint accounts) and prices a page of loans shows. */
export async function loanRelated(em: EntityManager, loans: Loan[], prices: PriceSource, until: Date, now: Date): Promise<LoanRelated> {
  const instrumentIds = [...new Set(loans.flatMap((l) => [l.principalInstrumentId, ...l.collateralInstrumentIds]))];
  const instruments = new Map((await em.find(FinancialInstrument, { id: { $in: instrumentIds } })).map((i) => [i.id, i]));
  const accountIds = [
    ...new Set([
      ...loans.flatMap((l) => [l.escrowAccountId, l.borrowerAccountId, l.lenderAccountId]),
      ...[...instruments.values()].map((i) => i.mintAccountId),
    ]),
  ];
  const accounts = new Map((await em.find(Account, { id: { $in: accountIds } })).map((a) => [a.id, a]));
  const priceMap = new Map<string, InstrumentPrice | null>();
  for (const loan of loans) {
    // A loan whose instruments are all its principal needs no price (amount over amount).
    if (loan.collateralInstrumentIds.every((id) => id === loan.principalInstrumentId)) continue;
    for (const id of [loan.principalInstrumentId, ...loan.collateralInstrumentIds]) {
      if (!priceMap.has(id)) priceMap.set(id, await prices.priceOf(loan.organizationId, id));
    }
  }
  return { accounts, instruments, prices: priceMap, until, now };
}

/** The loan's current loan-to-value in cBPS at the prices used, null when one is missing. */
function currentLoanToValue(loan: Loan, related: LoanRelated, owed: bigint): number | null {
  const needsPrices = !loan.collateralInstrumentIds.every((id) => id === loan.principalInstrumentId);
  const priceOf = (id: string) => (needsPrices ? (related.prices.get(id)?.value ?? undefined) : null);
  const principal = related.instruments.get(loan.principalInstrumentId)!;
  const principalPrice = priceOf(principal.id);
  const collateral = loan.pledged.map((p) => ({
    units: BigInt(p.amount),
    decimals: related.instruments.get(p.financialInstrumentId)!.decimals,
    price: priceOf(p.financialInstrumentId),
  }));
  if (principalPrice === undefined || collateral.some((c) => c.price === undefined)) return null;
  return Number(
    loanToValue(
      { units: owed, decimals: principal.decimals, price: principalPrice },
      collateral as { units: bigint; decimals: number; price: string | null }[],
    ),
  );
}

export function presentLoan(loan: Loan, level: DetailLevel, related?: LoanRelated): RecordIdentifiersBody | LoanCompactBody | LoanDetailedBody {
  const identifiers = { onchain: { id: loan.escrowAddress }, offchain: { id: loan.id } };
  if (level === 'identifiers') return identifiers;
  const principal = related?.instruments.get(loan.principalInstrumentId);
  if (level === 'compact' || !related || !principal) {
    return {
      ...identifiers,
      status: loan.status,
      loanStrategy: { onchainId: loan.strategyAddress, offchainId: loan.strategyId },
      borrower: { onchainId: loan.borrowerAddress, offchainId: loan.borrowerAccountId },
      lender: { onchainId: loan.lenderAddress, offchainId: loan.lenderAccountId },
      principalDue: amount(BigInt(loan.principalDue), loan.principalDecimals),
      maturityAt: loan.maturityAt,
    } as LoanCompactBody;
  }
  const account = (id: string) => presentAccount(related.accounts.get(id)!, 'detailed', loan.organizationId);
  const owed = BigInt(loan.principalDue);
  const interestNow = interestAt(loan, related.now);
  return {
    offchainId: loan.id,
    status: loan.status,
    loanStrategy: { onchainId: loan.strategyAddress, offchainId: loan.strategyId },
    escrow: account(loan.escrowAccountId),
    borrower: account(loan.borrowerAccountId),
    lender: account(loan.lenderAccountId),
    pledgedItems: loan.pledged.map((p) => {
      const instrument = related.instruments.get(p.financialInstrumentId)!;
      return { pledgedAmount: amount(BigInt(p.amount), instrument.decimals), accountDetails: account(instrument.mintAccountId) };
    }),
    borrowedItems: [
      {
        apy: loan.apy,
        loanToValueRatio: currentLoanToValue(loan, related, owed + interestNow),
        liquidationRatio: loan.liquidationRatio,
        duration: { code: 'DAYS' as const, unit: loan.durationDays },
        principalDue: amount(owed, principal.decimals),
        principalRepaid: amount(BigInt(loan.principalRepaid), principal.decimals),
        interestPerSecond: exactNumber(settled(loan) ? '0' : interestPerSecondText(owed, loan.apy, principal.decimals)),
        interestOutstanding: amount(interestNow, principal.decimals),
        estimatedInterest: amount(interestAt(loan, related.until), principal.decimals),
        lastInterestUpdateTime: loan.lastInterestUpdateTime,
        accountDetails: account(principal.mintAccountId),
      },
    ],
    marketData: [loan.principalInstrumentId, ...loan.collateralInstrumentIds.filter((id) => id !== loan.principalInstrumentId)].map((id) => {
      const price = related.prices.get(id) ?? null;
      return {
        financialInstrument: instrumentReference(related.instruments.get(id)!),
        price: price ? exactNumber(price.value) : null,
        dataSource: price?.dataSource ?? null,
        updatedAt: price?.updatedAt ?? null,
      };
    }),
    durationIndex: loan.durationIndex,
    termStartAt: loan.termStartAt,
    maturityAt: loan.maturityAt,
  };
}

/** A strategy's record: `accounts` holds the vault's and the lender's, `instruments` its principal and collateral, `outstanding` base units. */
export function presentLoanStrategy(
  strategy: LoanStrategy,
  accounts: Map<string, Account>,
  instruments: Map<string, FinancialInstrument>,
  outstanding: bigint,
): LoanStrategyBody {
  const principal = instruments.get(strategy.principalInstrumentId)!;
  const lender = accounts.get(strategy.lenderAccountId);
  const optional = (units: string | null | undefined) => (units == null ? null : amount(BigInt(units), principal.decimals));
  return {
    loanStrategy: presentAccount(accounts.get(strategy.id)!, 'detailed', strategy.organizationId),
    lender: {
      onchain: { id: strategy.lenderAddress },
      offchain: { id: strategy.lenderAccountId },
      managed: lender?.managed ?? false,
      tenantOrganizationId: lender?.organizationId ?? null,
    },
    principal: { financialInstrument: instrumentReference(principal) },
    collateral: strategy.collateral.map((c) => ({
      financialInstrument: instrumentReference(instruments.get(c.financialInstrumentId)!),
      apy: c.apy,
      loanToValueRatio: c.loanToValueRatio,
      liquidationRatio: c.liquidationRatio,
    })),
    originationsEnabled: strategy.originationsEnabled,
    originationCap: optional(strategy.originationCap),
    liquidityBuffer: optional(strategy.liquidityBuffer),
    rollover: strategy.rollover,
    outstandingPrincipal: amount(outstanding, principal.decimals),
  };
}
