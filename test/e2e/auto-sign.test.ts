/**
 * `autoSign: false` on a lookup of a key the service holds (API.md section 10, docs/signatures.md,
 * "Who signs"): the service does not sign with it, the write waits in AWAITING_SIGNATURES for that
 * signer (its missing-signature webhook called) and goes on once Sign Transaction supplies it. The
 * fee payer and an authority (a mint authority) as a client would send them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

type Ref = { onchainId: string; offchainId: string };
let stack: Stack;
let receiver: http.Server;
let receiverUrl: string;
type MissingSignatureEvent = { eventType: string; transaction?: { offchainId: string }; accounts: Ref[] };
const deliveries: { path: string; body: MissingSignatureEvent }[] = [];

beforeAll(async () => {
  stack = await startStack();
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await stack?.close();
});

const account = async (itemData: Record<string, unknown>): Promise<Ref> => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created.status).toBe(201);
  return created.body.newAccount;
};
const missingHook = (name: string) => ({ missingSignatureWebhooks: [{ endpointUrl: `${receiverUrl}/${name}` }] });
const sign = (offchainId: string) => stack.call('POST', '/api/v1/transactions/sign', { itemData: { transaction: { offchainId } } });
const status = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } })).body;
/** The missing-signature event of a write, once its webhook was called. */
const missingEvent = (offchainId: string) =>
  waitFor(async () => deliveries.find((d) => d.body.eventType === 'TRANSACTION_MISSING_SIGNATURE' && d.body.transaction?.offchainId === offchainId));
async function lamports(offchainId: string): Promise<number> {
  const { body } = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } });
  return body.onchain.balance.lamports;
}

it('waits for the fee payer named with autoSign: false, calls its missing-signature webhook, and lands once Sign has its key sign', async () => {
  const payer = await account({ managed: true, canPayFees: true, seed: { amount: 0.1 }, ...missingHook('payer') });
  const from = await account({ managed: true, seed: { amount: 0.1 } });
  const to = await account({ managed: true, seed: { amount: 0.01 } });
  const [payerBefore, toBefore] = [await lamports(payer.offchainId), await lamports(to.offchainId)];

  const waiting = await stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: to.offchainId }, value: { lamports: '3000' } },
    svmTransactionConfig: { feePayer: { offchainId: payer.offchainId, autoSign: false } },
  });
  expect(waiting.status).toBe(202);
  expect(waiting.body.transaction).toMatchObject({ status: 'AWAITING_SIGNATURES' });
  const offchainId = waiting.body.transaction.offchainId as string;
  const event = await missingEvent(offchainId);
  expect(event.path).toBe('/payer');
  expect(event.body.accounts.map((a) => a.onchainId)).toEqual([payer.onchainId]);
  // Nothing is signed by the fee payer yet, so the write has no onchain id and nothing moved.
  expect(await status(offchainId)).toMatchObject({ status: 'AWAITING_SIGNATURES', onchainId: null });
  expect(await lamports(payer.offchainId)).toBe(payerBefore);

  const landed = await sign(offchainId);
  expect(landed.status).toBe(200);
  expect(landed.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId, onchainId: expect.any(String) });
  expect(await lamports(payer.offchainId)).toBe(payerBefore - 10_000);
  expect(await lamports(to.offchainId)).toBe(toBefore + 3000);
});

it('waits for a managed mint authority looked up with autoSign: false, calls its missing-signature webhook, and mints once Sign has its key sign', async () => {
  const issuer = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' }, ...missingHook('issuer') });
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAuthority: { offchainId: issuer.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  expect(created.status).toBe(201);
  const mint = created.body.newFinancialInstrument.onchainId as string;
  const holder = await account({ managed: true, seed: { amount: 0.01 } });
  const position = { owner: { offchainId: holder.offchainId }, financialInstrument: { onchainId: mint } };
  expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: position } })).status).toBe(201);
  const balance = async () => Number((await stack.call('POST', '/api/v1/positions/single', { itemData: { position } })).body.offchain.balance.lamports);
  const before = await balance();

  const waiting = await stack.call('POST', '/api/v1/positions/mint', {
    itemData: { mintTo: { ...position, mintAuthority: { offchainId: issuer.offchainId, autoSign: false } }, value: { amount: 5 } },
  });
  expect(waiting.status).toBe(202);
  expect(waiting.body.transaction).toMatchObject({ status: 'AWAITING_SIGNATURES' });
  const offchainId = waiting.body.transaction.offchainId as string;
  const event = await missingEvent(offchainId);
  expect(event.path).toBe('/issuer');
  expect(event.body.accounts.map((a) => a.onchainId)).toEqual([issuer.onchainId]);
  expect(await balance()).toEqual(before);

  const landed = await sign(offchainId);
  expect(landed.status).toBe(200);
  expect(landed.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId });
  expect(await balance()).toBe(before + 5);
});

it('waits for a lookup-table authority looked up with autoSign: false, and the new table is recorded once Sign has its key sign', async () => {
  const authority = await account({ managed: true, offchainReferences: { type: 'WALLET' }, ...missingHook('table-authority') });
  const component = await account({ managed: true });
  const waiting = await stack.call('POST', '/api/v1/address-lookup-tables', {
    itemData: {
      addressLookupTable: {},
      authority: { offchainId: authority.offchainId, autoSign: false },
      componentAddresses: [{ offchainId: component.offchainId }],
    },
  });
  expect(waiting.status).toBe(202);
  expect(waiting.body.transaction).toMatchObject({ status: 'AWAITING_SIGNATURES' });
  const offchainId = waiting.body.transaction.offchainId as string;
  const event = await missingEvent(offchainId);
  expect(event.body.accounts.map((a) => a.onchainId)).toEqual([authority.onchainId]);
  const tables = async () =>
    (
      await stack.call('POST', '/api/v1/address-lookup-tables/bulk', {
        itemQuery: {
          filter: [
            {
              fieldName: 'authorityOffchainId',
              operator: 'AND',
              filterValues: [{ filterType: 'EQUALS', dataType: 'OFFCHAIN_ID', valueString: authority.offchainId }],
            },
          ],
        },
      })
    ).body;

  expect((await tables()).items).toHaveLength(0);

  const landed = await sign(offchainId);
  expect(landed.status).toBe(200);
  expect(landed.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId });
  expect((await tables()).items).toHaveLength(1);
});

it('never uses a durable nonce whose authority was looked up with autoSign: false, exactly as one whose key the service does not hold', async () => {
  const authority = await account({ managed: true });
  const createNonce = (nonceAuthority: Record<string, unknown>) =>
    stack.call('POST', '/api/v1/durable-nonce-accounts', {
      itemData: { nonceAccount: { offchainReferences: { type: 'NONCE' } }, numberOfNonceAccounts: 1, nonceAuthority },
    });
  const from = await account({ managed: true, seed: { amount: 0.1 } });
  const withNonce = () =>
    stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
      itemData: { source: { offchainId: from.offchainId }, destination: { offchainId: authority.offchainId }, value: { lamports: '1000' } },
      svmTransactionConfig: { messageLifetimeStrategy: 'DURABLE_NONCE' },
    });

  expect((await createNonce({ offchainId: authority.offchainId, autoSign: false })).status).toBe(201);
  const refused = await withNonce();
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'svmTransactionConfig.messageLifetimeStrategy' });
  expect(refused.body.errors[0].message).toMatch(/autoSign: false/);

  // The same authority looked up as usual: the service signs with it, and its nonce is used.
  expect((await createNonce({ offchainId: authority.offchainId })).status).toBe(201);
  expect((await withNonce()).body).toMatchObject({ success: true });
});

it('waits for an owner named by role with autoSign: false also when that owner pays the fees', async () => {
  const issuer = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAuthority: { offchainId: issuer.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  const mint = created.body.newFinancialInstrument.onchainId as string;
  const holder = await account({ managed: true, canPayFees: true, seed: { amount: 0.1 }, ...missingHook('holder') });
  const opened = await stack.call('POST', '/api/v1/positions', {
    itemData: { positionToInitialize: { owner: { offchainId: holder.offchainId }, financialInstrument: { onchainId: mint } } },
  });
  const position = { offchainId: opened.body.newPosition.offchainId as string };
  expect((await stack.call('POST', '/api/v1/positions/mint', { itemData: { mintTo: { position }, value: { amount: 3 } } })).body).toMatchObject({
    success: true,
  });

  const waiting = await stack.call('POST', '/api/v1/positions/burn', {
    itemData: { burnFrom: { position, owner: { autoSign: false } }, value: { amount: 1 } },
    svmTransactionConfig: { feePayer: { offchainId: holder.offchainId } },
  });
  expect(waiting.status).toBe(202);
  expect(waiting.body.transaction).toMatchObject({ status: 'AWAITING_SIGNATURES' });
  const offchainId = waiting.body.transaction.offchainId as string;
  expect((await missingEvent(offchainId)).body.accounts.map((a) => a.onchainId)).toEqual([holder.onchainId]);
  expect((await sign(offchainId)).body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId });
});
