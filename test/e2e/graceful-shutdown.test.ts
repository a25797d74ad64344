/**
 * Stopping the API (what SIGTERM does in `npm run api` and `npm start`): /ready answers 503 at once
 * while requests are still served for the drain delay, a write in flight still answers its client
 * with its result, and only then does the server stop taking connections.
 */
import { startStack, type Stack } from '../support/stack';
import { waitFor } from '../support/wait';

let stack: Stack;
let confirming = false;
beforeAll(async () => {
  stack = await startStack({
    shutdown: { drainDelayMs: 1500, graceMs: 30_000 },
    // Writes stay in flight for a while once sent, so the stop surely lands during one.
    wrapSteps: (steps) => ({
      ...steps,
      confirm: async (...args) => {
        confirming = true;
        await new Promise((resolve) => setTimeout(resolve, 2500));
        return steps.confirm(...args);
      },
    }),
  });
});
afterAll(async () => {
  await stack?.close();
});

it('flips readiness, finishes the write in flight for its client, then stops taking connections', async () => {
  const payer = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, seed: { amount: 1 } } })).body.newAccount;
  const payee = (await stack.call('POST', '/api/v1/accounts', { itemData: { managed: true } })).body.newAccount;
  confirming = false;
  const inFlight = stack.call('POST', '/api/v1/accounts/transfer-network-currency', {
    itemData: { source: { offchainId: payer.offchainId }, destination: { offchainId: payee.offchainId }, value: { lamports: '1000' } },
    svmTransactionConfig: { feePayer: { offchainId: payer.offchainId } },
  });
  await waitFor(async () => confirming);

  const stopped = stack.api.close();
  const ready = await stack.call('GET', '/ready', undefined, { apiKey: null });
  expect(ready).toMatchObject({ status: 503, body: { status: 'not ready' } });
  // Still serving during the drain delay.
  expect((await stack.call('GET', '/health', undefined, { apiKey: null })).status).toBe(200);

  const answered = await inFlight;
  expect(answered.status).toBe(201);
  expect(answered.body).toMatchObject({ success: true, status: 'CONFIRMED' });
  await stopped;
  await expect(fetch(`${stack.api.url}/health`)).rejects.toThrow();
});
