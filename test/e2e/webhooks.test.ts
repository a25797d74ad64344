/**
 * Webhooks as the spec means them (docs/webhooks.md), against real receivers and a real OAuth2 token
 * endpoint on 127.0.0.1: pre-submit sees the fully signed transaction that then lands (or vetoes it),
 * a non-veto failure is recorded on the transaction, post-submit is retried and logged attempt by
 * attempt, an event replays under its eventId, deliveries are signed (HMAC) and carry the configured
 * credentials, and a private receiver is refused when the service is configured for public ones.
 */
import http from 'node:http';
import { createHmac, createPublicKey, verify } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { getAddressEncoder, getBase58Decoder, getBase64Encoder, getTransactionDecoder, type Address } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';
import { temporalTarget } from '../support/temporal';
import { forkEm } from '../../src/main/runtime';
import { startApi, type ApiServer } from '../../src/main/api';
import { LedgerTransaction, Organization, WebhookDelivery } from '../../src/db/entities';
import { createWebhookActivities } from '../../src/activities/webhooks.activities';
import type { WriteRequest } from '../../src/domain/write';

interface Delivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let stack: Stack;
let strictApi: ApiServer;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
/** Statuses the receiver answers per path, in turn (the last one from then on). */
const answers: Record<string, number[]> = { '/veto': [500], '/fail': [500], '/ok': [200], '/post': [200], '/oauth': [200], '/flaky': [500, 500, 200] };
const calls: Record<string, number> = {};

let tokenServer: http.Server;
let tokenUrl: string;
/** Token requests per client id, with their form; `expires_in` and failures per client id. */
const tokenRequests: { clientId: string; form: URLSearchParams }[] = [];
const tokenLife: Record<string, number> = { cached: 3600, short: 1, flaky: 3600 };
let flakyTokenFailures = 1;

const listen = async (server: http.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });

beforeAll(async () => {
  stack = await startStack();
  receiver = http.createServer(async (req, res) => {
    const body = await readBody(req);
    deliveries.push({ path: req.url!, headers: req.headers, body });
    const n = (calls[req.url!] = (calls[req.url!] ?? 0) + 1);
    const list = answers[req.url!] ?? [404];
    res.writeHead(list[Math.min(n, list.length) - 1]).end();
  });
  receiverUrl = await listen(receiver);
  tokenServer = http.createServer(async (req, res) => {
    const form = new URLSearchParams(await readBody(req));
    const clientId = form.get('client_id') ?? '';
    tokenRequests.push({ clientId, form });
    if (clientId === 'flaky' && flakyTokenFailures-- > 0) return res.writeHead(500).end();
    const n = tokenRequests.filter((r) => r.clientId === clientId).length;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ access_token: `${clientId}-token-${n}`, token_type: 'Bearer', expires_in: tokenLife[clientId] }));
  });
  tokenUrl = `${await listen(tokenServer)}/token`;
  // The same service configured as in production: webhooks only to public https receivers.
  strictApi = await startApi(
    { ...stack.config, webhookUrlPolicy: { allowPrivateAddresses: false, allowHttp: false } },
    stack.runtime,
    temporalTarget(),
    () => {},
    { port: 0, hostWorker: false },
  );
});
afterAll(async () => {
  await strictApi?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await new Promise((resolve) => tokenServer?.close(resolve));
  await stack?.close();
});

async function managed(itemData: Record<string, unknown> = {}) {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, ...itemData } });
  expect(created.status).toBe(201);
  return created.body.newAccount as { onchainId: string; offchainId: string };
}

/**
 * A funded account whose webhooks are set afterwards (Update Account sends nothing), so its own
 * creation's post-submit event does not reach the receiver first.
 */
async function fundedWithWebhooks(webhooks: Record<string, unknown>) {
  const account = await managed({ seed: { amount: 0.05 } });
  const updated = await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: account.offchainId }, ...webhooks } });
  expect(updated.status).toBe(200);
  return account;
}

/** The onchain balance, after checking that the offchain record agrees with it. */
async function balance(offchainId: string) {
  const { body } = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } });
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports as number;
}

const transfer = (source: string, destination: string, lamports = 1000) =>
  stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: source }, destination: { offchainId: destination }, value: { lamports: String(lamports) } },
  });

const deliveryLog = async (offchainId: string) => {
  const answer = await stack.call('POST', '/api/v1/transactions/webhook-deliveries', { itemData: { transaction: { offchainId } } });
  expect(answer.status).toBe(200);
  return answer.body.items as {
    eventId: string;
    eventType: string;
    webhookName: string | null;
    attempt: number;
    at: string;
    httpStatus: number | null;
    error: string | null;
  }[];
};

const payloadsOf = (path: string, transactionOffchainId: string) =>
  deliveries.filter((d) => d.path === path && JSON.parse(d.body).transaction?.offchainId === transactionOffchainId);

describe('pre-submit', () => {
  it("receives the fully signed transaction: every signature verifies, and the fee payer's is the one that landed", async () => {
    const payer = await managed({
      seed: { amount: 0.05 },
      preTransactionSubmitWebhooks: [{ name: 'approver', endpointUrl: `${receiverUrl}/ok`, doNotSubmitTransactionOnFailure: true }],
    });
    const created = await stack.call('POST', '/api/v1/accounts', {
      itemData: { managed: true, seed: { lamports: 1_000_000 } },
      svmTransactionConfig: { feePayer: { offchainId: payer.offchainId } },
    });
    expect(created.body.svmTransaction).toMatchObject({ success: true, status: 'CONFIRMED' });

    const [delivery] = payloadsOf('/ok', created.body.svmTransaction.offchainId);
    const payload = JSON.parse(delivery.body);
    expect(payload).toMatchObject({
      eventType: 'TRANSACTION_PRE_SUBMIT',
      eventId: delivery.headers['x-ledger-event-id'],
      transaction: { status: 'SIGNED', onchainId: created.body.svmTransaction.onchainId, origin: 'SERVICE' },
    });
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(payload.signedTransaction));
    const signers = Object.keys(transaction.signatures);
    expect(signers).toEqual([payer.onchainId, created.body.newAccount.onchainId]);
    for (const signer of signers) {
      const key = createPublicKey({
        key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(getAddressEncoder().encode(signer as Address))]),
        format: 'der',
        type: 'spki',
      });
      expect(verify(null, Buffer.from(transaction.messageBytes), key, Buffer.from(transaction.signatures[signer as Address]!))).toBe(true);
    }
    expect(getBase58Decoder().decode(transaction.signatures[payer.onchainId as Address]!)).toBe(created.body.svmTransaction.onchainId);
  });

  it('records a failure that may not veto on the transaction, and the transfer lands', async () => {
    const source = await managed({ seed: { amount: 0.05 }, preTransactionSubmitWebhooks: [{ name: 'risk', endpointUrl: `${receiverUrl}/fail` }] });
    const destination = await managed();
    const [before, destinationBefore] = [await balance(source.offchainId), await balance(destination.offchainId)];
    const sent = await transfer(source.offchainId, destination.offchainId, 1000);
    expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });
    expect(await balance(destination.offchainId)).toBe(destinationBefore + 1000);
    expect(await balance(source.offchainId)).toBeLessThanOrEqual(before - 1000);

    const details = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: sent.body.offchainId } } });
    expect(details.body.webhookFailures).toEqual([
      { webhookName: 'risk', eventType: 'TRANSACTION_PRE_SUBMIT', httpStatus: 500, error: 'the receiver answered HTTP 500', at: expect.any(String) },
    ]);
    expect(await deliveryLog(sent.body.offchainId)).toEqual([
      {
        eventId: `${sent.body.offchainId}:TRANSACTION_PRE_SUBMIT:${sent.body.onchainId}`,
        eventType: 'TRANSACTION_PRE_SUBMIT',
        webhookName: 'risk',
        attempt: 1,
        at: expect.any(String),
        httpStatus: 500,
        error: 'the receiver answered HTTP 500',
      },
    ]);
  });

  it('a failure of a webhook that may veto stops the transaction (REJECTED): nothing moves', async () => {
    const source = await managed({
      seed: { amount: 0.05 },
      preTransactionSubmitWebhooks: [{ name: 'veto', endpointUrl: `${receiverUrl}/veto`, doNotSubmitTransactionOnFailure: true }],
    });
    const destination = await managed();
    const [before, destinationBefore] = [await balance(source.offchainId), await balance(destination.offchainId)];
    const vetoed = await transfer(source.offchainId, destination.offchainId, 1000);
    expect(vetoed.body).toMatchObject({ success: false, status: 'REJECTED' });
    expect(await balance(source.offchainId)).toBe(before);
    expect(await balance(destination.offchainId)).toBe(destinationBefore);
    expect(payloadsOf('/veto', vetoed.body.offchainId)).toHaveLength(1);
    const details = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: vetoed.body.offchainId } } });
    expect(details.body.webhookFailures).toMatchObject([{ webhookName: 'veto', httpStatus: 500 }]);
  });

  it('asks a webhook once per message: asked again (a run resumed after a crash), it answers from the delivery log', async () => {
    const source = await managed({
      seed: { amount: 0.05 },
      preTransactionSubmitWebhooks: [{ name: 'veto-once', endpointUrl: `${receiverUrl}/veto`, doNotSubmitTransactionOnFailure: true }],
    });
    const destination = await managed();
    const vetoed = await transfer(source.offchainId, destination.offchainId, 1000);
    expect(vetoed.body.status).toBe('REJECTED');
    const [asked] = payloadsOf('/veto', vetoed.body.offchainId);
    const record = await forkEm(stack.runtime.orm).findOneOrFail(LedgerTransaction, { id: vetoed.body.offchainId });
    const { runtime, config } = stack;
    const activities = createWebhookActivities({
      orm: runtime.orm,
      networks: runtime.networks,
      keyStore: runtime.keyStore,
      sealer: runtime.sealer,
      feePayerAddress: runtime.feePayerAddress,
      logoPolicy: config.logoPolicy,
      webhookUrlPolicy: config.webhookUrlPolicy,
      fetch: globalThis.fetch,
      now: () => new Date(),
      deliveries: { start: async () => {} },
    });
    const request: WriteRequest = {
      operation: 'TRANSFER_NETWORK_CURRENCY',
      transactionId: record.id,
      workflowId: record.workflowId,
      organizationId: record.organizationId,
      organizationExternalId: stack.organizationExternalId,
      apiKeyId: 'unused',
      cluster: record.cluster,
      idempotencyKey: null,
      commitment: 'confirmed',
      submit: true,
      itemData: {},
      svmTransactionConfig: {},
    };
    const again = await activities.callPreSubmitWebhooks(
      request,
      { messageBase64: '', signers: record.signers, lifetime: record.lifetime!, size: 0 },
      { signature: record.signature!, wireBase64: JSON.parse(asked.body).signedTransaction },
    );
    expect(again).toBe('VETO');
    expect(payloadsOf('/veto', vetoed.body.offchainId)).toHaveLength(1);
    expect((await deliveryLog(vetoed.body.offchainId)).map((d) => d.attempt)).toEqual([1]);
  });
});

describe('post-submit', () => {
  it('retries a failing receiver with backoff: the log shows each attempt under one eventId; a replay is a new attempt with that eventId', async () => {
    const source = await fundedWithWebhooks({ postTransactionSubmitWebhooks: [{ name: 'settlement', endpointUrl: `${receiverUrl}/flaky` }] });
    const destination = await managed();
    const sent = await transfer(source.offchainId, destination.offchainId);
    expect(sent.body.status).toBe('CONFIRMED');
    const eventId = `${sent.body.offchainId}:TRANSACTION_POST_SUBMIT`;
    const log = await waitFor(async () => {
      const items = await deliveryLog(sent.body.offchainId);
      return items.length >= 3 && items;
    }, 30_000);
    expect(log.map((d) => [d.eventId, d.webhookName, d.attempt, d.httpStatus])).toEqual([
      [eventId, 'settlement', 1, 500],
      [eventId, 'settlement', 2, 500],
      [eventId, 'settlement', 3, 200],
    ]);
    expect(log[2].error).toBeNull();
    expect(payloadsOf('/flaky', sent.body.offchainId).map((d) => d.headers['x-ledger-event-id'])).toEqual([eventId, eventId, eventId]);

    const replayed = await stack.call('PATCH', '/api/v1/transactions/webhook-deliveries/replay', { itemData: { eventId } });
    expect(replayed.status).toBe(200);
    expect(replayed.body.items.at(-1)).toMatchObject({ eventId, webhookName: 'settlement', attempt: 4, httpStatus: 200, error: null });
    const again = payloadsOf('/flaky', sent.body.offchainId);
    expect(again).toHaveLength(4);
    expect(again[3].headers['x-ledger-event-id']).toBe(eventId);
    expect(JSON.parse(again[3].body).eventId).toBe(eventId);
  });

  it('answers 404 for the deliveries of an unknown transaction and the replay of an unknown or pre-submit event', async () => {
    const unknown = await stack.call('POST', '/api/v1/transactions/webhook-deliveries', {
      itemData: { transaction: { offchainId: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'NOT_FOUND', field: 'itemData.transaction' });
    const noEvent = await stack.call('PATCH', '/api/v1/transactions/webhook-deliveries/replay', { itemData: { eventId: 'no-such-event' } });
    expect(noEvent.status).toBe(404);
    expect(noEvent.body.errors[0]).toMatchObject({ code: 'NOT_FOUND', field: 'itemData.eventId' });
    const pre = deliveries.find((d) => JSON.parse(d.body).eventType === 'TRANSACTION_PRE_SUBMIT')!;
    expect(
      (await stack.call('PATCH', '/api/v1/transactions/webhook-deliveries/replay', { itemData: { eventId: pre.headers['x-ledger-event-id'] } })).status,
    ).toBe(404);
  });

  it('signs each delivery with the organization secret (HMAC-SHA256 over timestamp.body) and sends the configured API key', async () => {
    const created = await stack.call('POST', '/api/v1/accounts', {
      itemData: {
        managed: true,
        seed: { lamports: 1_000_000 },
        postTransactionSubmitWebhooks: [
          { endpointUrl: `${receiverUrl}/post`, apiKeyAuthConfig: { httpHeaderName: 'X-Receiver-Key', keyValue: 'receiver-secret' } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const delivery = await waitFor(async () => payloadsOf('/post', created.body.svmTransaction.offchainId)[0]);
    const payload = JSON.parse(delivery.body);
    expect(payload).toMatchObject({
      eventType: 'TRANSACTION_POST_SUBMIT',
      eventId: delivery.headers['x-ledger-event-id'],
      organizationExternalId: stack.organizationExternalId,
      operation: 'CREATE_ACCOUNT',
      // The record as it stands at delivery: the chain follower may have finalized it by then.
      // Its origin too, as Fetch Transaction shows it: the service's own write.
      transaction: { offchainId: created.body.svmTransaction.offchainId, status: expect.stringMatching(/^(CONFIRMED|FINALIZED)$/), origin: 'SERVICE' },
    });
    expect(payload.accounts.map((a: { onchainId: string }) => a.onchainId)).toContain(created.body.newAccount.onchainId);
    expect(delivery.headers['x-receiver-key']).toBe('receiver-secret');
    const org = await forkEm(stack.runtime.orm).findOneOrFail(Organization, { externalId: stack.organizationExternalId });
    const secret = stack.runtime.sealer.unseal(org.webhookSigningSecret).toString('utf8');
    const expected = createHmac('sha256', secret).update(`${delivery.headers['x-ledger-timestamp']}.${delivery.body}`).digest('hex');
    expect(delivery.headers['x-ledger-signature']).toBe(expected);
    // A forged body does not verify.
    expect(
      createHmac('sha256', secret)
        .update(`${delivery.headers['x-ledger-timestamp']}.${delivery.body.replace(/CONFIRMED|FINALIZED/, 'FAILED')}`)
        .digest('hex'),
    ).not.toBe(delivery.headers['x-ledger-signature']);
  });
});

describe('doNotSubmitTransactionOnFailure', () => {
  it('is refused on post-submit and missing-signature webhooks at Create and Update Account, naming the field; nothing changes', async () => {
    const before = (await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {})).body.count;
    const hook = { endpointUrl: `${receiverUrl}/post`, doNotSubmitTransactionOnFailure: true };
    const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, postTransactionSubmitWebhooks: [hook] } });
    expect(created.status).toBe(400);
    expect(created.body.errors[0]).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.postTransactionSubmitWebhooks.0.doNotSubmitTransactionOnFailure',
    });
    expect((await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {})).body.count).toBe(before);

    const account = await managed();
    const updated = await stack.call('PATCH', '/api/v1/accounts', {
      itemData: { account: { offchainId: account.offchainId }, missingSignatureWebhooks: [{ ...hook, doNotSubmitTransactionOnFailure: false }] },
    });
    expect(updated.status).toBe(400);
    expect(updated.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.missingSignatureWebhooks.0.doNotSubmitTransactionOnFailure' });
    const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: account.offchainId } } });
    expect(details.body).toMatchObject({ missingSignatureWebhooks: [], postTransactionSubmitWebhooks: [] });
    // On a pre-submit webhook it acts (the veto above), so it is taken.
    expect(
      (await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: account.offchainId }, preTransactionSubmitWebhooks: [hook] } }))
        .status,
    ).toBe(200);
  });
});

describe('OAuth2 client credentials', () => {
  const oauthHook = (clientId: string) => ({
    name: `oauth-${clientId}`,
    endpointUrl: `${receiverUrl}/oauth`,
    oauth2AuthConfig: {
      accessTokenUrl: tokenUrl,
      audience: 'https://receiver.example',
      flowType: 'CLIENT_CREDENTIALS',
      clientId,
      clientSecret: `${clientId}-secret`,
    },
  });
  const bearersFor = (offchainId: string) => payloadsOf('/oauth', offchainId).map((d) => d.headers.authorization);

  it('fetches one token for several deliveries, sends it as a bearer, and fetches anew once it expired', async () => {
    const source = await fundedWithWebhooks({ postTransactionSubmitWebhooks: [oauthHook('cached')] });
    const destination = await managed();
    for (let i = 0; i < 3; i++) {
      const sent = await transfer(source.offchainId, destination.offchainId);
      expect(await waitFor(async () => bearersFor(sent.body.offchainId)[0])).toBe('Bearer cached-token-1');
    }
    const requests = tokenRequests.filter((r) => r.clientId === 'cached');
    expect(requests).toHaveLength(1);
    expect(Object.fromEntries(requests[0].form)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'cached',
      client_secret: 'cached-secret',
      audience: 'https://receiver.example',
    });

    const short = await fundedWithWebhooks({ postTransactionSubmitWebhooks: [oauthHook('short')] });
    const first = await transfer(short.offchainId, destination.offchainId);
    expect(await waitFor(async () => bearersFor(first.body.offchainId)[0])).toBe('Bearer short-token-1');
    await new Promise((r) => setTimeout(r, 1200));
    const second = await transfer(short.offchainId, destination.offchainId);
    expect(await waitFor(async () => bearersFor(second.body.offchainId)[0])).toBe('Bearer short-token-2');
  });

  it('uses the password grant when userName and password are given: the stored (sealed) password reaches the token endpoint', async () => {
    const hook = oauthHook('resource-owner');
    const source = await fundedWithWebhooks({
      postTransactionSubmitWebhooks: [{ ...hook, oauth2AuthConfig: { ...hook.oauth2AuthConfig, userName: 'alice', password: 'alice-password' } }],
    });
    const sent = await transfer(source.offchainId, (await managed()).offchainId);
    expect(await waitFor(async () => bearersFor(sent.body.offchainId)[0])).toBe('Bearer resource-owner-token-1');
    expect(tokenRequests.filter((r) => r.clientId === 'resource-owner').map((r) => Object.fromEntries(r.form))).toEqual([
      {
        grant_type: 'password',
        username: 'alice',
        password: 'alice-password',
        client_id: 'resource-owner',
        client_secret: 'resource-owner-secret',
        audience: 'https://receiver.example',
      },
    ]);
  });

  it('records a token endpoint failure as a failed delivery with its reason, then delivers on the retry', async () => {
    const source = await fundedWithWebhooks({ postTransactionSubmitWebhooks: [oauthHook('flaky')] });
    const destination = await managed();
    const sent = await transfer(source.offchainId, destination.offchainId);
    const log = await waitFor(async () => {
      const items = await deliveryLog(sent.body.offchainId);
      return items.length >= 2 && items;
    }, 20_000);
    expect(log.map((d) => [d.attempt, d.httpStatus, d.error])).toEqual([
      [1, null, 'OAuth2: token endpoint answered HTTP 500'],
      [2, 200, null],
    ]);
    expect(bearersFor(sent.body.offchainId)).toEqual(['Bearer flaky-token-2']);
    // The client secret is sealed at rest and never shown.
    const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: source.offchainId } } });
    expect(JSON.stringify(details.body)).not.toContain('flaky-secret');
  });
});

describe('where webhooks may point', () => {
  const create = (itemData: Record<string, unknown>) =>
    fetch(`${strictApi.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` },
      body: JSON.stringify({ itemData: { managed: true, ...itemData } }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('refuses private, loopback and link-local receivers and plain http at account create, naming the field; nothing is created', async () => {
    const before = (await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {})).body.count;
    const cases: [Record<string, unknown>, string][] = [
      [
        { postTransactionSubmitWebhooks: [{ endpointUrl: 'https://8.8.8.8/x' }, { endpointUrl: 'https://127.0.0.1:8443/hook' }] },
        'itemData.postTransactionSubmitWebhooks.1.endpointUrl',
      ],
      [{ preTransactionSubmitWebhooks: [{ endpointUrl: 'https://169.254.169.254/latest/meta-data' }] }, 'itemData.preTransactionSubmitWebhooks.0.endpointUrl'],
      [{ missingSignatureWebhooks: [{ endpointUrl: 'https://[::1]/hook' }] }, 'itemData.missingSignatureWebhooks.0.endpointUrl'],
      [{ postTransactionSubmitWebhooks: [{ endpointUrl: 'http://8.8.8.8/hook' }] }, 'itemData.postTransactionSubmitWebhooks.0.endpointUrl'],
      [
        {
          postTransactionSubmitWebhooks: [
            { endpointUrl: 'https://8.8.8.8/hook', oauth2AuthConfig: { accessTokenUrl: 'https://10.0.0.7/token', clientId: 'c', clientSecret: 's' } },
          ],
        },
        'itemData.postTransactionSubmitWebhooks.0.oauth2AuthConfig.accessTokenUrl',
      ],
      [
        {
          postTransactionSubmitWebhooks: [
            { endpointUrl: 'https://8.8.8.8/hook', oauth2AuthConfig: { accessTokenUrl: 'https://8.8.4.4/token', clientSecret: 's' } },
          ],
        },
        'itemData.postTransactionSubmitWebhooks.0.oauth2AuthConfig.clientId',
      ],
      [
        {
          postTransactionSubmitWebhooks: [
            {
              endpointUrl: 'https://8.8.8.8/hook',
              oauth2AuthConfig: { accessTokenUrl: 'https://8.8.4.4/token', flowType: 'PASSWORD', clientId: 'c', clientSecret: 's' },
            },
          ],
        },
        'itemData.postTransactionSubmitWebhooks.0.oauth2AuthConfig.flowType',
      ],
    ];
    for (const [itemData, field] of cases) {
      const refused = await create(itemData);
      expect({ field, status: refused.status, error: refused.body.errors?.[0] }).toMatchObject({
        field,
        status: 400,
        error: { code: 'VALIDATION_ERROR', field },
      });
    }
    expect((await stack.call('POST', '/api/v1/accounts/bulk/identifiers', {})).body.count).toBe(before);
  });
});

describe('the owner of a shared account', () => {
  // The stack's organization (A) owns the shared accounts; another organization (B) writes with them.
  Object.assign(answers, { '/owner-ok': [200], '/owner-post': [200], '/owner-missing': [200], '/owner-veto': [500] });
  const home = () => stack.organizationExternalId;

  async function organizationB() {
    const externalId = `b-${Math.random().toString(16).slice(2, 10)}`;
    const apiKey = await stack.newApiKey(externalId, ['READ', 'WRITE']);
    const as = (method: string, path: string, body?: unknown) => stack.call(method, path, body, { apiKey });
    const payee = await as('POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, seed: { lamports: 20_000_000 } } });
    expect(payee.status).toBe(201);
    return { externalId, as, own: payee.body.newAccount as { onchainId: string; offchainId: string } };
  }

  /** A funded managed account of A that B may sign with and be paid for by, with A's webhooks set afterwards. */
  async function sharedWith(b: string, webhooks: Record<string, unknown>) {
    const account = await managed({ seed: { amount: 0.05 }, shareAcrossTenants: true, orgsAllowedToSignWithPrivateKey: [b] });
    const updated = await stack.call('PATCH', '/api/v1/accounts', { itemData: { account: { offchainId: account.offchainId }, ...webhooks } });
    expect(updated.status).toBe(200);
    return account;
  }

  const lamportsOf = async (as: Awaited<ReturnType<typeof organizationB>>['as'], account: Record<string, unknown>) =>
    (await as('POST', '/api/v1/accounts/balance', { itemData: { account } })).body.onchain.balance.lamports as number;

  it("calls the owner's pre- and post-submit webhooks when another organization transfers from the account, signed with the owner's secret and logged under the owner", async () => {
    const b = await organizationB();
    const shared = await sharedWith(b.externalId, {
      preTransactionSubmitWebhooks: [{ name: 'owner-approver', endpointUrl: `${receiverUrl}/owner-ok`, doNotSubmitTransactionOnFailure: true }],
      postTransactionSubmitWebhooks: [{ name: 'owner-post', endpointUrl: `${receiverUrl}/owner-post` }],
    });
    const sent = await b.as('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: {
        source: { offchainId: shared.offchainId, otherTenantOrganizationExternalId: home() },
        destination: { offchainId: b.own.offchainId },
        value: { lamports: '1000' },
      },
    });
    expect(sent.body).toMatchObject({ success: true, status: 'CONFIRMED' });

    const [pre] = payloadsOf('/owner-ok', sent.body.offchainId);
    const payload = JSON.parse(pre.body);
    // The writer is named; the accounts are the owner's own (its record of the shared account).
    expect(payload).toMatchObject({ eventType: 'TRANSACTION_PRE_SUBMIT', organizationExternalId: b.externalId, operation: 'TRANSFER_NETWORK_CURRENCY' });
    expect(payload.accounts).toEqual([expect.objectContaining({ onchainId: shared.onchainId, offchainId: shared.offchainId })]);
    expect(typeof payload.signedTransaction).toBe('string');
    const em = forkEm(stack.runtime.orm);
    const owner = await em.findOneOrFail(Organization, { externalId: home() });
    const secret = stack.runtime.sealer.unseal(owner.webhookSigningSecret).toString('utf8');
    expect(pre.headers['x-ledger-signature']).toBe(createHmac('sha256', secret).update(`${pre.headers['x-ledger-timestamp']}.${pre.body}`).digest('hex'));
    await waitFor(async () => payloadsOf('/owner-post', sent.body.offchainId)[0]);

    // The attempts are the owner's log; the writer's log of its transaction holds none of them.
    const rows = await waitFor(async () => {
      const found = await forkEm(stack.runtime.orm).find(WebhookDelivery, { transactionId: sent.body.offchainId }, { orderBy: { at: 'asc' } });
      return found.length === 2 ? found : undefined;
    });
    expect(rows.map((r) => [r.organizationId, r.webhookName, r.httpStatus])).toEqual([
      [owner.id, 'owner-approver', 200],
      [owner.id, 'owner-post', 200],
    ]);
    const writerLog = await b.as('POST', '/api/v1/transactions/webhook-deliveries', { itemData: { transaction: { offchainId: sent.body.offchainId } } });
    expect(writerLog.body.items).toEqual([]);
    // The owner reads its own deliveries of the writer's transaction.
    expect((await deliveryLog(sent.body.offchainId)).map((d) => [d.webhookName, d.eventType, d.httpStatus])).toEqual([
      ['owner-approver', 'TRANSACTION_PRE_SUBMIT', 200],
      ['owner-post', 'TRANSACTION_POST_SUBMIT', 200],
    ]);
  });

  it("calls the owner's missing-signature webhook when another organization's write waits for the account's signature", async () => {
    const b = await organizationB();
    const shared = await sharedWith(b.externalId, { missingSignatureWebhooks: [{ name: 'owner-missing', endpointUrl: `${receiverUrl}/owner-missing` }] });
    const waiting = await b.as('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: {
        source: { offchainId: shared.offchainId, otherTenantOrganizationExternalId: home(), autoSign: false },
        destination: { offchainId: b.own.offchainId },
        value: { lamports: '1000' },
      },
    });
    expect(waiting.status).toBe(202);
    const offchainId = waiting.body.transaction.offchainId as string;
    const delivery = await waitFor(async () => payloadsOf('/owner-missing', offchainId)[0]);
    expect(JSON.parse(delivery.body)).toMatchObject({
      eventType: 'TRANSACTION_MISSING_SIGNATURE',
      organizationExternalId: b.externalId,
      missingSigners: [shared.onchainId],
      accounts: [expect.objectContaining({ onchainId: shared.onchainId, offchainId: shared.offchainId })],
    });
    expect((await b.as('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId } } })).status).toBe(200);
  });

  it("lets the owner's pre-submit webhook veto another organization's transfer from the account and a write it pays for: nothing moves", async () => {
    const b = await organizationB();
    const shared = await sharedWith(b.externalId, {
      preTransactionSubmitWebhooks: [{ name: 'owner-veto', endpointUrl: `${receiverUrl}/owner-veto`, doNotSubmitTransactionOnFailure: true }],
    });
    const named = { offchainId: shared.offchainId, otherTenantOrganizationExternalId: home() };
    const [sharedBefore, ownBefore] = [await lamportsOf(b.as, named), await lamportsOf(b.as, { offchainId: b.own.offchainId })];

    const fromShared = await b.as('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: named, destination: { offchainId: b.own.offchainId }, value: { lamports: '1000' } },
    });
    // B's own account as the source, the shared account paying the fee.
    const paidByShared = await b.as('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: b.own.offchainId }, destination: named, value: { lamports: '1000' } },
      svmTransactionConfig: { feePayer: named },
    });
    for (const vetoed of [fromShared, paidByShared]) {
      expect(vetoed.body).toMatchObject({ success: false, status: 'REJECTED' });
      expect(payloadsOf('/owner-veto', vetoed.body.offchainId)).toHaveLength(1);
      // The writer learns that the owner's webhook failed, not the owner's webhook configuration.
      const details = await b.as('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: vetoed.body.offchainId } } });
      expect(details.body.webhookFailures).toEqual([
        {
          webhookName: null,
          eventType: 'TRANSACTION_PRE_SUBMIT',
          httpStatus: 500,
          error: `a pre-submit webhook of the organization owning ${shared.onchainId} failed`,
          at: expect.any(String),
        },
      ]);
    }
    expect(await lamportsOf(b.as, named)).toBe(sharedBefore);
    expect(await lamportsOf(b.as, { offchainId: b.own.offchainId })).toBe(ownBefore);
  });
});
