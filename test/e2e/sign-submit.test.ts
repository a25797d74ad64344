/**
 * Sign Transaction, Submit Transaction and Cancel on the real stack (docs/signatures.md): a write
 * resting at SIGNED until Submit, a write waiting in AWAITING_SIGNATURES for a key the service does
 * not hold (its missing-signature webhook at a real receiver), autoSign: false, Cancel, expiry of a
 * wait whose blockhash ran out, and a wait that outlives its worker.
 */
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, getAddressFromPublicKey, getBase58Decoder, getBase64Encoder, signBytes } from '@solana/kit';
import type * as t from 'io-ts';
import { cancelledTransactionResponse, transactionResult } from '../../src/domain/responses/transaction.responses';
import { Organization } from '../../src/db/entities';
import { forkEm } from '../../src/main/runtime';
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

let stack: Stack;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: { headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  stack = await startStack();
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body });
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

type Ref = { onchainId: string; offchainId: string };
const account = async (itemData: Record<string, unknown>): Promise<Ref> => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created.status).toBe(201);
  return created.body.newAccount;
};
const wallet = (amount: number) => account({ managed: true, seed: { amount }, offchainReferences: { type: 'WALLET' } });
const transfer = (source: Record<string, unknown>, destination: Ref, value: Record<string, unknown>, svmTransactionConfig?: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source, destination: { offchainId: destination.offchainId }, value },
    ...(svmTransactionConfig ? { svmTransactionConfig } : {}),
  });
const sign = (offchainId: string, signatures?: { signer: string; signature: string }[]) =>
  stack.call('POST', '/api/v1/transactions/sign', { itemData: { transaction: { offchainId }, ...(signatures ? { signatures } : {}) } });
const submit = (offchainId: string) => stack.call('POST', '/api/v1/transactions/submit', { itemData: { transaction: { offchainId } } });
const cancel = (offchainId: string) => stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId } } });
const status = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } })).body;
const details = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId } } })).body;
/** The onchain lamports, after checking that the offchain record agrees. */
async function lamports(offchainId: string): Promise<number> {
  const { body } = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId } } });
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports;
}
const historyOf = async (offchainId: string) => ((await status(offchainId)).statusHistory as { status: string; at: string }[]).map((s) => s.status);

/** The body decodes with the route's documented response codec (the OpenAPI contract). */
const documented = (codec: t.Mixed, body: unknown) => expect(codec.decode(body)._tag).toBe('Right');

/** A key the test holds and the service does not: it signs the transaction's message itself. */
async function outsideKey() {
  const keys = await generateKeyPair();
  const address = await getAddressFromPublicKey(keys.publicKey);
  return {
    address,
    signatureOf: async (serializedMessage: string) => getBase58Decoder().decode(await signBytes(keys.privateKey, getBase64Encoder().encode(serializedMessage))),
  };
}

it('rests at SIGNED with submitTransaction: false, moves value once on Submit, and answers a repeated Submit with the same result', async () => {
  const from = await wallet(2);
  const to = await wallet(0.01);
  const [fromBefore, toBefore] = [await lamports(from.offchainId), await lamports(to.offchainId)];
  const signed = await transfer({ offchainId: from.offchainId }, to, { amount: 0.5 }, { submitTransaction: false });
  expect(signed.status).toBe(201);
  expect(signed.body).toMatchObject({ status: 'SIGNED', onchainId: expect.any(String) });
  expect(await lamports(from.offchainId)).toBe(fromBefore);

  const submitted = await submit(signed.body.offchainId);
  expect(submitted.status).toBe(200);
  expect(submitted.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId: signed.body.offchainId, onchainId: signed.body.onchainId });
  documented(transactionResult, submitted.body);
  const again = await submit(signed.body.offchainId);
  expect(again.status).toBe(200);
  // The repeat answers the record as it stands now: the chain follower may have finalized it since.
  expect(again.body).toMatchObject({ onchainId: signed.body.onchainId });
  expect(['CONFIRMED', 'FINALIZED']).toContain(again.body.status);
  expect(await lamports(from.offchainId)).toBe(fromBefore - 500_000_000);
  expect(await lamports(to.offchainId)).toBe(toBefore + 500_000_000);
  expect(await historyOf(signed.body.offchainId)).toEqual(expect.arrayContaining(['BUILT', 'SIGNED', 'SUBMITTED', 'CONFIRMED']));
});

it('answers Submit with Prefer: respond-async at once (202), and the write lands', async () => {
  const from = await wallet(1);
  const to = await wallet(0.01);
  const signed = await transfer({ offchainId: from.offchainId }, to, { lamports: '7000' }, { submitTransaction: false });
  expect(signed.body).toMatchObject({ status: 'SIGNED' });
  const accepted = await stack.call(
    'POST',
    '/api/v1/transactions/submit',
    { itemData: { transaction: { offchainId: signed.body.offchainId } } },
    { headers: { prefer: 'respond-async' } },
  );
  expect(accepted.status).toBe(202);
  expect(accepted.body.transaction.offchainId).toBe(signed.body.offchainId);
  const landed = await waitFor(async () => {
    const now = await status(signed.body.offchainId);
    return ['CONFIRMED', 'FINALIZED'].includes(now.status) && now;
  });
  // Every status change with its time, in order.
  const history = landed.statusHistory as { status: string; at: string }[];
  // The chain follower appends FINALIZED about 32 blocks after it landed (docs/finality.md).
  expect(history.map((h) => h.status)).toEqual(['BUILT', 'SIGNED', 'SUBMITTED', 'CONFIRMED', ...(landed.status === 'FINALIZED' ? ['FINALIZED'] : [])]);
  expect(history.map((h) => Date.parse(h.at))).toEqual([...history.map((h) => Date.parse(h.at))].sort((a, b) => a - b));
});

it('waits in AWAITING_SIGNATURES for a key the service does not hold, calls the missing-signature webhook, refuses a wrong signature, and lands once signed', async () => {
  const key = await outsideKey();
  const source = await account({
    managed: false,
    alreadyOnchain: true,
    onchainId: key.address,
    skipBlockchainExistenceVerification: true,
    missingSignatureWebhooks: [{ endpointUrl: `${receiverUrl}/missing` }],
  });
  const funder = await wallet(2);
  expect((await transfer({ offchainId: funder.offchainId }, source, { amount: 1 })).body).toMatchObject({ success: true });
  const to = await wallet(0.01);
  const [sourceBefore, toBefore] = [await lamports(source.offchainId), await lamports(to.offchainId)];

  const waiting = await transfer({ offchainId: source.offchainId }, to, { amount: 0.25 });
  expect(waiting.status).toBe(202);
  expect(waiting.body.transaction).toMatchObject({ status: 'AWAITING_SIGNATURES' });
  const offchainId = waiting.body.transaction.offchainId as string;

  const delivery = await waitFor(async () => deliveries.find((d) => JSON.parse(d.body).transaction?.offchainId === offchainId));
  const payload = JSON.parse(delivery.body);
  expect(payload).toMatchObject({
    eventType: 'TRANSACTION_MISSING_SIGNATURE',
    organizationExternalId: stack.organizationExternalId,
    transaction: { status: 'AWAITING_SIGNATURES' },
  });
  expect(payload.accounts.map((a: Ref) => a.onchainId)).toEqual([key.address]);
  const org = await forkEm(stack.runtime.orm).findOneOrFail(Organization, { externalId: stack.organizationExternalId });
  const secret = stack.runtime.sealer.unseal(org.webhookSigningSecret).toString('utf8');
  expect(delivery.headers['x-ledger-signature']).toBe(
    createHmac('sha256', secret).update(`${delivery.headers['x-ledger-timestamp']}.${delivery.body}`).digest('hex'),
  );

  const message = (await details(offchainId)).serializedMessage as string;
  expect(message).toBe(payload.transaction.serializedMessage);
  const stranger = await outsideKey();
  const wrong = await sign(offchainId, [{ signer: key.address, signature: await stranger.signatureOf(message) }]);
  expect(wrong.status).toBe(400);
  expect(wrong.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.signatures[0].signature' });
  const notASigner = await sign(offchainId, [{ signer: stranger.address, signature: await stranger.signatureOf(message) }]);
  expect(notASigner.status).toBe(400);
  expect(notASigner.body.errors[0].field).toBe('itemData.signatures[0].signer');
  expect((await status(offchainId)).status).toBe('AWAITING_SIGNATURES');

  const signature = await key.signatureOf(message);
  const landed = await sign(offchainId, [{ signer: key.address, signature }]);
  expect(landed.status).toBe(200);
  expect(landed.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId });
  documented(transactionResult, landed.body);
  // The same signatures again: the write is answered as it is, nothing moves twice.
  const repeated = (await sign(offchainId, [{ signer: key.address, signature }])).body;
  expect(['CONFIRMED', 'FINALIZED']).toContain(repeated.status);
  expect(await lamports(source.offchainId)).toBe(sourceBefore - 250_000_000);
  expect(await lamports(to.offchainId)).toBe(toBefore + 250_000_000);
  expect(await historyOf(offchainId)).toEqual(expect.arrayContaining(['BUILT', 'AWAITING_SIGNATURES', 'SIGNED', 'SUBMITTED', 'CONFIRMED']));
});

it('waits for a managed key whose lookup says autoSign: false until Sign without signatures, even across a worker restart', async () => {
  const from = await wallet(1);
  const to = await wallet(0.01);
  const fromBefore = await lamports(from.offchainId);
  const waiting = await transfer({ offchainId: from.offchainId, autoSign: false }, to, { lamports: '1000' });
  expect(waiting.status).toBe(202);
  const offchainId = waiting.body.transaction.offchainId as string;
  expect((await status(offchainId)).status).toBe('AWAITING_SIGNATURES');
  await stack.restartWorker();
  const landed = await sign(offchainId);
  expect(landed.status).toBe(200);
  expect(landed.body).toMatchObject({ success: true, status: 'CONFIRMED' });
  expect(await lamports(from.offchainId)).toBe(fromBefore - 1000);
});

it('cancels a waiting write (nothing moves), and refuses to cancel a confirmed one', async () => {
  const from = await wallet(1);
  const to = await wallet(0.01);
  const [fromBefore, toBefore] = [await lamports(from.offchainId), await lamports(to.offchainId)];
  const waiting = await transfer({ offchainId: from.offchainId, autoSign: false }, to, { lamports: '5000' });
  const offchainId = waiting.body.transaction.offchainId as string;
  const cancelled = await cancel(offchainId);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toEqual({ transaction: { offchainId, status: 'CANCELLED' } });
  documented(cancelledTransactionResponse, cancelled.body);
  expect((await status(offchainId)).status).toBe('CANCELLED');
  expect((await sign(offchainId)).body).toMatchObject({ status: 'CANCELLED', success: false });
  expect(await lamports(from.offchainId)).toBe(fromBefore);
  expect(await lamports(to.offchainId)).toBe(toBefore);

  const confirmed = await transfer({ offchainId: from.offchainId }, to, { lamports: '5000' });
  expect(confirmed.body).toMatchObject({ status: 'CONFIRMED' });
  const refused = await cancel(confirmed.body.offchainId);
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.transaction' });
});

it('answers every Cancel of one waiting write CANCELLED when several come at once, as a client repeating one whose answer was lost sends them', async () => {
  const from = await wallet(1);
  const to = await wallet(0.01);
  const fromBefore = await lamports(from.offchainId);
  const waiting = await transfer({ offchainId: from.offchainId, autoSign: false }, to, { lamports: '5000' });
  const resting = await transfer({ offchainId: from.offchainId }, to, { lamports: '6000' }, { submitTransaction: false });
  for (const offchainId of [waiting.body.transaction.offchainId as string, resting.body.offchainId as string]) {
    const answers = await Promise.all([0, 1, 2].map(() => cancel(offchainId)));
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array(3).fill([200, { transaction: { offchainId, status: 'CANCELLED' } }]));
    expect((await status(offchainId)).status).toBe('CANCELLED');
    expect((await cancel(offchainId)).body).toEqual({ transaction: { offchainId, status: 'CANCELLED' } });
  }
  expect(await lamports(from.offchainId)).toBe(fromBefore);
});

it('ends EXPIRED when the blockhash of a write waiting for signatures expired, and its Submit is refused', async () => {
  const key = await outsideKey();
  // A source with something to send (the balance is checked before the write waits).
  const network = stack.runtime.networks.get('LOCAL')!;
  await network.requestAirdrop(key.address, 1_000_000_000n);
  await waitFor(async () => (await network.getBalance(key.address)) > 0n);
  const to = await wallet(0.01);
  const waiting = await transfer({ onchainId: key.address, offPlatform: true }, to, { lamports: '1000' });
  expect(waiting.status).toBe(202);
  const offchainId = waiting.body.transaction.offchainId as string;
  expect((await submit(offchainId)).status).toBe(400);
  // 150 blocks of 100 ms, then finalized, then the next check of the wait.
  const ended = await waitFor(
    async () => {
      const now = await status(offchainId);
      return now.status === 'EXPIRED' && now;
    },
    90_000,
    500,
  );
  expect(ended).toMatchObject({ success: false });
  expect(
    (await sign(offchainId, [{ signer: key.address, signature: await key.signatureOf((await details(offchainId)).serializedMessage) }])).body,
  ).toMatchObject({ status: 'EXPIRED' });
}, 120_000);

it("waits for an authority's signature the service does not hold (an SPL freeze authority), and freezes once signed", async () => {
  const key = await outsideKey();
  const freezer = await account({ managed: false, alreadyOnchain: true, onchainId: key.address, skipBlockchainExistenceVerification: true });
  const issuer = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  const created = await stack.call('POST', '/api/v1/financial-instruments', {
    itemData: {
      version: 'SPL',
      onchainData: { decimals: 0 },
      mintAuthority: { offchainId: issuer.offchainId },
      freezeAuthority: { offchainId: freezer.offchainId },
      mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STOCK' } } },
    },
  });
  expect(created.status).toBe(201);
  const mint = created.body.newFinancialInstrument.onchainId as string;
  const holder = await wallet(0.01);
  const position = { owner: { offchainId: holder.offchainId }, financialInstrument: { onchainId: mint } };
  expect((await stack.call('POST', '/api/v1/positions', { itemData: { positionToInitialize: position } })).status).toBe(201);

  const waiting = await stack.call('PATCH', '/api/v1/positions/freeze', { itemData: { position } });
  expect(waiting.status).toBe(202);
  expect(waiting.body.transaction.status).toBe('AWAITING_SIGNATURES');
  const offchainId = waiting.body.transaction.offchainId as string;
  const frozen = async () => (await stack.call('POST', '/api/v1/positions/single', { itemData: { position } })).body;
  expect(await frozen()).toMatchObject({ frozen: false });

  const landed = await sign(offchainId, [{ signer: key.address, signature: await key.signatureOf((await details(offchainId)).serializedMessage) }]);
  expect(landed.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId });
  expect(await frozen()).toMatchObject({ frozen: true });
});
