/**
 * A named fee payer, a transaction the network refuses, and the webhooks around submission:
 * pre-submit (may veto) and post-submit (signed deliveries), against a real receiver on 127.0.0.1.
 */
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';
import { forkEm } from '../../src/main/runtime';
import { Organization } from '../../src/db/entities';

interface Delivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let stack: Stack;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
/** Status the receiver answers per path. */
const answers: Record<string, number> = { '/veto': 500, '/ok': 200, '/post': 200 };

beforeAll(async () => {
  stack = await startStack();
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      deliveries.push({ path: req.url!, headers: req.headers, body });
      res.writeHead(answers[req.url!] ?? 404).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await stack?.close();
});

async function feePayerWith(itemData: Record<string, unknown>) {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, ...itemData } });
  expect(created.status).toBe(201);
  return created.body.newAccount as { onchainId: string; offchainId: string };
}

/** The onchain balance, after checking that the offchain record agrees with it. */
async function balance(offchainId: string) {
  const { body } = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } });
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports as number;
}

it('pays with the named fee payer', async () => {
  const payer = await feePayerWith({ seed: { amount: 0.1 } });
  const before = await balance(payer.offchainId);
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: 2_000_000 } }, svmTransactionConfig: { feePayer: { offchainId: payer.offchainId } } });
  expect(created.status).toBe(201);
  expect(await balance(payer.offchainId)).toBe(before - 2_000_000 - 2 * 5000);
  const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: payer.offchainId } } });
  expect(details.body.onchain.lastTransactionId).toBe(created.body.svmTransaction.onchainId);
  const tx = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: created.body.svmTransaction.offchainId } } });
  expect(tx.body.accountOffchainIds).toEqual([created.body.newAccount.offchainId, payer.offchainId]);
});

it('refuses a fee payer that may not pay fees, naming it', async () => {
  const notPayer = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.01 } } });
  const refused = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true }, svmTransactionConfig: { feePayer: { offchainId: notPayer.body.newAccount.offchainId } } });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].field).toBe('svmTransactionConfig.feePayer');
});

it('reports a transaction the network refuses as success false, and records no account', async () => {
  const payer = await feePayerWith({ seed: { lamports: 5_000_000 } });
  const before = await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {});
  const refused = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 1 } }, svmTransactionConfig: { feePayer: { offchainId: payer.offchainId } } });
  expect(refused.status).toBe(201);
  expect(refused.body.newAccount).toBeNull();
  expect(refused.body.svmTransaction).toMatchObject({ success: false, status: 'FAILED', errorMessage: expect.stringContaining('insufficient lamports') });
  expect((await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {})).body.count).toBe(before.body.count);
  expect(await balance(payer.offchainId)).toBe(5_000_000);
});

it('does not submit when a pre-submit webhook that may veto fails (REJECTED), and submits when it answers 2xx', async () => {
  const vetoing = await feePayerWith({ seed: { amount: 0.05 }, preTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/veto`, doNotSubmitTransactionOnFailure: true }] });
  const before = await balance(vetoing.offchainId);
  const rejected = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: 1_000_000 } }, svmTransactionConfig: { feePayer: { offchainId: vetoing.offchainId } } });
  expect(rejected.status).toBe(201);
  expect(rejected.body.svmTransaction).toMatchObject({ success: false, status: 'REJECTED' });
  expect(await balance(vetoing.offchainId)).toBe(before);
  const call = deliveries.find((d) => d.path === '/veto')!;
  expect(JSON.parse(call.body)).toMatchObject({ eventType: 'TRANSACTION_PRE_SUBMIT', transaction: { offchainId: rejected.body.svmTransaction.offchainId } });

  const approving = await feePayerWith({ seed: { amount: 0.05 }, preTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/ok`, doNotSubmitTransactionOnFailure: true }] });
  const submitted = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: 1_000_000 } }, svmTransactionConfig: { feePayer: { offchainId: approving.offchainId } } });
  expect(submitted.body.svmTransaction).toMatchObject({ success: true, status: 'CONFIRMED' });
});

it("calls the webhooks of every signer, not only the fee payer's: a source account's veto stops its transfer", async () => {
  const source = await feePayerWith({ seed: { amount: 0.05 }, preTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/veto`, doNotSubmitTransactionOnFailure: true }] });
  const destination = await feePayerWith({});
  const before = await balance(source.offchainId);
  const vetoed = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', { itemData: { source: { offchainId: source.offchainId }, destination: { offchainId: destination.offchainId }, value: { lamports: '1000' } } });
  expect(vetoed.body).toMatchObject({ success: false, status: 'REJECTED' });
  expect(await balance(source.offchainId)).toBe(before);
  expect(deliveries.some((d) => d.path === '/veto' && JSON.parse(d.body).transaction?.offchainId === vetoed.body.offchainId)).toBe(true);
});

it('delivers post-submit webhooks signed with the organization secret and carrying the configured API key', async () => {
  const created = await stack.call('POST', '/api/v1/accounts', {
    itemData: { managed: true, seed: { lamports: 1_000_000 }, postTransactionSubmitWebhooks: [{ endpointUrl: `${receiverUrl}/post`, apiKeyAuthConfig: { httpHeaderName: 'X-Receiver-Key', keyValue: 'receiver-secret' } }] },
  });
  expect(created.status).toBe(201);
  const delivery = await waitFor(async () => deliveries.find((d) => d.path === '/post' && d.body.includes(created.body.svmTransaction.offchainId)));
  const payload = JSON.parse(delivery.body);
  expect(payload).toMatchObject({
    eventType: 'TRANSACTION_POST_SUBMIT',
    eventId: delivery.headers['x-ledger-event-id'],
    organizationExternalId: stack.organizationExternalId,
    operation: 'CREATE_ACCOUNT',
    transaction: { offchainId: created.body.svmTransaction.offchainId, status: 'CONFIRMED' },
  });
  expect(payload.accounts.map((a: { onchainId: string }) => a.onchainId)).toContain(created.body.newAccount.onchainId);
  expect(delivery.headers['x-receiver-key']).toBe('receiver-secret');
  const org = await forkEm(stack.runtime.orm).findOneOrFail(Organization, { externalId: stack.organizationExternalId });
  const secret = stack.runtime.sealer.unseal(org.webhookSigningSecret).toString('utf8');
  const expected = createHmac('sha256', secret).update(`${delivery.headers['x-ledger-timestamp']}.${delivery.body}`).digest('hex');
  expect(delivery.headers['x-ledger-signature']).toBe(expected);
});
