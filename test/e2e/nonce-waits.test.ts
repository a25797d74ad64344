/**
 * Durable nonces and waits together (issue 10's proof): a nonce-lifetime transfer waits an hour of
 * slots for a signature the service does not hold and still lands, holding its nonce all along; a
 * nonce write resting at SIGNED for Submit is cancelled and gives its nonce back to the next write.
 */
import { generateKeyPair, getAddressFromPublicKey, getBase58Decoder, getBase64Encoder, signBytes } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

type Ref = { onchainId: string; offchainId: string };
const account = async (itemData: Record<string, unknown>): Promise<Ref> => {
  const created = await stack.call('POST', '/api/v1/accounts', { itemData });
  expect(created.status).toBe(201);
  return created.body.newAccount;
};
const nonceConfig = (extra: Record<string, unknown> = {}) => ({ messageLifetimeStrategy: 'DURABLE_NONCE', ...extra });
const transfer = (source: Record<string, unknown>, destination: Ref, lamports: string, svmTransactionConfig: Record<string, unknown>) =>
  stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source, destination: { offchainId: destination.offchainId }, value: { lamports } },
    svmTransactionConfig,
  });
const status = async (offchainId: string) => (await stack.call('POST', '/api/v1/transactions/status', { itemData: { transaction: { offchainId } } })).body;
const nonceDetails = async (nonce: Ref) =>
  (await stack.call('POST', '/api/v1/durable-nonce-accounts/single', { itemData: { nonceAccount: { offchainId: nonce.offchainId } } })).body;
/** The nonce account a transaction holds (Fetch Durable Nonce Accounts by inUseByTransactionId), or null. */
async function heldBy(transactionOffchainId: string): Promise<Ref | null> {
  const page = await stack.call('POST', '/api/v1/durable-nonce-accounts/bulk', {
    itemQuery: {
      filter: [{ fieldName: 'inUseByTransactionId', filterValues: [{ dataType: 'OFFCHAIN_ID', filterType: 'EQUALS', valueString: transactionOffchainId }] }],
    },
  });
  expect(page.status).toBe(200);
  const record = page.body.items[0]?.nonceAccount;
  return record ? { onchainId: record.onchain.id, offchainId: record.offchain.id } : null;
}
async function lamports(ref: Ref): Promise<number> {
  const { body } = await stack.call('POST', '/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } });
  expect(body.offchain.balance).toEqual(body.onchain.balance);
  return body.onchain.balance.lamports;
}

/** Adds one nonce account to the organization's pool. */
async function oneNonceAccount(): Promise<void> {
  const authority = await account({ managed: true });
  const created = await stack.call('POST', '/api/v1/durable-nonce-accounts', {
    itemData: { nonceAccount: { offchainReferences: { type: 'NONCE' } }, numberOfNonceAccounts: 1, nonceAuthority: { offchainId: authority.offchainId } },
  });
  expect(created.status).toBe(201);
  const page = await stack.call('POST', '/api/v1/durable-nonce-accounts/bulk', {
    itemQuery: {
      filter: [{ fieldName: 'nonceAuthorityOffchainId', filterValues: [{ dataType: 'OFFCHAIN_ID', filterType: 'EQUALS', valueString: authority.offchainId }] }],
    },
  });
  expect(page.body.count).toBe(1);
}

it('waits an hour of slots for an outside signature with a durable nonce, holding the nonce, and lands once signed', async () => {
  await oneNonceAccount();
  const keys = await generateKeyPair();
  const outside = await getAddressFromPublicKey(keys.publicKey);
  const source = await account({ managed: false, alreadyOnchain: true, onchainId: outside, skipBlockchainExistenceVerification: true });
  const funder = await account({ managed: true, seed: { amount: 2 } });
  expect((await transfer({ offchainId: funder.offchainId }, source, '500000000', {})).body).toMatchObject({ success: true });
  const to = await account({ managed: true, seed: { amount: 0.01 } });
  const [sourceBefore, toBefore] = [await lamports(source), await lamports(to)];

  const waiting = await transfer({ offchainId: source.offchainId }, to, '123456', nonceConfig());
  expect(waiting.status).toBe(202);
  const offchainId = waiting.body.transaction.offchainId as string;
  const nonce = (await heldBy(offchainId))!;
  expect((await nonceDetails(nonce)).inUse).toMatchObject({ transactionOffchainId: offchainId });
  const nonceHash = (await nonceDetails(nonce)).nonceHash;

  // An hour of 400 ms slots: a blockhash would have expired 60 times over; the nonce has not moved.
  stack.node.advanceSlots(9000);
  await new Promise((resolve) => setTimeout(resolve, 12_000)); // past the wait's next lifetime check
  expect((await status(offchainId)).status).toBe('AWAITING_SIGNATURES');
  expect((await nonceDetails(nonce)).nonceHash).toBe(nonceHash);

  const details = (await stack.call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId } } })).body;
  const signature = getBase58Decoder().decode(await signBytes(keys.privateKey, getBase64Encoder().encode(details.serializedMessage)));
  const landed = await stack.call('POST', '/api/v1/transactions/sign', {
    itemData: { transaction: { offchainId }, signatures: [{ signer: outside, signature }] },
  });
  expect(landed.status).toBe(200);
  expect(landed.body).toMatchObject({ success: true, status: 'CONFIRMED', offchainId });
  expect(await lamports(source)).toBeLessThanOrEqual(sourceBefore - 123456);
  expect(await lamports(to)).toBe(toBefore + 123456);
  // Landing advanced the nonce and freed the account.
  const after = await nonceDetails(nonce);
  expect(after.inUse).toBeNull();
  expect(after.nonceHash).not.toBe(nonceHash);
}, 120_000);

it('cancels a nonce write resting at SIGNED for Submit and gives its nonce to the next write', async () => {
  await oneNonceAccount();
  const from = await account({ managed: true, seed: { amount: 1 } });
  const to = await account({ managed: true, seed: { amount: 0.01 } });
  const fromBefore = await lamports(from);
  const resting = await transfer({ offchainId: from.offchainId }, to, '7000', nonceConfig({ submitTransaction: false }));
  expect(resting.body).toMatchObject({ status: 'SIGNED' });
  const nonce = (await heldBy(resting.body.offchainId))!;
  expect(nonce).not.toBeNull();

  const cancelled = await stack.call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: resting.body.offchainId } } });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toEqual({ transaction: { offchainId: resting.body.offchainId, status: 'CANCELLED' } });
  expect((await status(resting.body.offchainId)).status).toBe('CANCELLED');
  expect((await nonceDetails(nonce)).inUse).toBeNull();
  // Submit after Cancel answers the cancelled record; nothing moved.
  expect((await stack.call('POST', '/api/v1/transactions/submit', { itemData: { transaction: { offchainId: resting.body.offchainId } } })).body).toMatchObject({
    status: 'CANCELLED',
  });
  expect(await lamports(from)).toBe(fromBefore);

  const next = await transfer({ offchainId: from.offchainId }, to, '7000', nonceConfig());
  expect(next.body).toMatchObject({ success: true, status: 'CONFIRMED' });
  expect((await nonceDetails(nonce)).inUse).toBeNull();
}, 120_000);
