/** The loan writes' rules on the request alone: run through the registry, as the API runs them before any lookup (nothing named here exists). */
import { validateInput } from '../../../src/domain/operations/registry';
import { refusal } from '../../support/expectations';

const writer = { updateDebitApiKeys: false };
const nowhere = {
  owner: { offchainId: '00000000-0000-4000-8000-000000000000' },
  financialInstrument: { onchainId: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' },
};
const theLoan = { defiProtocol: 'LEDGER_ESCROW' as const, escrow: { offchainId: '00000000-0000-4000-8000-000000000001' } };
const protocolDetails = {
  loanStrategyAddress: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  expectedLoanValues: { expectedApy: 1, expectedLqt: [1] },
  durationIndex: 0,
};
const createLoan = (borrow: object, pledge: object) => ({
  defiProtocol: 'LEDGER_ESCROW' as const,
  protocolDetails,
  itemsToBorrow: [{ positionLookup: nowhere, value: borrow }],
  itemsToPledge: [{ positionLookup: nowhere, value: pledge }],
});
const field = (run: () => void) => refusal(run).field;

describe('Create Loan', () => {
  it('refuses values no decimals make agree or that are zero, naming the field', () => {
    expect(field(() => validateInput('CREATE_LOAN', createLoan({ amount: '1', lamports: '3' }, { amount: '1' }), writer))).toBe(
      'itemData.itemsToBorrow[0].value.lamports',
    );
    expect(field(() => validateInput('CREATE_LOAN', createLoan({ amount: '1' }, { lamports: '0' }), writer))).toBe('itemData.itemsToPledge[0].value');
  });

  it('accepts values that may agree with the instrument (its lookup checks its decimals)', () => {
    expect(() => validateInput('CREATE_LOAN', createLoan({ amount: '1', lamports: '100' }, { amount: '2' }), writer)).not.toThrow();
  });
});

describe('Repay Loan', () => {
  it('refuses nothing to repay or release, value beside repayAll, and a release carrying more than a value', () => {
    expect(field(() => validateInput('REPAY_LOAN', theLoan, writer))).toBe('itemData');
    expect(
      field(() => validateInput('REPAY_LOAN', { ...theLoan, itemsToRepay: [{ positionLookup: nowhere, value: { amount: '1' }, repayAll: true }] }, writer)),
    ).toBe('itemData.itemsToRepay[0].value');
    expect(
      field(() => validateInput('REPAY_LOAN', { ...theLoan, itemsToRelease: [{ positionLookup: nowhere, value: { amount: '1' }, mintAsset: true }] }, writer)),
    ).toBe('itemData.itemsToRelease[0].mintAsset');
    expect(field(() => validateInput('REPAY_LOAN', { ...theLoan, itemsToRelease: [{ positionLookup: nowhere }] }, writer))).toBe(
      'itemData.itemsToRelease[0].value',
    );
  });

  it('refuses a repayment whose amount and lamports disagree before the escrow is looked up', () => {
    const item = { ...theLoan, itemsToRepay: [{ positionLookup: nowhere, value: { amount: '2', lamports: '3' } }] };
    expect(field(() => validateInput('REPAY_LOAN', item, writer))).toBe('itemData.itemsToRepay[0].value.lamports');
    expect(() => validateInput('REPAY_LOAN', { ...theLoan, itemsToRepay: [{ positionLookup: nowhere, repayAll: true }] }, writer)).not.toThrow();
  });
});

describe('Swap Collateral', () => {
  it('refuses nothing to swap, repayAll or no value on a deposit, and a zero withdrawal', () => {
    expect(field(() => validateInput('SWAP_COLLATERAL', theLoan, writer))).toBe('itemData');
    expect(field(() => validateInput('SWAP_COLLATERAL', { ...theLoan, itemsToDeposit: [{ positionLookup: nowhere, repayAll: true }] }, writer))).toBe(
      'itemData.itemsToDeposit[0].repayAll',
    );
    expect(field(() => validateInput('SWAP_COLLATERAL', { ...theLoan, itemsToDeposit: [{ positionLookup: nowhere }] }, writer))).toBe(
      'itemData.itemsToDeposit[0].value',
    );
    expect(field(() => validateInput('SWAP_COLLATERAL', { ...theLoan, itemsToWithdraw: [{ positionLookup: nowhere, value: { amount: '0' } }] }, writer))).toBe(
      'itemData.itemsToWithdraw[0].value',
    );
  });
});
