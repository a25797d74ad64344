/**
 * Private keys never leave custody: not in workflow histories (what operators see in the Web UI),
 * not in responses, not in the database in clear. Checked for an imported key and a generated one.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';
import { temporalTarget } from '../support/temporal';
import { forkEm } from '../../src/main/runtime';
import { startApi, type ApiServer } from '../../src/main/api';
import { Account, CustodyKey } from '../../src/db/entities';

let stack: Stack;
let client: Client;
/** The same service configured as in production: webhooks only to public https receivers. */
let strictApi: ApiServer;
beforeAll(async () => {
  stack = await startStack();
  client = new Client({ connection: await Connection.connect({ address: stack.config.temporal.address! }), namespace: stack.config.temporal.namespace });
  strictApi = await startApi(
    { ...stack.config, webhookUrlPolicy: { allowPrivateAddresses: false, allowHttp: false } },
    stack.runtime,
    temporalTarget(),
    () => {},
    {
      port: 0,
      hostWorker: false,
    },
  );
});
afterAll(async () => {
  await strictApi?.close();
  await client?.connection.close();
  await stack?.close();
});

/** Every way the 32-byte seed could be written down. */
function encodings(seed: Uint8Array): string[] {
  const bytes = Buffer.from(seed);
  return [
    getBase58Decoder().decode(seed),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    JSON.stringify([...bytes]).slice(1, 40),
  ];
}

/** The history as an operator's tools show it: every payload decoded to its JSON text. */
async function historyText(transactionOffchainId: string): Promise<string> {
  const details = await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: transactionOffchainId } } });
  const history = await client.workflow.getHandle(details.body.workflowId).fetchHistory();
  const decoded: string[] = [];
  const walk = (node: unknown): void => {
    if (node instanceof Uint8Array) decoded.push(Buffer.from(node).toString('utf8'));
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(history);
  return decoded.join('\n');
}

it('keeps an imported private key out of the workflow history, the response and the database', async () => {
  const seed = randomBytes(32);
  const secretKey = getBase58Decoder().decode(seed);
  const headers = { 'webhook-secret': 'unused' };
  const created = await stack.call(
    'POST',
    '/api/v1/accounts',
    {
      itemData: {
        managed: true,
        privateKeyDetails: { privateKey: secretKey },
        postTransactionSubmitWebhooks: [
          { endpointUrl: 'http://127.0.0.1:9/hook', apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: 'webhook-credential-123' } },
        ],
      },
    },
    { headers },
  );
  expect(created.status).toBe(201);
  const history = await historyText(created.body.svmTransaction.offchainId);
  expect(history).toContain(created.body.newAccount.onchainId);
  for (const text of [...encodings(seed), 'webhook-credential-123']) {
    expect(history).not.toContain(text);
    expect(JSON.stringify(created.body)).not.toContain(text);
  }
  const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: created.body.newAccount.offchainId } } });
  expect(JSON.stringify(details.body)).not.toContain('webhook-credential-123');
  expect(details.body.postTransactionSubmitWebhooks[0].apiKeyAuthConfig.keyValue).toBe('***');
  const row = await forkEm(stack.runtime.orm).findOneOrFail(CustodyKey, { address: created.body.newAccount.onchainId });
  for (const text of encodings(seed)) expect(JSON.stringify(row)).not.toContain(text);
});

it('keeps a generated private key out of the workflow history and the response', async () => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { amount: 0.01 } } });
  expect(created.status).toBe(201);
  const seed = await stack.runtime.keyStore.exportPrivateKey(forkEm(stack.runtime.orm), created.body.newAccount.onchainId);
  expect(seed).toHaveLength(32);
  const history = await historyText(created.body.svmTransaction.offchainId);
  for (const text of encodings(seed!)) {
    expect(history).not.toContain(text);
    expect(JSON.stringify(created.body)).not.toContain(text);
  }
});

describe("Create Loan Strategy's strategy payload, a Create Account payload (docs/loans.md)", () => {
  /** A new instrument and a lender: what a strategy needs beside its vault payload. */
  async function terms() {
    const authority = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
    const usd = await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 6 },
        mintAuthority: { offchainId: authority.offchainId },
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STABLECOIN' } } },
      },
    });
    expect(usd.status).toBe(201);
    const lender = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
    return {
      lender: { offchainId: lender.offchainId },
      principal: { financialInstrument: { onchainId: usd.body.newFinancialInstrument.onchainId } },
      collateral: [
        { financialInstrument: { onchainId: usd.body.newFinancialInstrument.onchainId }, apy: [100_000], loanToValueRatio: 800_000, liquidationRatio: 900_000 },
      ],
    };
  }

  it("keeps the vault's imported key and webhook credentials out of the workflow history and the record; the key is the vault's", async () => {
    const seed = randomBytes(32);
    const created = await stack.call('POST', '/api/v1/loans/strategies', {
      itemData: {
        ...(await terms()),
        strategy: {
          privateKeyDetails: { privateKey: getBase58Decoder().decode(seed) },
          postTransactionSubmitWebhooks: [
            { endpointUrl: 'http://127.0.0.1:9/hook', apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: 'strategy-credential-123' } },
          ],
        },
      },
    });
    expect({ status: created.status, refusal: created.status === 201 ? undefined : created.body }).toEqual({ status: 201, refusal: undefined });
    const vault = created.body.newLoanStrategy;
    const history = await historyText(created.body.svmTransaction.offchainId);
    expect(history).toContain(vault.onchainId);
    for (const text of [...encodings(seed), 'strategy-credential-123']) {
      expect(history).not.toContain(text);
      expect(JSON.stringify(created.body)).not.toContain(text);
    }
    expect(Buffer.from((await stack.runtime.keyStore.exportPrivateKey(forkEm(stack.runtime.orm), vault.onchainId))!)).toEqual(seed);
    const details = await stack.call('POST', '/api/v1/accounts/single', { itemData: { account: { offchainId: vault.offchainId } } });
    expect(details.body.postTransactionSubmitWebhooks[0].apiKeyAuthConfig.keyValue).toBe('***');
    const record = await forkEm(stack.runtime.orm).findOneOrFail(Account, { id: vault.offchainId });
    expect(JSON.stringify(record.postTransactionSubmitWebhooks)).not.toContain('strategy-credential-123');
  });

  it('refuses a webhook URL the policy refuses, naming the strategy field', async () => {
    const refused = await fetch(`${strictApi.url}/api/v1/loans/strategies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` },
      body: JSON.stringify({ itemData: { ...(await terms()), strategy: { preTransactionSubmitWebhooks: [{ endpointUrl: 'https://127.0.0.1:8443/hook' }] } } }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { field: string }[] }).errors[0].field).toBe('itemData.strategy.preTransactionSubmitWebhooks.0.endpointUrl');
  });
});

describe('Fetch Account Private Key', () => {
  it('gives the 64-byte secret key of a managed account to a key with the role, and only to it', async () => {
    const seed = randomBytes(32);
    const created = await stack.call('POST', '/api/v1/accounts', {
      itemData: { managed: true, privateKeyDetails: { privateKey: getBase58Decoder().decode(seed) } },
    });
    const account = { onchainId: created.body.newAccount.onchainId };
    const writer = await stack.newApiKey(stack.organizationExternalId, ['READ', 'WRITE']);
    expect((await stack.call('POST', '/api/v1/accounts/private-key', { itemData: { account } }, { apiKey: writer })).status).toBe(403);

    const fetched = await stack.call('POST', '/api/v1/accounts/private-key', { itemData: { account } });
    expect(fetched.status).toBe(200);
    const secretKey = getBase58Encoder().encode(fetched.body.privateKey);
    expect(secretKey).toHaveLength(64);
    expect(Buffer.from(secretKey.slice(0, 32))).toEqual(seed);
    expect(getBase58Decoder().decode(secretKey.slice(32))).toBe(account.onchainId);
  });

  it('refuses non-managed accounts and other tenants', async () => {
    const nonManaged = await stack.call('POST', '/api/v1/accounts', {
      itemData: { managed: false, alreadyOnchain: true, onchainId: '11111111111111111111111111111111', skipBlockchainExistenceVerification: true },
    });
    expect(nonManaged.status).toBe(201);
    const refused = await stack.call('POST', '/api/v1/accounts/private-key', { itemData: { account: { offchainId: nonManaged.body.newAccount.offchainId } } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('itemData.account');
    const managed = await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } });
    const otherTenant = await stack.newApiKey(`other-${randomBytes(3).toString('hex')}`, ['FETCH_PRIVATE_KEY', 'READ']);
    expect(
      (
        await stack.call(
          'POST',
          '/api/v1/accounts/private-key',
          { itemData: { account: { offchainId: managed.body.newAccount.offchainId } } },
          { apiKey: otherTenant },
        )
      ).status,
    ).toBe(404);
  });
});
