/**
 * Idempotency keys across the ways a write can be repeated: with secrets in the body, async after the
 * first run ended, after the first run is gone from Temporal, offchain-only writes, and writes that
 * only sign (their debits are not held), and a record step run twice at once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey, getBase58Decoder } from '@solana/kit';
import type { Steps } from '../../src/activities';
import { startStack, type Stack } from '../support/stack';
import { withoutLiveState } from '../support/expectations';
import { temporalTarget } from '../support/temporal';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
/** Writes whose idempotency key starts with this run their record step twice at once, as a workflow task retried while the first attempt still runs does. */
const RECORD_TWICE = 'record-twice-';
const recordTwice = (steps: Steps): Steps => ({
  ...steps,
  async record(request, resolved, outcome, part) {
    if (!request.idempotencyKey?.startsWith(RECORD_TWICE)) return steps.record(request, resolved, outcome, part);
    const [first] = await Promise.all([steps.record(request, resolved, outcome, part), steps.record(request, resolved, outcome, part)]);
    return first;
  },
});
beforeAll(async () => {
  stack = await startStack({ wrapSteps: recordTwice });
});
afterAll(async () => {
  await stack?.close();
});

const account = async (itemData: Record<string, unknown>) => (await stack.call('POST', '/api/v1/accounts', { itemData })).body.newAccount as Ref;
const balances = async (ref: Ref) => (await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } })).body;
const status = async (offchainId: string) => stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } });

it('repeats a write carrying a secret (an imported key) with the first result, not a conflict', async () => {
  const seed = randomBytes(32);
  const address = await getAddressFromPublicKey((await createKeyPairFromPrivateKeyBytes(seed)).publicKey);
  const itemData = {
    managed: true,
    privateKeyDetails: { location: ['DATABASE'], privateKey: getBase58Decoder().decode(seed), publickKey: address },
    seed: { amount: 0.01 },
  };
  const headers = { 'x-request-id': randomUUID() };
  const first = await stack.call('POST', '/api/v1/accounts', { itemData }, { headers });
  const again = await stack.call('POST', '/api/v1/accounts', { itemData }, { headers });
  expect(first.status).toBe(201);
  expect(again.status).toBe(201);
  expect(withoutLiveState(again.body)).toEqual(withoutLiveState(first.body));
});

it('an async repeat of a write whose run has ended answers from that run, leaving nothing PENDING', async () => {
  const wallet = await account({ managed: true });
  const body = { itemData: { account: { offchainId: wallet.offchainId }, comments: 'first' } };
  const headers = { 'x-request-id': randomUUID() };
  expect((await stack.call('PATCH', '/api/v1/accounts', body, { headers })).status).toBe(200);
  const repeat = await stack.call('PATCH', '/api/v1/accounts', body, { headers: { ...headers, prefer: 'respond-async' } });
  expect(repeat.body.transaction).toMatchObject({ status: 'FINALIZED' });
  const record = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: repeat.body.transaction.offchainId } } });
  expect(record.body).toMatchObject({ operation: 'UPDATE_ACCOUNT', accountOffchainIds: [wallet.offchainId] });
  // A refused write leaves no record; its async repeat answers the same refusal.
  const refusedBody = { itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: randomUUID() }, value: { amount: 1 } } };
  const refusedHeaders = { 'x-request-id': randomUUID() };
  expect((await stack.call('POST', '/api/v1/accounts/transfer-network-currency', refusedBody, { headers: refusedHeaders })).status).toBe(404);
  const refusedAgain = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', refusedBody, {
    headers: { ...refusedHeaders, prefer: 'respond-async' },
  });
  expect(refusedAgain.status).toBe(404);
  const pending = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {
    itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: 'PENDING' }] }] },
  });
  expect(pending.body.count).toBe(0);
  // The key is claimed by the offchain write: another body under it is refused.
  const other = await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: wallet.offchainId }, comments: 'second' } }, { headers });
  expect(other.status).toBe(409);
  expect(other.body.errors[0].field).toBe('x-request-id');
});

it('a key whose write was refused by its lookup is claimed: another body is 409 naming the header, the same body the same refusal', async () => {
  const wallet = await account({ managed: true });
  const vault = await account({ managed: true });
  const transfer = (destination: Ref, prefer?: string) =>
    stack.call(
      'POST',
      '/api/v1/accounts/transfer-network-currency',
      { itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: destination.offchainId }, value: { amount: 1 } } },
      { headers: { 'Idempotency-Key': key, ...(prefer ? { prefer } : {}) } },
    );
  const key = randomUUID();
  // Refused after its lookup (the destination is the source): no record, only the ended run.
  const refused = await transfer(wallet);
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].field).toBe('itemData.destination');
  for (const prefer of [undefined, 'respond-async']) {
    const other = await transfer(vault, prefer);
    expect(other.status).toBe(409);
    expect(other.body.errors[0]).toMatchObject({ code: 'CONFLICT', field: 'Idempotency-Key' });
  }
  const again = await transfer(wallet);
  expect(again.status).toBe(400);
  expect(again.body.errors[0]).toEqual(refused.body.errors[0]);
  // The conflicting async request left no PENDING record under the key.
  const pending = await stack.call('POST', '/api/v1/transactions/bulk/identifiers', {
    itemQuery: { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: 'PENDING' }] }] },
  });
  expect(pending.body.count).toBe(0);
});

it('a repeat after the first run is gone from Temporal answers from the record and sends nothing again', async () => {
  const wallet = await account({ managed: true, seed: { amount: 3 } });
  const vault = await account({ managed: true });
  const itemData = {
    source: { offchainId: wallet.offchainId },
    destination: { offchainId: vault.offchainId },
    value: { amount: 1 },
    idempotencyId: randomUUID(),
  };
  const first = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', { itemData });
  expect(first.body).toMatchObject({ success: true });
  // What retention does to a closed run.
  const target = temporalTarget();
  const connection = await Connection.connect({ address: target.address });
  try {
    const client = new Client({ connection, namespace: target.namespace });
    const record = (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: first.body.offchainId } } })).body;
    await client.workflowService.deleteWorkflowExecution({ namespace: target.namespace, workflowExecution: { workflowId: record.workflowId } });
  } finally {
    await connection.close();
  }
  const again = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', { itemData });
  expect(again.status).toBe(201);
  expect(withoutLiveState(again.body)).toEqual(withoutLiveState(first.body));
  const after = await balances(wallet);
  expect(after.onchain.balance.lamports).toBe(2_000_000_000);
  expect(after.offchain.balance).toEqual(after.onchain.balance);
});

it('a write that only signs holds its debit (Submit Transaction may send it later)', async () => {
  const limits = [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: 1, duration: { code: 'DAYS', unit: 1 } } }];
  const wallet = await account({ managed: true, seed: { amount: 2 }, networkCurrencyDebitLimits: limits });
  const vault = await account({ managed: true });
  const send = (submitTransaction: boolean) =>
    stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: wallet.offchainId }, destination: { offchainId: vault.offchainId }, value: { amount: 0.6 } },
      svmTransactionConfig: { submitTransaction },
    });
  const signed = await send(false);
  expect(signed.body).toMatchObject({ status: 'SIGNED' });
  expect((await send(true)).body.errors[0].code).toBe('LIMIT_EXCEEDED');
  expect((await status(signed.body.offchainId)).body.status).toBe('SIGNED');
});

it('records a landed write once when two attempts of its record step run at once: offchain balances move once, as onchain (found by the checker)', async () => {
  const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAuthority: { offchainId: authority.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  const position = {
    owner: { offchainId: (await account({ managed: true })).offchainId },
    financialInstrument: { onchainId: created.body.newFinancialInstrument.onchainId as string },
  };
  expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: position } })).status).toBe(201);
  const [from, to] = [await account({ managed: true, seed: { amount: 0.01 } }), await account({ managed: true, seed: { amount: 0.01 } })];
  for (let i = 1; i <= 2; i++) {
    const headers = { 'Idempotency-Key': `${RECORD_TWICE}${randomUUID()}` };
    expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: position, value: { lamports: '5' } } }, { headers })).body).toMatchObject({
      success: true,
    });
    const units = (await stack.call('POST', '/api/v1/positions/balance', { itemData: { position } })).body;
    expect([units.onchain.balance.lamports, units.offchain.balance.lamports]).toEqual([5 * i, 5 * i]);
    const sent = await stack.call(
      'POST',
      '/api/v1/accounts/transfer-network-currency',
      { itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: to.offchainId }, value: { lamports: '1000' } } },
      { headers: { 'Idempotency-Key': `${RECORD_TWICE}${randomUUID()}` } },
    );
    expect(sent.body).toMatchObject({ success: true });
    for (const ref of [from, to]) {
      const lamports = await balances(ref);
      expect(lamports.offchain.balance).toEqual(lamports.onchain.balance);
    }
  }
});
