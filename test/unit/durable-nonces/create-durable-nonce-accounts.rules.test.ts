/** The Create Durable Nonce Accounts rules over looked-up state: each refusal's code and field, the good case, the record mapping. */
import { checkNoOnchainId, checkNonceAuthority, nonceAccountRow } from '../../../src/domain/operations/durable-nonces/create-durable-nonce-accounts.rules';
import { refusal } from '../../support/expectations';

const A = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

describe('Create Durable Nonce Accounts', () => {
  it('refuses a given nonceAccount.onchainId: 409 when on record, 400 otherwise', () => {
    expect(refusal(() => checkNoOnchainId(A, true))).toMatchObject({
      code: 'CONFLICT',
      field: 'itemData.nonceAccount.onchainId',
      message: `account ${A} is already on record`,
    });
    expect(refusal(() => checkNoOnchainId(A, false))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.nonceAccount.onchainId' });
    expect(() => checkNoOnchainId(undefined, false)).not.toThrow();
  });

  it('takes an ACTIVE onboarded authority or an off-platform one', () => {
    expect(refusal(() => checkNonceAuthority({ address: A, status: 'CLOSED' }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.nonceAuthority',
      message: `the nonce authority ${A} is CLOSED`,
    });
    expect(() => checkNonceAuthority({ address: A, status: 'ACTIVE' })).not.toThrow();
    expect(() => checkNonceAuthority({ address: A })).not.toThrow();
  });

  it('records a new nonce account free, its nonce not read yet', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    expect(
      nonceAccountRow({ organizationId: 'org-a', cluster: 'LOCAL' }, { id: 'n-1', address: A }, 'NONCE-DESK', { address: A, accountId: null }, at),
    ).toEqual({
      id: 'n-1',
      organizationId: 'org-a',
      cluster: 'LOCAL',
      address: A,
      code: 'NONCE-DESK',
      authorityAddress: A,
      authorityAccountId: null,
      authorityAutoSign: true,
      nonceHash: null,
      isInUse: false,
      inUseByTransactionId: null,
      inUseAt: null,
      createdAt: at,
    });
  });

  it('records that the service does not sign with an authority looked up with autoSign: false (the nonce is never reserved)', () => {
    const row = (autoSign?: boolean) =>
      nonceAccountRow({ organizationId: 'org-a', cluster: 'LOCAL' }, { id: 'n-1', address: A }, null, { address: A, accountId: 'acc-1', autoSign }, new Date());
    expect(row(false).authorityAutoSign).toBe(false);
    expect(row(true).authorityAutoSign).toBe(true);
    expect(row(undefined).authorityAutoSign).toBe(true);
  });
});
