/**
 * The document cannot drift from what the service answers: real answers of the main routes,
 * parsed as a client parses them, are decoded with the very response codecs the document's schemas
 * come from (unknown properties refused, so a presenter that grows a field fails here until its
 * codec says so). Then a client written against the generated types (test/client/round-trip.ts,
 * openapi-fetch) runs its create-and-list round trip against the service.
 */
import path from 'node:path';
import * as t from 'io-ts';
import { reportErrors } from '../../src/domain/responses/building-blocks';
import {
  accountBalanceResponse,
  accountLevels,
  accountPrivateKeyResponse,
  createAccountResponse,
  updateAccountResponse,
} from '../../src/domain/responses/account.responses';
import { bulkResponse } from '../../src/domain/responses/bulk.responses';
import { errorBody } from '../../src/domain/responses/error.responses';
import {
  circulatingSupplyResponse,
  createFinancialInstrumentResponse,
  financialInstrumentLevels,
  tokenExtensionsCalculatorResponse,
} from '../../src/domain/responses/financial-instrument.responses';
import { initializePositionResponse, positionBalanceResponse, positionLevels } from '../../src/domain/responses/position.responses';
import { healthResponse, readinessResponse } from '../../src/domain/responses/system.responses';
import { positionHistoryResponse, transactionLevels, transactionStatusResponse } from '../../src/domain/responses/transaction.responses';
import { acceptedWrite, transactionResult } from '../../src/domain/responses/write.responses';
import {
  addressLookupTablePage,
  addressLookupTableRecord,
  createAddressLookupTableResponse,
  extendAddressLookupTableResponse,
  updateAddressLookupTableResponse,
} from '../../src/domain/responses/address-lookup-table.responses';
import { createDurableNonceAccountsResponse, durableNonceAccountPage, durableNonceAccountRecord } from '../../src/domain/responses/durable-nonce.responses';
import {
  createOnchainDataSourceResponse,
  onchainDataSourcePage,
  onchainDataSourceRecord,
  refreshOracleDataSourceResponse,
  updateOracleDataSourceResponse,
} from '../../src/domain/responses/oracle-data-source.responses';
import { webhookDeliveriesResponse } from '../../src/domain/responses/webhook-delivery.responses';
import { approvalResponse, approvalsResponse } from '../../src/domain/responses/approval.responses';
import { createLoanResponse, createLoanStrategyResponse, loanDetailed, loanLevels, loanStrategyPage } from '../../src/domain/responses/loan.responses';
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { forkEm } from '../../src/main/runtime';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
type Levels = { identifiers: t.Mixed; compact: t.Mixed; detailed: t.Mixed };

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

/** Calls a route and decodes its answer with a codec; the answer's status must be `status`. */
async function decoded(
  codec: t.Mixed,
  status: number,
  method: string,
  url: string,
  body?: unknown,
  options?: { apiKey?: string | null; headers?: Record<string, string> },
) {
  const answer = await stack.call(method, url, body, options);
  const result = codec.decode(answer.body);
  const problems = result._tag === 'Left' ? reportErrors(result.left).map((e) => `${e.field} ${e.message}`) : [];
  expect({ url, status: answer.status, problems }).toEqual({ url, status, problems: [] });
  return answer.body;
}

/** Each detail level's page decodes with that level's record codec (and with the documented union). */
async function pages(levels: Levels, url: string, body: unknown = {}) {
  for (const level of ['identifiers', 'compact', 'detailed'] as const) {
    const page = await decoded(t.type({ count: t.number, items: t.array(levels[level]) }), 200, 'POST', `${url}/${level}`, body);
    expect(page.items.length).toBeGreaterThan(0);
    await decoded(bulkResponse(levels), 200, 'POST', `${url}/${level}`, body);
  }
}

it('answers every main route as its response codec says', async () => {
  await decoded(healthResponse, 200, 'GET', '/health', undefined, { apiKey: null });
  await decoded(readinessResponse, 200, 'GET', '/ready', undefined, { apiKey: null });

  const created = await decoded(createAccountResponse, 201, 'POST', '/api/v1/accounts', {
    itemData: { managed: true, seed: { amount: '0.5' }, offchainReferences: { type: 'WALLET', code: 'CONTRACT-1' } },
  });
  const wallet: Ref = created.newAccount;
  const authority: Ref = (
    await decoded(createAccountResponse, 201, 'POST', '/api/v1/accounts', {
      itemData: { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } },
    })
  ).newAccount;
  await decoded(updateAccountResponse, 200, 'PATCH', '/api/v1/accounts', {
    itemData: {
      account: { offchainId: wallet.offchainId },
      comments: 'contract',
      networkCurrencyDebitLimits: [{ destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 2.5 } }],
      postTransactionSubmitWebhooks: [{ endpointUrl: 'https://hooks.example.com/x', apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: 'secret' } }],
    },
  });
  await decoded(accountLevels.detailed, 200, 'POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: wallet.offchainId } } });
  await decoded(accountBalanceResponse, 200, 'POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: wallet.offchainId } } });
  await decoded(accountPrivateKeyResponse, 200, 'POST', '/api/v1/accounts/private-key', { itemData: { account: { offchainId: wallet.offchainId } } });
  const transferred = await decoded(transactionResult, 201, 'POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: authority.offchainId }, value: { amount: '0.010000001' } },
  });
  await pages(accountLevels, '/api/v1/accounts/bulk');

  await decoded(createDurableNonceAccountsResponse, 201, 'POST', '/api/v1/durable-nonce-accounts', {
    itemData: {
      nonceAccount: { offchainReferences: { type: 'NONCE', code: 'N-1' } },
      numberOfNonceAccounts: 1,
      nonceAuthority: { offchainId: authority.offchainId },
    },
  });
  await decoded(transactionResult, 201, 'POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: authority.offchainId }, value: { lamports: '1000' } },
    svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE' },
  });
  const nonces = await decoded(durableNonceAccountPage, 200, 'POST', '/api/v1/durable-nonce-accounts/bulk', {});
  expect(nonces.count).toBe(1);
  await decoded(durableNonceAccountRecord, 200, 'POST', '/api/v1/durable-nonce-accounts/single', {
    itemData: { nonceAccount: { onchainId: nonces.items[0].nonceAccount.onchain.id } },
  });

  const byAuthority = { offchainId: authority.offchainId };
  const instrument: Ref = (
    await decoded(createFinancialInstrumentResponse, 201, 'POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'TOKEN_2022',
        onchainData: { decimals: 6, symbol: 'CTR', name: 'Contract note' },
        mintAuthority: byAuthority,
        freezeAuthority: byAuthority,
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'CORPORATE_BOND' } } },
      },
    })
  ).newFinancialInstrument;
  await decoded(financialInstrumentLevels.detailed, 200, 'POST', '/api/v1/financial-instruments/single', {
    itemData: { financialInstrument: { onchainId: instrument.onchainId } },
  });
  await pages(financialInstrumentLevels, '/api/v1/financial-instruments/bulk');
  await decoded(tokenExtensionsCalculatorResponse, 200, 'POST', '/api/v1/financial-instruments/token-extensions-calculator', {
    extensions: ['PERMANENT_DELEGATE'],
  });

  const at = { owner: { offchainId: wallet.offchainId }, financialInstrument: { onchainId: instrument.onchainId } };
  await decoded(initializePositionResponse, 201, 'POST', '/api/v1/positions', { itemData: { positionToInitialize: at } });
  const minted = await decoded(transactionResult, 201, 'POST', '/api/v1/positions/mint', { itemData: { mintTo: at, value: { amount: '1250.000001' } } });
  await decoded(circulatingSupplyResponse, 200, 'POST', '/api/v1/financial-instruments/circulating-supply', {
    itemData: { financialInstrument: { offchainId: instrument.offchainId } },
  });
  await decoded(positionLevels.detailed, 200, 'POST', '/api/v1/positions/single', { itemData: { position: at } });
  const balance = await decoded(positionBalanceResponse, 200, 'POST', '/api/v1/positions/balance', { itemData: { position: at } });
  expect(balance.onchain.balance).toEqual({ amount: 1250.000001, lamports: 1250000001 });
  await pages(positionLevels, '/api/v1/positions/bulk');
  await decoded(positionHistoryResponse, 200, 'POST', '/api/v1/positions/history', { itemData: { position: at } });

  await decoded(transactionStatusResponse, 200, 'POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId: minted.offchainId } } });
  await decoded(transactionLevels.detailed, 200, 'POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: minted.offchainId } } });
  await pages(transactionLevels, '/api/v1/transactions/bulk');
  // The wallet's post-submit webhook (a receiver that is not there) logs a failed attempt, then a replay another.
  const deliveries = { itemData: { transaction: { offchainId: transferred.offchainId } } };
  const logged = await waitFor(
    async () => (await stack.call('POST', '/api/v1/transactions/webhook-deliveries', deliveries)).body.items?.[0] as { eventId: string } | undefined,
  );
  await decoded(webhookDeliveriesResponse, 200, 'POST', '/api/v1/transactions/webhook-deliveries', deliveries);
  await decoded(webhookDeliveriesResponse, 200, 'PATCH', '/api/v1/transactions/webhook-deliveries/replay', { itemData: { eventId: logged.eventId } });

  const table: Ref = (
    await decoded(createAddressLookupTableResponse, 201, 'POST', '/api/v1/address-lookup-tables', {
      itemData: { addressLookupTable: {}, authority: byAuthority, componentAddresses: [{ offchainId: wallet.offchainId }] },
    })
  ).newAddressLookupTable;
  const byTable = { addressLookupTable: { offchainId: table.offchainId } };
  await decoded(extendAddressLookupTableResponse, 200, 'PATCH', '/api/v1/address-lookup-tables/extend', {
    itemData: { ...byTable, componentAddresses: [{ onchainId: instrument.onchainId, offPlatform: true }] },
  });
  await decoded(updateAddressLookupTableResponse, 200, 'PATCH', '/api/v1/address-lookup-tables', { itemData: { ...byTable, deactivate: true } });
  await decoded(addressLookupTableRecord, 200, 'POST', '/api/v1/address-lookup-tables/single', { itemData: byTable });
  await decoded(addressLookupTablePage, 200, 'POST', '/api/v1/address-lookup-tables/bulk', {});

  const feed: Ref = (
    await decoded(createOnchainDataSourceResponse, 201, 'POST', '/api/v1/market-data/onchain-data-source', {
      itemData: {
        defiProtocol: 'LEDGER_FEED',
        onchainDataSource: {},
        financialInstrument: { offchainId: instrument.offchainId },
        onchainDataSourceAuthority: byAuthority,
        dataDetails: { kind: 'PRICE' },
        providerDetails: { kind: 'QUOTES', jobDefinition: '{"tasks":[{"valueTask":{"big":"1.25"}}]}' },
      },
    })
  ).newOnchainDataSource;
  const byFeed = { onchainDataSource: { offchainId: feed.offchainId } };
  await decoded(updateOracleDataSourceResponse, 200, 'PATCH', '/api/v1/market-data/onchain-data-source', {
    itemData: { ...byFeed, providerDetails: { jobDefinition: '{"tasks":[{"valueTask":{"big":"2.5"}}]}' } },
  });
  await decoded(updateOracleDataSourceResponse, 200, 'PATCH', '/api/v1/market-data/onchain-data-source', { itemData: { ...byFeed, refreshEverySeconds: 0 } });
  const refreshed = await decoded(refreshOracleDataSourceResponse, 200, 'PATCH', '/api/v1/market-data/onchain-data-source/refresh', { itemData: byFeed });
  expect(refreshed.latestValue.value).toBe(2.5);
  await decoded(onchainDataSourceRecord, 200, 'POST', '/api/v1/market-data/onchain-data-source/single', { itemData: byFeed });
  await decoded(onchainDataSourcePage, 200, 'POST', '/api/v1/market-data/onchain-data-source/bulk', {});

  // A transfer over a limit that names an approver waits for it (202 AWAITING_APPROVAL); the approver releases it.
  const { organization } = await ensureOrganization(forkEm(stack.runtime.orm), stack.runtime.sealer, stack.organizationExternalId);
  const approver = await createApiKey(forkEm(stack.runtime.orm), organization, ['APPROVE'], stack.config.platformName);
  const guarded: Ref = (
    await decoded(createAccountResponse, 201, 'POST', '/api/v1/accounts', {
      itemData: {
        managed: true,
        seed: { amount: '0.5' },
        offchainReferences: { type: 'WALLET' },
        networkCurrencyDebitLimits: [
          { destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '0.1', approversForOverride: [approver.id] } },
        ],
      },
    })
  ).newAccount;
  const held = await decoded(acceptedWrite, 202, 'POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: guarded.offchainId }, destination: { offchainId: wallet.offchainId }, value: { amount: '0.2' } },
  });
  const approvals = await decoded(approvalsResponse, 200, 'POST', '/api/v1/approvals/bulk', {
    itemQuery: { filter: [{ fieldName: 'transactionOffchainId', filterValues: [{ filterType: 'EQUALS', valueString: held.transaction.offchainId }] }] },
  });
  await decoded(
    approvalResponse,
    200,
    'PATCH',
    '/api/v1/approvals/approve',
    { itemData: { approval: { offchainId: approvals.items[0].offchainId }, comment: 'ok' } },
    { apiKey: approver.apiKey },
  );

  // A lender's strategy funded from the wallet's position; a borrower pledges the same instrument.
  const vault: Ref = (
    await decoded(createLoanStrategyResponse, 201, 'POST', '/api/v1/loans/strategies', {
      itemData: {
        strategy: {},
        lender: { offchainId: wallet.offchainId },
        principal: { financialInstrument: { onchainId: instrument.onchainId } },
        collateral: [{ financialInstrument: { onchainId: instrument.onchainId }, apy: [50_000], loanToValueRatio: 700_000, liquidationRatio: 800_000 }],
        originationCap: { amount: '1000' },
      },
    })
  ).newLoanStrategy;
  await decoded(transactionResult, 201, 'POST', '/api/v1/positions/transfer', {
    itemData: {
      source: at,
      destination: { owner: { offchainId: vault.offchainId }, financialInstrument: { onchainId: instrument.onchainId } },
      value: { amount: 500 },
      initializeDestinationPositionIfNeeded: true,
    },
  });
  await decoded(loanStrategyPage, 200, 'POST', '/api/v1/loans/strategies/bulk', {});
  const borrower: Ref = (
    await decoded(createAccountResponse, 201, 'POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, seed: { amount: '0.5' } } })
  ).newAccount;
  const borrowerAt = { owner: { offchainId: borrower.offchainId }, financialInstrument: { onchainId: instrument.onchainId } };
  const noPosition = await stack.call('POST', '/api/v1/loans', {
    itemData: {
      defiProtocol: 'LEDGER_ESCROW',
      protocolDetails: { loanStrategyAddress: vault.onchainId, expectedLoanValues: { expectedApy: 50_000, expectedLqt: [800_000] }, durationIndex: 0 },
      itemsToBorrow: [{ positionLookup: borrowerAt, value: { amount: 10 } }],
      itemsToPledge: [{ positionLookup: borrowerAt, value: { amount: 20 }, mintAsset: true }],
    },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(noPosition.body.errors[0]).toMatchObject({ code: 'NOT_FOUND', field: 'itemData.itemsToPledge[0].positionLookup' });
  await decoded(initializePositionResponse, 201, 'POST', '/api/v1/positions', { itemData: { positionToInitialize: borrowerAt } });
  const loan = await decoded(createLoanResponse, 201, 'POST', '/api/v1/loans', {
    itemData: {
      defiProtocol: 'LEDGER_ESCROW',
      protocolDetails: { loanStrategyAddress: vault.onchainId, expectedLoanValues: { expectedApy: 50_000, expectedLqt: [800_000] }, durationIndex: 0 },
      itemsToBorrow: [{ positionLookup: borrowerAt, value: { amount: 10 } }],
      itemsToPledge: [{ positionLookup: borrowerAt, value: { amount: 20 }, mintAsset: true }],
    },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  await decoded(loanDetailed, 200, 'POST', '/api/v1/loans/single', {
    itemData: { escrow: { onchainId: loan.newLoan.escrow.onchainId }, computeEstimatedInterestUntil: '2030-01-01T00:00:00Z' },
  });
  await pages(loanLevels, '/api/v1/loans/bulk');

  await decoded(
    acceptedWrite,
    202,
    'POST',
    '/api/v1/positions/mint',
    { itemData: { mintTo: at, value: { lamports: '1' } } },
    { headers: { prefer: 'respond-async' } },
  );
  await decoded(errorBody, 400, 'POST', '/api/v1/positions/mint', { itemData: { mintTo: at, value: { amount: 'ten' } } });
  await decoded(errorBody, 401, 'POST', '/api/v1/accounts/single', {}, { apiKey: null });
  await decoded(errorBody, 404, 'POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: '00000000-0000-4000-8000-000000000000' } } });
});

it('runs a client generated from the document: Create Account, then Fetch Accounts compact', async () => {
  // Loaded by path: its types are generated by the contract test, not part of the project's type check.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createAndList } = require(path.join(__dirname, '../client/round-trip.ts')) as {
    createAndList: (
      baseUrl: string,
      apiKey: string,
      code: string,
    ) => Promise<{ created: Ref; count: number; listed: { offchain: { id: string; code: string | null } }[] }>;
  };
  const result = await createAndList(stack.api.url, stack.apiKey, 'ROUND-TRIP-1');
  expect(result.count).toBe(1);
  expect(result.listed).toEqual([
    expect.objectContaining({
      onchain: expect.objectContaining({ id: result.created.onchainId }),
      offchain: expect.objectContaining({ id: result.created.offchainId, code: 'ROUND-TRIP-1', type: 'WALLET' }),
    }),
  ]);
});
