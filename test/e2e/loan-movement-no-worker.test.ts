/**
 * A loan movement when no worker runs (docs/loans.md): the loan's workflow cannot take the update, so
 * the API answers 503 after MOVEMENT_ACCEPT_MS instead of holding the request open; once a worker is
 * back, the same request with the same Idempotency-Key is answered with the movement's outcome, and the
 * repayment is paid once.
 */
import { MOVEMENT_ACCEPT_MS } from '../../src/client/loan-movements';
import { agreedBalance, at, createAccount, createLoan, createStrategy, mintInto, type Ref } from '../support/loan-kit';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let usd: Ref;

beforeAll(async () => {
  // No worker in the API: the test starts and stops the task queue's only worker.
  stack = await startStack({ worker: false });
  await stack.restartWorker();
  const authority = await createAccount(stack, { managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
  usd = (
    await stack.call('POST', '/api/v1/financial-instruments', {
      itemData: {
        version: 'SPL',
        onchainData: { decimals: 6 },
        mintAuthority: { offchainId: authority.offchainId },
        mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STABLECOIN' } } },
      },
    })
  ).body.newFinancialInstrument;
});
afterAll(async () => {
  await stack?.close();
});

it('answers 503 when no worker takes a repayment in time, then the outcome to the same request once one does, paid once', async () => {
  const lender = await createAccount(stack);
  await mintInto(stack, lender, usd, 1000);
  const vault = await createStrategy(stack, lender, usd, { funds: 100 });
  const borrower = await createAccount(stack, { managed: true, canPayFees: true, seed: { amount: 1 } });
  await mintInto(stack, borrower, usd, 20);
  const { escrow } = await createLoan(stack, vault, borrower, usd, { borrow: 10, pledge: 20 });
  const vaultBefore = await agreedBalance(stack, vault, usd);

  await stack.stopWorker();
  const repay = () =>
    stack.call(
      'PATCH',
      '/api/v1/loans/repay',
      {
        itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: escrow }, itemsToRepay: [{ positionLookup: at(borrower, usd), value: { amount: 4 } }] },
        svmTransactionConfig: { feePayer: { offchainId: borrower.offchainId } },
      },
      { headers: { 'idempotency-key': `repay-${escrow}` } },
    );
  const started = Date.now();
  const unanswered = await repay();
  expect({ status: unanswered.status, code: unanswered.body.errors?.[0]?.code }).toEqual({ status: 503, code: 'UNAVAILABLE' });
  expect(unanswered.body.errors[0].message).toContain('Idempotency-Key');
  expect(Date.now() - started).toBeGreaterThanOrEqual(MOVEMENT_ACCEPT_MS - 500);
  expect(Date.now() - started).toBeLessThan(MOVEMENT_ACCEPT_MS + 10_000);

  await stack.restartWorker();
  const answered = await repay();
  expect(answered.status).toBe(200);
  expect(answered.body).toMatchObject({ success: true });
  const again = await repay();
  expect(answered.body.offchainId).toEqual(expect.any(String));
  expect(again.body.offchainId).toBe(answered.body.offchainId);
  // Four repaid once (the interest of a few seconds rounds to nothing at 6 decimals or adds a unit).
  const repaid = Number((await agreedBalance(stack, vault, usd)).amount) - Number(vaultBefore.amount);
  expect(repaid).toBeGreaterThanOrEqual(4);
  expect(repaid).toBeLessThan(4.01);
}, 120_000);
