/**
 * Network events (API.md section 9, docs/chain-follower.md) on the real stack: deposits sent from
 * outside the service (a kit keypair funded by the node's faucet, transactions built with the kit,
 * never through the API) to an account with subscribeToNetworkEvents are recorded once by the
 * chain follower the worker started, with origin NETWORK, the balances moved and one
 * NETWORK_TRANSACTION delivery per account; an unsubscribed account keeps today's behaviour; the
 * service's own writes are not recorded twice; a replayed batch records nothing twice.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { address, createSolanaRpc, devnet, generateKeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import * as splToken from '@solana-program/token';
import * as token2022 from '@solana-program/token-2022';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { chainFollowerWorkflowId, networkEventsWorkflowId } from '../../src/follower/ids';
import { fundOutsideSender, type OutsideSender } from '../support/outside-sender';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
interface Delivery {
  path: string;
  body: { eventId: string; eventType: string; transaction: { onchainId: string; origin: string }; accounts: { offchainId: string }[]; operation: string };
}

let stack: Stack;
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof devnet>>>;
let outsideSender: OutsideSender;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  stack = await startStack();
  rpc = createSolanaRpc(devnet(stack.node.url));
  receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', body: JSON.parse(raw) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  outsideSender = await fundOutsideSender(rpc, 10_000_000_000n);
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const account = async (itemData: Record<string, unknown>): Promise<Ref> => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created).toMatchObject({ status: 201 });
  return created.body.newAccount;
};
const where = (fieldName: string, valueString: string) => ({
  fieldName,
  operator: 'AND',
  filterValues: [{ filterType: 'EQUALS', dataType: 'TEXT', valueString }],
});
/** Fetch Transactions (detailed) with these filters. */
const transactions = async (...filter: ReturnType<typeof where>[]): Promise<any[]> => {
  const answer = await stack.call('POST', '/api/v1/transactions/bulk/detailed', { itemQuery: { filter } });
  if (answer.status !== 200) throw new Error(`Fetch Transactions answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.items;
};
const bySignature = (signature: string) => transactions(where('onchainId', signature));
/** Lamports on record and on chain. */
const lamportsOf = async (ref: Ref) => {
  const body = (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;
  return { offchain: body.offchain.balance.lamports, onchain: body.onchain.balance.lamports };
};
const positionAt = (owner: Ref, mint: string) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: mint } });
/** The follower's durable cursor: the last slot it recorded. */
const cursor = async (): Promise<bigint> => {
  const [row] = await stack.runtime.orm.em.getConnection().execute<{ slot: string }[]>('select slot from chain_cursor where cluster = ?', ['LOCAL']);
  return row ? BigInt(row.slot) : -1n;
};
/** Waits until the follower has recorded past `slot`. */
const followedPast = (slot: bigint) => waitFor(async () => (await cursor()) >= slot, 60_000);

let vault: Ref;
let plain: Ref;
let depositSlot: bigint;
let depositSignature: string;

it('records a network-currency deposit from outside to a subscribed managed account once, origin NETWORK, balance moved, one NETWORK_TRANSACTION delivery', async () => {
  vault = await account({ managed: true, subscribeToNetworkEvents: true, postTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/vault` }] });
  plain = await account({ managed: true, postTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/plain` }] });
  const before = await lamportsOf(vault);

  const sent = await outsideSender.deposit(vault.onchainId, 1_234_567n);
  depositSlot = sent.slot;
  depositSignature = sent.signature;
  const [record] = await waitFor(async () => {
    const found = await bySignature(sent.signature);
    return found.length ? found : null;
  }, 60_000);
  const block = await rpc.getBlock(sent.slot, { maxSupportedTransactionVersion: 0, transactionDetails: 'none', rewards: false }).send();
  expect(record).toMatchObject({
    origin: 'NETWORK',
    operation: 'NETWORK_TRANSACTION',
    onchainId: sent.signature,
    success: true,
    slot: Number(sent.slot),
    fee: 5000,
    feePayer: outsideSender.payer.address,
    signers: [outsideSender.payer.address],
    txnTimestamp: new Date(Number(block!.blockTime) * 1000).toISOString(),
    accountOffchainIds: [vault.offchainId],
  });
  expect(['CONFIRMED', 'FINALIZED']).toContain(record.status);
  expect(record.statusHistory[0].status).toBe('CONFIRMED');

  const after = await lamportsOf(vault);
  expect(after.offchain).toBe(before.offchain + 1_234_567);
  expect(after.offchain).toBe(after.onchain);

  const event = await waitFor(async () => deliveries.find((d) => d.body.transaction?.onchainId === sent.signature));
  expect(event).toMatchObject({
    path: '/vault',
    body: {
      eventType: 'NETWORK_TRANSACTION',
      operation: 'NETWORK_TRANSACTION',
      // The record's origin, as Fetch Transaction shows it.
      transaction: { onchainId: sent.signature, origin: 'NETWORK' },
      accounts: [{ offchainId: vault.offchainId }],
    },
  });
  // The delivery log holds it under the same eventId (logged once the receiver answered), and a replay delivers it again under that eventId.
  const log = async () =>
    (await stack.call('POST', '/api/v1/transactions/webhook-deliveries', { itemData: { transaction: { offchainId: record.offchainId } } })).body.items as {
      eventId: string;
      eventType: string;
      attempt: number;
    }[];
  expect(await waitFor(async () => ((await log()).length ? log() : null))).toEqual([
    expect.objectContaining({ eventId: event.body.eventId, eventType: 'NETWORK_TRANSACTION', attempt: 1 }),
  ]);
  const replayed = await stack.call('PATCH', '/api/v1/transactions/webhook-deliveries/replay', { itemData: { eventId: event.body.eventId } });
  expect(replayed.status).toBe(200);
  await waitFor(async () => deliveries.filter((d) => d.body.eventId === event.body.eventId).length === 2);
  expect((await log()).map((d) => d.attempt)).toEqual([1, 2]);
});

it("shows the network transaction's signers: the addresses that signed it, fee payer first, as a service write's record lists them", async () => {
  // An outside keypair sends from its own address and the outside payer pays the fee: two signers.
  const source = await generateKeyPairSigner();
  await outsideSender.deposit(source.address, 100_000_000n);
  const sent = await outsideSender.send([getTransferSolInstruction({ source, destination: address(vault.onchainId), amount: 54_321n })], outsideSender.payer);
  const [record] = await waitFor(async () => {
    const found = await bySignature(sent.signature);
    return found.length ? found : null;
  }, 60_000);
  expect(record).toMatchObject({ origin: 'NETWORK', feePayer: outsideSender.payer.address, signers: [outsideSender.payer.address, source.address] });
});

it('records nothing for a deposit to an unsubscribed account (its record keeps what the service did)', async () => {
  const before = await lamportsOf(plain);
  const sent = await outsideSender.deposit(plain.onchainId, 777_000n);
  await followedPast(sent.slot);
  expect(await bySignature(sent.signature)).toEqual([]);
  expect((await lamportsOf(plain)).offchain).toBe(before.offchain);
  expect(deliveries.filter((d) => d.body.transaction?.onchainId === sent.signature)).toEqual([]);
});

it('does not record again a write the service sent for a subscribed account', async () => {
  const funded = await account({ managed: true, subscribeToNetworkEvents: true, seed: { amount: 1 } });
  const sent = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: funded.offchainId }, destination: { offchainId: vault.offchainId }, value: { lamports: '1000' } },
  });
  expect(sent.body).toMatchObject({ success: true });
  const own = await bySignature(sent.body.onchainId);
  expect(own).toHaveLength(1);
  await followedPast(BigInt(own[0].slot));
  const after = await bySignature(sent.body.onchainId);
  expect(after).toHaveLength(1);
  expect(after[0].origin).toBe('SERVICE');
  expect(await lamportsOf(funded)).toEqual(expect.objectContaining({ offchain: (await lamportsOf(funded)).onchain }));
});

it('Fetch Transactions filters on origin', async () => {
  const network = await transactions(where('origin', 'NETWORK'));
  expect(network.length).toBeGreaterThanOrEqual(1);
  expect(network.every((t) => t.origin === 'NETWORK')).toBe(true);
  expect(network.map((t) => t.onchainId)).toContain(depositSignature);
  const service = await transactions(where('origin', 'SERVICE'));
  expect(service.length).toBeGreaterThanOrEqual(1);
  expect(service.every((t) => t.origin === 'SERVICE')).toBe(true);
  const compact = (await stack.call('POST', '/api/v1/transactions/bulk/compact', { itemQuery: { filter: [where('origin', 'NETWORK')] } })).body.items;
  expect(compact[0].origin).toBe('NETWORK');
});

const tokenPrograms = [
  { version: 'SPL', lib: splToken, program: splToken.TOKEN_PROGRAM_ADDRESS },
  { version: 'TOKEN_2022', lib: token2022, program: token2022.TOKEN_2022_PROGRAM_ADDRESS },
] as const;

it.each(tokenPrograms)(
  'records a $version token deposit from outside into a new token account of a subscribed owner: a position record with the deposited balance, once',
  async ({ version, lib, program }) => {
    const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const mint = (
      await stack.call('POST', '/api/v1/financial-instruments', {
        itemData: {
          version,
          onchainData: { decimals: 6 },
          mintAuthority: { offchainId: authority.offchainId },
          mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
        },
      })
    ).body.newFinancialInstrument.onchainId as string;
    // The outside sender: a kit keypair the organization knows only as an unmanaged account, holding tokens.
    const sender = await generateKeyPairSigner();
    await outsideSender.deposit(sender.address, 1_000_000_000n);
    const senderRef = await account({ managed: false, alreadyOnchain: true, onchainId: sender.address });
    expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: positionAt(senderRef, mint) } })).status).toBe(201);
    const minted = await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: positionAt(senderRef, mint), value: { lamports: '5000000' } } });
    expect(minted.body).toMatchObject({ success: true });

    const owner = await account({ managed: true, subscribeToNetworkEvents: true, postTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/owner` }] });
    const [from] = await lib.findAssociatedTokenPda({ owner: sender.address, mint: address(mint), tokenProgram: program });
    const [to] = await lib.findAssociatedTokenPda({ owner: address(owner.onchainId), mint: address(mint), tokenProgram: program });
    const sent = await outsideSender.send(
      [
        lib.getCreateAssociatedTokenIdempotentInstruction({
          payer: sender,
          ata: to,
          owner: address(owner.onchainId),
          mint: address(mint),
          tokenProgram: program,
        }),
        lib.getTransferCheckedInstruction({ source: from, mint: address(mint), destination: to, authority: sender, amount: 1_500_000n, decimals: 6 }),
      ],
      sender,
    );
    const [record] = await waitFor(async () => {
      const found = await bySignature(sent.signature);
      return found.length ? found : null;
    }, 60_000);
    expect(record.origin).toBe('NETWORK');
    const position = await waitFor(async () => {
      const r = await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: positionAt(owner, mint) } });
      return r.status === 200 ? r.body : null;
    });
    expect(position.offchain.balance.lamports).toBe(1_500_000);
    expect(position.offchain.balance).toEqual(position.onchain.balance);
    expect(record.accountOffchainIds).toContain(owner.offchainId);
    await waitFor(async () => deliveries.find((d) => d.body.transaction?.onchainId === sent.signature && d.path === '/owner'));

    // A second deposit moves the now-known position by exactly what it changed.
    const again = await outsideSender.send(
      [lib.getTransferCheckedInstruction({ source: from, mint: address(mint), destination: to, authority: sender, amount: 250_000n, decimals: 6 })],
      sender,
    );
    await waitFor(async () => (await bySignature(again.signature)).length === 1, 60_000);
    const moved = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position: positionAt(owner, mint) } })).body;
    expect(moved.offchain.balance.lamports).toBe(1_750_000);
    expect(moved.offchain.balance).toEqual(moved.onchain.balance);
  },
);

it('exactly once: a batch replayed over slots already recorded (its completion lost) records and delivers nothing twice', async () => {
  const before = await lamportsOf(vault);
  const eventsBefore = deliveries.filter((d) => d.body.transaction?.onchainId === depositSignature).length;
  const now = await cursor();
  // As if the step that recorded the deposit had committed and then lost its completion: the cursor is back before it.
  await stack.runtime.orm.em.getConnection().execute('update chain_cursor set slot = ? where cluster = ?', [(depositSlot - 1n).toString(), 'LOCAL'], 'run');
  await followedPast(now);
  expect(await bySignature(depositSignature)).toHaveLength(1);
  expect(await lamportsOf(vault)).toEqual(before);
  expect(deliveries.filter((d) => d.body.transaction?.onchainId === depositSignature)).toHaveLength(eventsBefore);
});

it('starts no delivery workflow for a network record none of whose accounts has a post-submit webhook', async () => {
  const quiet = await account({ managed: true, subscribeToNetworkEvents: true });
  const sent = await outsideSender.deposit(quiet.onchainId, 13_000n);
  const [record] = await waitFor(async () => {
    const found = await bySignature(sent.signature);
    return found.length === 1 ? found : null;
  }, 60_000);
  // Past the follower's delivery mark too: its step starts deliveries right after recording.
  await followedPast(sent.slot + 2n);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const client = new Client({ connection, namespace: stack.config.temporal.namespace });
    await expect(client.workflow.getHandle(networkEventsWorkflowId(record.offchainId)).describe()).rejects.toThrow(WorkflowNotFoundError);
  } finally {
    await connection.close();
  }
});

it('turning subscribeToNetworkEvents off stops following; turning it on follows from the current slot, not the history', async () => {
  const toggled = await account({ managed: true, subscribeToNetworkEvents: true });
  const update = (subscribeToNetworkEvents: boolean) =>
    stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: toggled.offchainId }, subscribeToNetworkEvents } });
  expect((await update(false)).status).toBe(200);
  const whileOff = await outsideSender.deposit(toggled.onchainId, 11_000n);
  await followedPast(whileOff.slot);
  expect(await bySignature(whileOff.signature)).toEqual([]);

  // On again: the deposit made while off stays unrecorded (it is history, reconciliation's); the next one is recorded.
  expect((await update(true)).status).toBe(200);
  const whileOn = await outsideSender.deposit(toggled.onchainId, 22_000n);
  await waitFor(async () => (await bySignature(whileOn.signature)).length === 1, 60_000);
  await followedPast(whileOn.slot);
  expect(await bySignature(whileOff.signature)).toEqual([]);
});

it('turning subscribeToNetworkEvents on follows from the slot it was turned on at, however far behind the follower is: an earlier deposit stays unrecorded', async () => {
  const late = await account({ managed: true });
  const db = stack.runtime.orm.em.fork();
  let earlier: Awaited<ReturnType<OutsideSender['deposit']>> | undefined;
  // The follower held behind: its cursor row locked, so the tip it last saw stays put while the chain moves on.
  await db.transactional(async (em) => {
    const [held] = await em
      .getConnection()
      .execute<{ tip_slot: string }[]>('select tip_slot from chain_cursor where cluster = ? for update', ['LOCAL'], 'all', em.getTransactionContext());
    earlier = await outsideSender.deposit(late.onchainId, 31_000n);
    // Confirmed in a slot the follower has not seen, before the flag is turned on.
    expect(earlier.slot).toBeGreaterThan(BigInt(held.tip_slot));
    const on = await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: late.offchainId }, subscribeToNetworkEvents: true } });
    expect(on.status).toBe(200);
  });
  const later = await outsideSender.deposit(late.onchainId, 32_000n);
  await waitFor(async () => (await bySignature(later.signature)).length === 1, 60_000);
  await followedPast(later.slot);
  expect(await bySignature(earlier!.signature)).toEqual([]);
});

it('answers where it stands with the position query of its workflow (the Temporal Web UI shows it) and in the lag metrics', async () => {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const client = new Client({ connection, namespace: stack.config.temporal.namespace });
    const handle = client.workflow.getHandle(chainFollowerWorkflowId('LOCAL', stack.config.temporal.taskQueue));
    const recorded = await cursor();
    const position = await waitFor(async () => {
      const p = await handle.query<{ cluster: string; slot: number; tipSlot: number; lagSlots: number; lagSeconds: number; updatedAt: string } | null>(
        'position',
      );
      return p && BigInt(p.slot) >= recorded ? p : null;
    });
    expect(position).toMatchObject({ cluster: 'LOCAL', lagSlots: expect.any(Number), lagSeconds: expect.any(Number), updatedAt: expect.any(String) });
    expect(position.tipSlot).toBeGreaterThanOrEqual(position.slot);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // And in the metrics: lag in slots and seconds, network transactions recorded.
    const admin = await stack.newApiKey(stack.organizationExternalId, ['ADMIN']);
    const metrics = (await stack.call('GET', '/metrics', undefined, { apiKey: admin })).body as string;
    expect(metrics).toMatch(/^ledger_chain_follower_lag_slots\{cluster="LOCAL"\} \d+$/m);
    expect(metrics).toMatch(/^ledger_chain_follower_lag_seconds\{cluster="LOCAL"\} [\d.e-]+$/m);
    expect(metrics).toMatch(/^ledger_network_transactions_total\{cluster="LOCAL"\} [1-9]\d*$/m);
  } finally {
    await connection.close();
  }
});

it('exactly once: a batch that fails after recording (before its commit) is retried and records each deposit once, moving the balance once', async () => {
  const target = await account({ managed: true, subscribeToNetworkEvents: true });
  const db = stack.runtime.orm.em.getConnection();
  // The fault: the first cursor advance over a batch that recorded something fails, after the records and moves were made in its transaction.
  await db.execute(`create sequence follower_fault_seq`);
  await db.execute(`create function follower_fault() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from ledger_transaction where origin = 'NETWORK' and cluster = new.cluster and slot > old.slot and slot <= new.slot)
         and nextval('follower_fault_seq') = 1 then
        raise exception 'fault injected mid-batch';
      end if;
      return new;
    end $$`);
  await db.execute(`create trigger follower_fault before update of slot on chain_cursor for each row execute function follower_fault()`);
  try {
    const before = await lamportsOf(target);
    const sent = [await outsideSender.deposit(target.onchainId, 100_000n), await outsideSender.deposit(target.onchainId, 200_000n)];
    for (const { signature } of sent) await waitFor(async () => (await bySignature(signature)).length === 1, 60_000);
    await followedPast(sent[0].slot > sent[1].slot ? sent[0].slot : sent[1].slot);
    const [{ fired }] = await db.execute<{ fired: string }[]>(`select last_value as fired from follower_fault_seq`);
    expect(Number(fired)).toBeGreaterThanOrEqual(1);
    for (const { signature } of sent) expect(await bySignature(signature)).toHaveLength(1);
    const after = await lamportsOf(target);
    expect(after.offchain).toBe(before.offchain + 300_000);
    expect(after.offchain).toBe(after.onchain);
  } finally {
    await db.execute(`drop trigger follower_fault on chain_cursor`);
    await db.execute(`drop function follower_fault()`);
    await db.execute(`drop sequence follower_fault_seq`);
  }
});
