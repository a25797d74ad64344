/**
 * Loans valued at oracle prices (docs/loans.md, docs/oracle-data-sources.md), on the real stack with a
 * price source the test serves on 127.0.0.1: a GOLD-backed USD loan opens below its loan-to-value
 * limit; a refresh to a lower price that keeps it under its liquidation ratio changes nothing; a
 * refresh past it makes the loan's workflow liquidate it at once (no term has run out), the GOLD
 * collateral moved to the lender's vault exactly once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let server: http.Server;
let goldPrice = '100';
let authority: Ref;

const at = (owner: Ref, instrument: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: instrument.onchainId } });
const account = async (itemData: Record<string, unknown> = { managed: true }) =>
  (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as Ref;
async function instrument(): Promise<Ref> {
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 6 },
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STABLECOIN' } } },
    },
  });
  expect(created.status).toBe(201);
  return created.body.newFinancialInstrument;
}
async function mint(owner: Ref, of: Ref, amount: number) {
  await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner, of) } });
  expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner, of), value: { amount } } })).body).toMatchObject({
    success: true,
  });
}
async function feed(of: Ref, jobDefinition: string): Promise<Ref> {
  const created = await stack.call('POST', '/api/v1/market-data/onchain-data-source', {
    itemData: {
      defiProtocol: 'LEDGER_FEED',
      onchainDataSource: {},
      financialInstrument: { offchainId: of.offchainId },
      onchainDataSourceAuthority: { offchainId: authority.offchainId },
      dataDetails: { kind: 'PRICE' },
      providerDetails: { kind: 'QUOTES', jobDefinition },
    },
  });
  expect(created.status).toBe(201);
  return created.body.newOnchainDataSource;
}
const refresh = async (source: Ref) =>
  expect(
    (await stack.call('PATCH', '/api/v1/market-data/onchain-data-source/refresh', { itemData: { onchainDataSource: { offchainId: source.offchainId } } }))
      .status,
  ).toBe(200);
const loan = async (escrow: string) => (await stack.call('POST', '/api/v1/loans/single', { itemData: { escrow: { onchainId: escrow } } })).body;
const held = async (owner: Ref, of: Ref) =>
  String((await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: at(owner, of) } })).body.onchain.balance.amount);

beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ price: goldPrice })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stack = await startStack();
  authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => server?.close(resolve));
});

it('liquidates a loan as soon as a price refresh puts it past its liquidation ratio, and not before', async () => {
  const [usd, gold] = [await instrument(), await instrument()];
  await feed(usd, JSON.stringify({ tasks: [{ valueTask: { big: '1' } }] }));
  const goldFeed = await feed(
    gold,
    JSON.stringify({
      tasks: [{ httpTask: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/gold` } }, { jsonParseTask: { path: '$.price' } }],
    }),
  );

  // A vault lending USD against GOLD: at most 50 % of the collateral's value, liquidated past 80 %.
  const lender = await account();
  await mint(lender, usd, 10_000);
  const vault = (
    await stack.call('POST', '/api/v1/loans/strategies', {
      itemData: {
        strategy: {},
        lender: { offchainId: lender.offchainId },
        principal: { financialInstrument: { onchainId: usd.onchainId } },
        collateral: [{ financialInstrument: { onchainId: gold.onchainId }, apy: [100_000, 100_000], loanToValueRatio: 500_000, liquidationRatio: 800_000 }],
      },
    })
  ).body.newLoanStrategy as Ref;
  expect(
    (
      await stack.call('POST', '/api/v1/positions/transfer', {
        itemData: { source: at(lender, usd), destination: at(vault, usd), value: { amount: 5_000 }, initializeDestinationPositionIfNeeded: true },
      })
    ).body,
  ).toMatchObject({ success: true });

  // 10 GOLD at 100 = 1,000 of collateral; 400 USD borrowed: 40 %.
  const borrower = await account({ managed: true, canPayFees: true, seed: { amount: 1 } });
  await mint(borrower, gold, 10);
  await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(borrower, usd) } });
  const created = await stack.call('POST', '/api/v1/loans', {
    itemData: {
      defiProtocol: 'LEDGER_ESCROW',
      protocolDetails: { loanStrategyAddress: vault.onchainId, expectedLoanValues: { expectedApy: 100_000, expectedLqt: [800_000] }, durationIndex: 1 },
      itemsToBorrow: [{ positionLookup: at(borrower, usd), value: { amount: 400 } }],
      itemsToPledge: [{ positionLookup: at(borrower, gold), value: { amount: 10 } }],
    },
    svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
  });
  expect(created.status).toBe(201);
  const escrow = created.body.newLoan.escrow.onchainId as string;
  expect((await loan(escrow)).status).toBe('OPEN');

  // GOLD at 60: 400 over 600 is about 67 %, under the 80 % ratio: the loan stays open.
  goldPrice = '60';
  await refresh(goldFeed);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect((await loan(escrow)).status).toBe('OPEN');

  // GOLD at 45: 400 over 450 is about 89 %: liquidated at once, the collateral to the lender's vault.
  goldPrice = '45';
  await refresh(goldFeed);
  await waitFor(async () => (await loan(escrow)).status === 'LIQUIDATED', 30_000, 200);
  expect(await held(vault, gold)).toBe('10');
  expect(await held(borrower, usd)).toBe('400');
});
