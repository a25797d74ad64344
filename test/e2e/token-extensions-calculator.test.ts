/** The Token Extensions Calculator over HTTP, checked against the network's own rent. */
import { createSolanaRpc } from '@solana/kit';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const calculate = (body: unknown) => stack.call('POST', '/api/v1/financial-instruments/token-extensions-calculator', body);

it('answers the mint size and the rent the network charges for it', async () => {
  const answer = await calculate({ extensions: ['PERMANENT_DELEGATE'] });
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ mintAccountSize: 202, estimatedRent: { amount: 0.0022968, lamports: 2_296_800 } });
  const networkRent = await createSolanaRpc(stack.node.url).getMinimumBalanceForRentExemption(202n).send();
  expect(BigInt(answer.body.estimatedRent.lamports)).toBe(networkRent);
});

it('sizes metadata with its custom fields, and grows with them', async () => {
  const base = await calculate({ extensions: ['PAUSABLE'], metadata: { name: 'Muni 2031', symbol: 'MUNI', uri: 'https://example.com/muni.json' } });
  const more = await calculate({
    extensions: ['PAUSABLE'],
    metadata: { name: 'Muni 2031', symbol: 'MUNI', uri: 'https://example.com/muni.json', simpleCustomMetadata: { cusip: '123456AB7' } },
  });
  expect(more.body.mintAccountSize - base.body.mintAccountSize).toBe(4 + 5 + 4 + 9);
  const networkRent = await createSolanaRpc(stack.node.url).getMinimumBalanceForRentExemption(BigInt(more.body.mintAccountSize)).send();
  expect(BigInt(more.body.estimatedRent.lamports)).toBe(networkRent);
});

it('refuses an unknown extension, naming it', async () => {
  const refused = await calculate({ extensions: ['PERMANENT_DELEGATE', 'TIME_TRAVEL'] });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].field).toBe('extensions.1');
});
