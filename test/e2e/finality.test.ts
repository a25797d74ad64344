/**
 * Finality following (API.md section 9, docs/finality.md): a landed write is followed to FINALIZED
 * with live, monotonic confirmations and the block's time, with no client call. The follower's tick
 * (advanceFinality) is called here directly against the stack's database and network.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSolanaRpc, type Signature } from '@solana/kit';
import { advanceFinality } from '../../src/follower/finality';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc>;
beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(stack.node.url);
});
afterAll(async () => {
  await stack?.close();
});

type Ref = { onchainId: string; offchainId: string };
const account = async (itemData: Record<string, unknown>) => (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as Ref;
const details = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId } } })).body;
const balance = async (ref: Ref) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;
const tick = () => advanceFinality({ orm: stack.runtime.orm, networks: stack.runtime.networks, now: () => new Date() }, stack.runtime.networks.defaultCluster);
const positionAt = (owner: Ref, mint: string) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } });
/** A position's balance in base units, after checking the record agrees with the chain. */
const units = async (owner: Ref, mint: string): Promise<number> => {
  const body = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: positionAt(owner, mint) } })).body;
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports;
};
/** Lamports on record, after checking the record agrees with the chain. */
const lamportsOf = async (ref: Ref): Promise<number> => {
  const body = await balance(ref);
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports;
};
const send = (from: Ref, to: Ref, lamports: string, svmTransactionConfig: Record<string, unknown> = {}) =>
  stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: to.offchainId }, value: { lamports } },
    svmTransactionConfig,
  });

it('follows a write answered CONFIRMED to FINALIZED: confirmations grow and stay above 0, the history shows both, txnTimestamp is the block time', async () => {
  const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 } }), await account({ managed: true })];
  const sent = await send(wallet, vault, '1000');
  expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
  const answered = await details(sent.body.offchainId);
  const slot = BigInt(answered.slot);
  const blockTime = await rpc.getBlockTime(slot).send();
  expect(new Date(answered.txnTimestamp).getTime()).toBe(Number(blockTime) * 1000);

  // A few blocks on, still below finality: the count grows.
  stack.node.advanceSlots(5);
  await tick();
  const growing = await details(sent.body.offchainId);
  expect(growing.status).toBe('CONFIRMED');
  expect(growing.confirmationsCount).toBeGreaterThanOrEqual(5);

  stack.node.advanceSlots(40);
  await tick();
  const final = await details(sent.body.offchainId);
  expect(final).toMatchObject({ status: 'FINALIZED', success: true });
  expect(final.confirmationsCount).toBeGreaterThanOrEqual(growing.confirmationsCount);
  expect(final.statusHistory.map((s: { status: string }) => s.status).slice(-2)).toEqual(['CONFIRMED', 'FINALIZED']);
  expect(new Date(final.txnTimestamp).getTime()).toBe(Number(blockTime) * 1000);

  // A replayed tick changes nothing.
  await tick();
  expect(await details(sent.body.offchainId)).toEqual(final);
  const [from, to] = [await balance(wallet), await balance(vault)];
  expect(from.offchain.balance).toEqual(from.onchain.balance);
  expect(to.offchain.balance).toEqual(to.onchain.balance);
});

it('with no call at all, the chain follower running in the worker moves a confirmed write to FINALIZED', async () => {
  const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 } }), await account({ managed: true })];
  const sent = await send(wallet, vault, '1000');
  expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
  // About 32 blocks of 400 ms, then the follower's next tick.
  const final = await waitFor(
    async () => {
      const shown = await details(sent.body.offchainId);
      return shown.status === 'FINALIZED' && shown;
    },
    90_000,
    250,
  );
  expect(final.confirmationsCount).toBeGreaterThan(0);
  expect(final.statusHistory.map((s: { status: string }) => s.status).slice(-2)).toEqual(['CONFIRMED', 'FINALIZED']);
});

it('follows a write answered SUBMITTED (at processed) through CONFIRMED to FINALIZED', async () => {
  const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 } }), await account({ managed: true })];
  // The chain held: the transfer stays at processed until the test moves it on, however late the write's first poll.
  const resume = stack.node.pauseBlocks();
  let sent;
  try {
    sent = await send(wallet, vault, '1000', { commitmentConfig: { commitmentLevel: 'processed' } });
    expect(sent.body).toMatchObject({ success: true, status: 'SUBMITTED' });
    expect((await details(sent.body.offchainId)).status).toBe('SUBMITTED');
  } finally {
    resume();
  }
  stack.node.advanceSlots(2);
  await tick();
  expect((await details(sent.body.offchainId)).status).toBe('CONFIRMED');
  stack.node.advanceSlots(40);
  await tick();
  const final = await details(sent.body.offchainId);
  expect(final.status).toBe('FINALIZED');
  expect(final.confirmationsCount).toBeGreaterThan(0);
  expect(final.statusHistory.map((s: { status: string }) => s.status).slice(-3)).toEqual(['SUBMITTED', 'CONFIRMED', 'FINALIZED']);
  expect(new Date(final.txnTimestamp).getTime()).toBe(Number(await rpc.getBlockTime(BigInt(final.slot)).send()) * 1000);
});

it('a write answered at finalized keeps a confirmations count above 0', async () => {
  const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 } }), await account({ managed: true })];
  const sent = await send(wallet, vault, '1000', { commitmentConfig: { commitmentLevel: 'finalized' } });
  expect(sent.body).toMatchObject({ success: true, status: 'FINALIZED' });
  expect(sent.body.confirmationsCount).toBeGreaterThan(0);
  const { value } = await rpc.getSignatureStatuses([sent.body.onchainId as Signature]).send();
  expect(value[0]?.confirmationStatus).toBe('finalized');
  await waitFor(async () => (await details(sent.body.offchainId)).confirmationsCount > 0);
});

it('a network-currency and a token transfer that leave the chain before finalization end FAILED, with every balance restored, once', async () => {
  const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const mint = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 6 },
        mintAuthority: { offchainId: authority.offchainId },
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
      },
    })
  ).body.newFinancialInstrument.onchainId as string;
  // A daily limit of 0.3 that the 0.25 sent below fills: once the transfer left the chain, its debit no longer counts.
  const dailyLimit = [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: 0.3, duration: { code: 'DAYS', unit: 1 } } }];
  const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 }, networkCurrencyDebitLimits: dailyLimit }), await account({ managed: true })];
  for (const owner of [wallet, vault]) {
    expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: positionAt(owner, mint) } })).status).toBe(201);
  }
  expect(
    (await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: positionAt(wallet, mint), value: { lamports: '5000000' } } })).body,
  ).toMatchObject({
    success: true,
  });
  // Everything so far final, so the fork below abandons only the two transfers.
  stack.node.advanceSlots(40);
  await tick();
  const before = {
    wallet: await lamportsOf(wallet),
    vault: await lamportsOf(vault),
    walletUnits: await units(wallet, mint),
    vaultUnits: await units(vault, mint),
  };

  const sent = await send(wallet, vault, '250000000');
  const moved = await stack.call('POST', '/api/v1/positions/transfer', {
    itemData: { source: positionAt(wallet, mint), destination: positionAt(vault, mint), value: { lamports: '1500000' } },
  });
  // Held below finality: confirmed, on record, not finalized.
  const resume = stack.node.pauseBlocks();
  try {
    expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect(moved.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect(await lamportsOf(vault)).toBe(before.vault + 250_000_000);
    expect(await units(vault, mint)).toBe(before.vaultUnits + 1_500_000);
    await tick();
    expect((await details(sent.body.offchainId)).status).toBe('CONFIRMED');

    expect(stack.node.dropUnfinalizedBlocks()).toEqual(expect.arrayContaining([sent.body.onchainId, moved.body.onchainId]));
    // Not yet past the finalized slot: a missing status alone is no proof.
    await tick();
    expect((await details(sent.body.offchainId)).status).toBe('CONFIRMED');
    stack.node.advanceSlots(40);
    // Two ticks at once (and the chain follower's own, running in the worker): the record's row lock lets one end it, once.
    const reports = await Promise.all([tick(), tick()]);
    expect(reports.reduce((sum, r) => sum + r.leftChain, 0)).toBeLessThanOrEqual(2);
  } finally {
    resume();
  }
  for (const offchainId of [sent.body.offchainId, moved.body.offchainId]) {
    const failed = await details(offchainId);
    expect(failed).toMatchObject({ status: 'FAILED', success: false, errorMessage: expect.stringContaining('left the chain before finalization') });
    expect(failed.statusHistory.map((s: { status: string }) => s.status).slice(-2)).toEqual(['CONFIRMED', 'FAILED']);
  }
  // Restored, and equal to the chain (checked inside the helpers).
  expect(await lamportsOf(wallet)).toBe(before.wallet);
  expect(await lamportsOf(vault)).toBe(before.vault);
  expect(await units(wallet, mint)).toBe(before.walletUnits);
  expect(await units(vault, mint)).toBe(before.vaultUnits);

  // A replayed tick restores nothing twice.
  const failedRecord = await details(sent.body.offchainId);
  expect((await tick()).leftChain).toBe(0);
  expect(await details(sent.body.offchainId)).toEqual(failedRecord);
  expect(await lamportsOf(vault)).toBe(before.vault);
  expect(await units(vault, mint)).toBe(before.vaultUnits);

  // The dropped debit gave its share of the daily window back.
  expect((await send(wallet, vault, '250000000')).body).toMatchObject({ success: true, status: 'CONFIRMED' });
  const over = await send(wallet, vault, '250000000');
  expect(over.body.errors[0]).toMatchObject({ code: 'LIMIT_EXCEEDED' });
});

it('a write that left the chain tells its post-submit webhooks again: a second event, FAILED, under its own eventId', async () => {
  const events: { eventId: string; status: string; errorMessage: string | null; origin: string }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const event = JSON.parse(body);
      const { status, errorMessage, origin } = event.transaction;
      events.push({ eventId: event.eventId, status, errorMessage, origin });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const hooks = [{ endpointUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` }];
    const [wallet, vault] = [await account({ managed: true, seed: { amount: 1 }, postTransactionSubmitWebhooks: hooks }), await account({ managed: true })];
    stack.node.advanceSlots(40);
    const sent = await send(wallet, vault, '100000000');
    // Held below finality: confirmed, on record, not finalized.
    const resume = stack.node.pauseBlocks();
    try {
      expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
      const postSubmit = `${sent.body.offchainId}:TRANSACTION_POST_SUBMIT`;
      await waitFor(async () => events.some((e) => e.eventId === postSubmit));
      expect(stack.node.dropUnfinalizedBlocks()).toContain(sent.body.onchainId);
      // Past finality: the chain follower running in the worker ends the record and starts the second event.
      stack.node.advanceSlots(40);
      await waitFor(async () => events.some((e) => e.eventId === `${postSubmit}:LEFT_CHAIN`), 60_000);
      expect(events.filter((e) => e.eventId.startsWith(sent.body.offchainId))).toEqual([
        { eventId: postSubmit, status: 'CONFIRMED', errorMessage: null, origin: 'SERVICE' },
        {
          eventId: `${postSubmit}:LEFT_CHAIN`,
          status: 'FAILED',
          errorMessage: expect.stringContaining('left the chain before finalization'),
          origin: 'SERVICE',
        },
      ]);
      expect((await details(sent.body.offchainId)).status).toBe('FAILED');
    } finally {
      resume();
    }
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
