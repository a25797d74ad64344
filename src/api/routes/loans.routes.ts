/** Loans (spec 4.2 and 4.4, docs/loans.md): loan strategies, Create Loan, Fetch Loan Details, Fetch Loans. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, FinancialInstrument, Loan, LoanStrategy } from '../../db/entities';
import { noPrices } from '../../domain/prices';
import { loanDetailsBody } from '../codecs/loan.codecs';
import type { ApiDeps } from '../context';
import { loanRelated, presentLoan, presentLoanStrategy, type LoanRelated } from '../presenters/loan.presenter';
import { loanDetailed, loanLevels, loanStrategyPage } from '../../domain/responses/loan.responses';
import type { RouteSpec } from '../route';
import { bulkRoute, pageRoute } from './bulk-route';
import { recordOfAccount, singleRoute } from './single-route';
import { loanQuery, loanStrategyQuery } from './query-fields';
import { writeRoutes } from './write-route';
import { sealedAccountPayload } from './accounts.routes';
import { loanOperations } from '../../domain/operations/loans/loans.operations';

/** The accounts and instruments a page of strategies shows, and the principal owed on each one's unsettled loans. */
async function strategyRelated(em: EntityManager, rows: LoanStrategy[]) {
  const accounts = new Map((await em.find(Account, { id: { $in: rows.flatMap((r) => [r.id, r.lenderAccountId]) } })).map((a) => [a.id, a]));
  const instruments = new Map(
    (
      await em.find(FinancialInstrument, { id: { $in: rows.flatMap((r) => [r.principalInstrumentId, ...r.collateral.map((c) => c.financialInstrumentId)]) } })
    ).map((i) => [i.id, i]),
  );
  const loans = rows.length
    ? await em.find(Loan, { strategyId: { $in: rows.map((r) => r.id) }, status: { $in: ['OPEN', 'OVERDUE'] } }, { fields: ['strategyId', 'principalDue'] })
    : [];
  const outstanding = (id: string) => loans.filter((l) => l.strategyId === id).reduce((sum, l) => sum + BigInt(l.principalDue), 0n);
  return { accounts, instruments, outstanding };
}

export function loanRoutes(deps: ApiDeps): RouteSpec[] {
  const prices = () => deps.prices ?? noPrices;
  return [
    ...writeRoutes(deps, loanOperations, {
      // The vault payload is a Create Account payload: it enters workflow history as Create Account's does.
      CREATE_LOAN_STRATEGY: {
        prepare: async (item) => ({ ...item, strategy: await sealedAccountPayload(deps, item.strategy, 'itemData.strategy') }),
      },
      CREATE_LOAN: {
        async answer(ctx, answer) {
          if (answer.async) {
            ctx.state.status = 202;
            return { transaction: answer.transaction };
          }
          const escrow = answer.created ?? null;
          const loan = escrow ? await deps.orm.em.fork().findOne(Loan, { escrowAddress: escrow.onchainId, escrowAccountId: escrow.offchainId }) : null;
          return { newLoan: loan && escrow ? { offchainId: loan.id, escrow } : null, svmTransaction: answer.transaction };
        },
      },
    }),
    pageRoute(deps, {
      operationId: 'fetchLoanStrategies',
      path: '/api/v1/loans/strategies/bulk',
      tag: 'Loans',
      summary:
        'Fetch Loan Strategies with filter, sort and paging; items are detailed records. Fields: loanStrategyOnchainId, loanStrategyOffchainId, lenderOnchainId, lenderOffchainId, principalFinancialInstrumentOnchainId, principalFinancialInstrumentOffchainId, collateralFinancialInstrumentOnchainId, originationsEnabled, rollover, createdAt (default sort, newest first).',
      response: loanStrategyPage,
      entity: LoanStrategy,
      query: loanStrategyQuery,
      related: (em, rows) => strategyRelated(em, rows),
      present: (row, { accounts, instruments, outstanding }) => presentLoanStrategy(row, accounts, instruments, outstanding(row.id)),
    }),
    singleRoute(deps, {
      operationId: 'fetchLoanDetails',
      path: '/api/v1/loans/single',
      tag: 'Loans',
      summary:
        "Fetch Loan Details (spec 2.6): the loan of the escrow, with interestOutstanding accrued until now and estimatedInterest until computeEstimatedInterestUntil (default now); loanToValueRatio is the loan's current ratio (principal due and interest over the collateral) at the prices in marketData. 404 when the account is not a loan's escrow.",
      body: loanDetailsBody,
      response: loanDetailed,
      find: (read) =>
        recordOfAccount(read, read.body.itemData.escrow, 'itemData.escrow', 'the escrow of a loan', (escrow) =>
          read.em.findOne(Loan, { ...read.scope, escrowAccountId: escrow.id }),
        ),
      async present(loan, { em, body }) {
        const now = deps.now();
        const until = body.itemData.computeEstimatedInterestUntil ? new Date(body.itemData.computeEstimatedInterestUntil) : now;
        return presentLoan(loan, 'detailed', await loanRelated(em, [loan], prices(), until, now)) as never;
      },
    }),
    bulkRoute(deps, {
      operationId: 'fetchLoans',
      levels: loanLevels,
      path: '/api/v1/loans/bulk',
      tag: 'Loans',
      summary:
        'Fetch Loans with filter, sort and paging. Fields: status, escrowOnchainId, escrowOffchainId, borrowerOnchainId, borrowerOffchainId, lenderOnchainId, lenderOffchainId, loanStrategyOnchainId, loanStrategyOffchainId, principalFinancialInstrumentOnchainId, principalFinancialInstrumentOffchainId, collateralFinancialInstrumentOnchainId, collateralFinancialInstrumentOffchainId, durationIndex, termStartAt, maturityAt, createdAt (default sort, newest first). Detailed items are the record of Fetch Loan Details, interest until now.',
      entity: Loan,
      query: loanQuery,
      present: (loan, level, related?: LoanRelated) => presentLoan(loan, level, related) as never,
      related: (em, loans) => loanRelated(em, loans, prices(), deps.now(), deps.now()),
    }),
  ];
}
