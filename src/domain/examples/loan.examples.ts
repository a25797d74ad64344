/** Examples of the loan operations: a request and its answer each. The bond lends against itself (no price needed). */
import { authorityReference, confirmedTransaction, earlier, identifiers, ids, treasuryDetailed } from './example-values';
import type { OperationExample } from './operation-examples';

const vault = { onchainId: 'VauLt3kJ7tYp2WmXbR5sLdG4hF9aZcU6eK1oTiPqNo8', offchainId: '3c8e1a7d-5f2b-4d9e-a1c6-7b3f9e2d5a14' };
const escrow = { onchainId: 'EscR8vQ3kJ7tYp2WmXbR5sLdG4hF9aZcU6eK1oTiPqa', offchainId: '9a4d2e7b-1c6f-4b3a-8e5d-2f7c1a9b6e35' };
const loanId = '6e1b9d3a-4c7f-4e2b-9a5d-8c3f1e7b2a46';
const bond = authorityReference(ids.instrument);

/** The investor's position of the bond: what it borrows into and pledges from. */
const investorBondPosition = { owner: { offchainId: ids.investor.offchainId }, financialInstrument: { onchainId: ids.instrument.onchainId } };
/** The investor (the borrower) pays the fees of the loan's writes. */
const paidByInvestor = { feePayer: { offchainId: ids.investor.offchainId } };
/** The loan a write on it names: its protocol and its escrow. */
const theLoan = { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow.onchainId } };

const accountOf = (ref: { onchainId: string; offchainId: string }, type: string) => ({
  ...treasuryDetailed,
  onchain: { ...treasuryDetailed.onchain, id: ref.onchainId },
  offchain: { ...treasuryDetailed.offchain, id: ref.offchainId, type, code: null, accountNumber: null, name: null },
});

const bondTerms = {
  financialInstrument: { onchainId: ids.instrument.onchainId },
  apy: [40_000, 45_000, 50_000, 60_000, 70_000],
  loanToValueRatio: 800_000,
  liquidationRatio: 900_000,
};

const loanDetailedExample = {
  offchainId: loanId,
  status: 'OPEN',
  loanStrategy: vault,
  escrow: accountOf(escrow, 'DEFI_SETTLEMENT_WALLET'),
  borrower: accountOf(ids.investor, 'WALLET'),
  lender: treasuryDetailed,
  pledgedItems: [{ pledgedAmount: 100, accountDetails: accountOf(ids.mint, 'ASSET_TOKEN') }],
  borrowedItems: [
    {
      apy: 50_000,
      loanToValueRatio: 600_019,
      liquidationRatio: 900_000,
      duration: { code: 'DAYS', unit: 30 },
      principalDue: 60,
      principalRepaid: 0,
      interestPerSecond: 0.000000095129375,
      interestOutstanding: 0.00191,
      estimatedInterest: 0.246575,
      lastInterestUpdateTime: earlier,
      accountDetails: accountOf(ids.mint, 'ASSET_TOKEN'),
    },
  ],
  marketData: [{ financialInstrument: bond, price: null, dataSource: null, updatedAt: null }],
  durationIndex: 2,
  termStartAt: earlier,
  maturityAt: '2026-04-01T14:04:58.107Z',
};

export const loanExamples: Record<string, OperationExample> = {
  createLoanStrategy: {
    request: {
      itemData: {
        strategy: { offchainReferences: { code: 'BOND-VAULT' }, seed: { amount: 0.01 } },
        lender: { offchainId: ids.treasury.offchainId },
        principal: { financialInstrument: { onchainId: ids.instrument.onchainId } },
        collateral: [bondTerms],
        originationCap: { amount: '100000' },
        liquidityBuffer: { amount: 1000 },
        rollover: true,
      },
    },
    response: { newLoanStrategy: vault, svmTransaction: confirmedTransaction },
  },
  fetchLoanStrategies: {
    request: {
      itemQuery: {
        filter: [
          { fieldName: 'lenderOnchainId', filterValues: [{ dataType: 'ADDRESS_ONCHAIN_ID', filterType: 'EQUALS', valueString: ids.treasury.onchainId }] },
        ],
      },
    },
    response: {
      count: 1,
      items: [
        {
          loanStrategy: accountOf(vault, 'DEFI_SETTLEMENT_WALLET'),
          lender: authorityReference(ids.treasury),
          principal: { financialInstrument: bond },
          collateral: [{ ...bondTerms, financialInstrument: bond }],
          originationsEnabled: true,
          originationCap: 100000,
          liquidityBuffer: 1000,
          rollover: true,
          outstandingPrincipal: 60,
        },
      ],
    },
  },
  createLoan: {
    request: {
      itemData: {
        defiProtocol: 'LEDGER_ESCROW',
        protocolDetails: { loanStrategyAddress: vault.onchainId, expectedLoanValues: { expectedApy: 50_000, expectedLqt: [900_000] }, durationIndex: 2 },
        itemsToBorrow: [{ positionLookup: investorBondPosition, value: { amount: 60 } }],
        itemsToPledge: [{ positionLookup: investorBondPosition, value: { amount: '100' } }],
      },
      svmTransactionConfig: paidByInvestor,
    },
    response: { newLoan: { offchainId: loanId, escrow }, svmTransaction: confirmedTransaction },
  },
  swapCollateral: {
    request: {
      itemData: {
        ...theLoan,
        itemsToDeposit: [{ positionLookup: investorBondPosition, value: { amount: 5 }, mintAsset: true }],
      },
      svmTransactionConfig: paidByInvestor,
    },
    response: confirmedTransaction,
  },
  repayLoan: {
    request: {
      itemData: {
        ...theLoan,
        itemsToRepay: [{ positionLookup: investorBondPosition, value: { amount: 20 } }],
        itemsToRelease: [{ positionLookup: investorBondPosition, value: { amount: 10 } }],
      },
      svmTransactionConfig: paidByInvestor,
    },
    response: confirmedTransaction,
  },
  refinanceLoan: {
    request: {
      itemData: { ...theLoan, durationIndex: 2, fromLender: { offchainId: ids.treasury.offchainId } },
      svmTransactionConfig: paidByInvestor,
    },
    // The same lender's new term sends nothing: the write's record is its answer.
    response: { ...confirmedTransaction, status: 'FINALIZED', onchainId: null, confirmationsCount: null, serializedMessage: null, txnTimestamp: null },
  },
  closeLoan: {
    request: { itemData: theLoan, svmTransactionConfig: paidByInvestor },
    response: confirmedTransaction,
  },
  fetchLoanDetails: {
    request: { itemData: { escrow: { onchainId: escrow.onchainId }, computeEstimatedInterestUntil: '2026-03-02T14:05:09Z' } },
    response: loanDetailedExample,
  },
  fetchLoans: {
    request: {
      itemQuery: {
        filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: 'OPEN' }] }],
        sort: [{ fieldName: 'maturityAt', sortDirection: 'ASC' }],
      },
    },
    response: { count: 1, items: [{ ...identifiers(escrow), offchain: { id: loanId } }] },
  },
};
