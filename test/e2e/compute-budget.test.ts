/**
 * svmTransactionConfig.computeUnitConfig and commitmentConfig over the real stack (API, Temporal,
 * PostgreSQL, the local node): the limit from a simulation plus its margin, explicit limit and
 * price, the price estimated from the recent prioritization fees of the message's writable
 * accounts, what Fetch Transaction Details shows of it (units used, fee paid), the three commitment
 * levels, and bad values refused naming the field.
 */
import { createSolanaRpc, getBase64Encoder, getCompiledTransactionMessageDecoder, type Address, type Signature } from '@solana/kit';
import { computeUnitLimitFor } from '../../src/domain/fees';
import { startStack, type Stack } from '../support/stack';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc>;
/** Called when confirm has answered (the processed case resumes block production there). */
let afterConfirm: (() => void) | undefined;
beforeAll(async () => {
  stack = await startStack({
    wrapSteps: (steps) => ({
      ...steps,
      confirm: async (...args) => {
        const outcome = await steps.confirm(...args);
        afterConfirm?.();
        return outcome;
      },
    }),
  });
  rpc = createSolanaRpc(stack.node.url);
});
afterAll(async () => {
  await stack?.close();
});

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
/** The compute budget instructions of a serialized message, as `{limit, price}` (undefined: not set). */
function budgetOf(serializedMessage: string): { limit?: number; price?: bigint } {
  const message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(serializedMessage)) as unknown as {
    staticAccounts: string[];
    instructions: { programAddressIndex: number; data?: Uint8Array }[];
  };
  const budget: { limit?: number; price?: bigint } = {};
  for (const ix of message.instructions) {
    if (message.staticAccounts[ix.programAddressIndex] !== COMPUTE_BUDGET) continue;
    const data = Buffer.from(ix.data ?? []);
    if (data[0] === 2) budget.limit = data.readUInt32LE(1);
    if (data[0] === 3) budget.price = data.readBigUInt64LE(1);
  }
  return budget;
}

/** A managed account that pays its own fees, seeded with `sol`. */
const wallet = async (sol = 2): Promise<Ref> =>
  (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, seed: { amount: sol } } })).body.newAccount;
const lamportsOf = async (ref: Ref) => (await rpc.getBalance(ref.onchainId as Address, { commitment: 'confirmed' }).send()).value;
const details = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId } } })).body;
const landedMeta = async (signature: string) =>
  (await rpc.getTransaction(signature as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send())!.meta!;
/** 1,000 lamports from `from` (which pays the fee) to `to`, with this svmTransactionConfig. */
const transfer = (from: Ref, to: Ref, svmTransactionConfig: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: to.offchainId }, value: { lamports: '1000' } },
    svmTransactionConfig: { feePayer: { offchainId: from.offchainId }, ...svmTransactionConfig },
  });

// First in the file: a block's lowest fee counts for every account, so the priced transactions of
// the tests below would be among the recent fees of the next 150 blocks (15 s here).
describe('the price estimate', () => {
  it("takes the priority level's percentile of the recent prioritization fees of the message's writable accounts", async () => {
    const [payer, vault] = [await wallet(), await wallet(0.01)];
    // Three landed transactions writing payer and vault, each in its own block, at 100, 300 and 200 micro-lamports.
    for (const price of [100, 300, 200]) expect((await transfer(payer, vault, { computeUnitConfig: { limit: 10_000, price } })).status).toBe(201);
    const fees = (await rpc.getRecentPrioritizationFees([vault.onchainId as Address]).send()).map((f) => f.prioritizationFee).filter((fee) => fee > 0n);
    expect(fees.sort((a, b) => Number(a - b))).toEqual([100n, 200n, 300n]);

    const estimated = async (priceEstimate: Record<string, unknown>) => {
      const sent = await transfer(payer, vault, { computeUnitConfig: { priceEstimate } });
      expect(sent.status).toBe(201);
      const shown = await details(sent.body.offchainId);
      expect(budgetOf(sent.body.serializedMessage).price).toBe(BigInt(shown.computeUnitConfig.price));
      return shown.computeUnitConfig;
    };
    // Slots without fees left out: the median of 100, 200, 300 (an estimate that lands adds its own fee, so the next reads are of four).
    expect(await estimated({ provider: 'CLUSTER_RPC', calculationStrategy: 'EXCLUDE_ZEROES', priorityLevel: 'MEDIUM' })).toEqual({
      limit: expect.any(Number),
      limitSource: 'SIMULATED',
      simulatedUnits: expect.any(Number),
      price: '200',
      priceEstimate: { provider: 'CLUSTER_RPC', calculationStrategy: 'EXCLUDE_ZEROES', priorityLevel: 'MEDIUM', source: 'CLUSTER_RPC' },
    });
    expect((await estimated({ calculationStrategy: 'EXCLUDE_ZEROES', priorityLevel: 'UNSAFE_MAX' })).price).toBe('300');
    // DEFAULT counts the quiet slots of the last 150: the median is 0; provider and level default.
    expect(await estimated({})).toMatchObject({
      price: '0',
      priceEstimate: { provider: 'CLUSTER_RPC', calculationStrategy: 'DEFAULT', priorityLevel: 'RECOMMENDED' },
    });
  });
});

describe('the compute unit limit', () => {
  it('is the simulated units plus the margin when the budget is enabled without a limit; details show the units used and the fee the payer paid', async () => {
    const [payer, vault] = [await wallet(), await wallet(0.01)];
    const before = await lamportsOf(payer);
    const sent = await transfer(payer, vault, { computeUnitConfig: { enable: true } });
    expect(sent.status).toBe(201);
    const budget = budgetOf(sent.body.serializedMessage);
    const shown = await details(sent.body.offchainId);
    const meta = await landedMeta(sent.body.onchainId);

    // The message carries the limit the margin rule gives for what the simulation consumed, and no price.
    expect(shown.computeUnitConfig).toEqual({
      limit: budget.limit,
      limitSource: 'SIMULATED',
      simulatedUnits: expect.any(Number),
      price: null,
      priceEstimate: null,
    });
    expect(budget).toEqual({ limit: computeUnitLimitFor(shown.computeUnitConfig.simulatedUnits) });
    // A transfer consumes what its simulation did; the landed transaction stayed within the limit.
    expect(shown.computeUnitsConsumed).toBe(Number(meta.computeUnitsConsumed));
    expect(shown.computeUnitsConsumed).toBe(shown.computeUnitConfig.simulatedUnits);
    expect(shown.computeUnitsConsumed).toBeLessThanOrEqual(budget.limit!);
    // A transfer is small: its margin is the floor of 1,000 units.
    expect(budget.limit).toBe(shown.computeUnitsConsumed + 1000);
    // The fee shown is the chain's, and what the payer's balance lost besides the 1,000 lamports sent.
    expect(BigInt(shown.fee)).toBe(meta.fee);
    expect(before - (await lamportsOf(payer)) - 1000n).toBe(meta.fee);
    expect(meta.fee).toBe(5000n);
  });

  it('uses an explicit limit and price as given, and the fee charges the price on the limit', async () => {
    const [payer, vault] = [await wallet(), await wallet(0.01)];
    const before = await lamportsOf(payer);
    const sent = await transfer(payer, vault, { computeUnitConfig: { limit: 50_000, price: 2_000_000 } });
    expect(sent.status).toBe(201);
    expect(budgetOf(sent.body.serializedMessage)).toEqual({ limit: 50_000, price: 2_000_000n });
    const shown = await details(sent.body.offchainId);
    expect(shown.computeUnitConfig).toEqual({ limit: 50_000, limitSource: 'GIVEN', simulatedUnits: null, price: '2000000', priceEstimate: null });
    // 5,000 for the signature plus 50,000 units × 2 lamports.
    expect(BigInt(shown.fee)).toBe(105_000n);
    expect(before - (await lamportsOf(payer)) - 1000n).toBe(105_000n);
  });

  it('is simulated under an explicit price too', async () => {
    const [payer, vault] = [await wallet(), await wallet(0.01)];
    const sent = await transfer(payer, vault, { computeUnitConfig: { price: 1_000 } });
    const shown = await details(sent.body.offchainId);
    expect(shown.computeUnitConfig).toMatchObject({ limitSource: 'SIMULATED', price: '1000' });
    expect(budgetOf(sent.body.serializedMessage)).toEqual({ limit: computeUnitLimitFor(shown.computeUnitConfig.simulatedUnits), price: 1_000n });
    expect(BigInt(shown.fee)).toBe(5000n + BigInt(Math.ceil((shown.computeUnitConfig.limit * 1_000) / 1e6)));
  });
});

describe('commitmentConfig.commitmentLevel', () => {
  /**
   * Blocks close every 100 ms here, so a transaction is often confirmed by the time confirm first
   * looks (and then answers CONFIRMED, the truth). For `processed`, no block closes until confirm
   * has answered: it must answer at `processed`, without waiting for a block.
   */
  async function sentWhileBlocksPaused(commitmentLevel: string, send: () => ReturnType<typeof transfer>) {
    if (commitmentLevel !== 'processed') return send();
    const resume = stack.node.pauseBlocks();
    afterConfirm = resume;
    try {
      return await send();
    } finally {
      afterConfirm = undefined;
      resume();
    }
  }

  it.each([
    ['processed', 'SUBMITTED', ['processed', 'confirmed', 'finalized']],
    ['confirmed', 'CONFIRMED', ['confirmed', 'finalized']],
    ['finalized', 'FINALIZED', ['finalized']],
  ])('%s: the write answers %s once the transaction reached that level', async (commitmentLevel, status, reached) => {
    const [payer, vault] = [await wallet(), await wallet(0.01)];
    const sent = await sentWhileBlocksPaused(commitmentLevel, () => transfer(payer, vault, { commitmentConfig: { commitmentLevel } }));
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ success: true, status });
    const { value } = await rpc.getSignatureStatuses([sent.body.onchainId as Signature]).send();
    expect(reached).toContain(value[0]?.confirmationStatus);
    const shown = await details(sent.body.offchainId);
    // A later read: the chain follower may since have moved the record on towards FINALIZED (docs/finality.md).
    const onwards = ['SUBMITTED', 'CONFIRMED', 'FINALIZED'];
    expect(onwards.slice(onwards.indexOf(status))).toContain(shown.status);
    // The record is the chain's at every level: the fee paid and both offchain balances.
    expect(BigInt(shown.fee)).toBe((await landedMeta(sent.body.onchainId)).fee);
    for (const account of [payer, vault]) {
      const balance = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: account.offchainId } } })).body;
      expect(balance.offchain.balance).toEqual(balance.onchain.balance);
    }
  });
});

describe('bad values', () => {
  it.each([
    ['computeUnitConfig.priceEstimate.provider', { computeUnitConfig: { priceEstimate: { provider: 'HELIUS' } } }],
    ['computeUnitConfig.priceEstimate.calculationStrategy', { computeUnitConfig: { priceEstimate: { calculationStrategy: 'AVERAGE' } } }],
    ['computeUnitConfig.priceEstimate.priorityLevel', { computeUnitConfig: { priceEstimate: { priorityLevel: 'URGENT' } } }],
    ['computeUnitConfig.limit', { computeUnitConfig: { limit: 1_400_001 } }],
    ['computeUnitConfig.price', { computeUnitConfig: { price: -1 } }],
    ['computeUnitConfig.priceEstimate', { computeUnitConfig: { price: 5, priceEstimate: {} } }],
    ['commitmentConfig.commitmentLevel', { commitmentConfig: { commitmentLevel: 'final' } }],
  ])('refuses %s with 400 naming it, and writes nothing', async (field, config) => {
    const [payer, vault] = [await wallet(), await wallet(0.01)];
    const count = async () => (await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {})).body.count as number;
    const transactions = await count();
    const before = await lamportsOf(payer);
    const refused = await transfer(payer, vault, config);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: `svmTransactionConfig.${field}` });
    expect(await count()).toBe(transactions);
    expect(await lamportsOf(payer)).toBe(before);
  });
});
