import { writeBodyOf } from '../../src/api/routes/write-route';
import type { UpdateAccountItemData } from '../../src/domain/operations/accounts/account.inputs';
import { lamportsToSweep } from '../../src/domain/operations/accounts/inactivate-account.rules';
import { validateUpdateAccount } from '../../src/domain/operations/accounts/update-account.rules';
import { accepted, refusal, refused } from '../support/expectations';

const updateAccountBody = writeBodyOf('UPDATE_ACCOUNT');
const inactivateAccountBody = writeBodyOf('INACTIVATE_ACCOUNT');

const ACCOUNT = { offchainId: '396197e3-ae95-48d1-868d-6342ea9dc71e' };
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const writer = { updateDebitApiKeys: false };
const debitKeyAdmin = { updateDebitApiKeys: true };
const update = (fields: Partial<UpdateAccountItemData>): UpdateAccountItemData => ({ account: ACCOUNT, ...fields });

describe('Update Account body', () => {
  it('takes the changeable fields of spec 2.3 with the Create Account rules, and refuses the others naming them', () => {
    const body = accepted(
      updateAccountBody,
      JSON.stringify({
        itemData: {
          account: ACCOUNT,
          offchainReferences: { code: 'C', name: 'N', accountNumber: 'A', organizationExternalId: 'O' },
          comments: 'c',
          networkCurrencyDebitLimits: [{ destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1.5 } }],
          postTransactionSubmitWebhooks: [{ endpointUrl: 'https://hooks.example.com/x', apiKeyAuthConfig: { httpHeaderName: 'x-key', keyValue: 'secret' } }],
          unsetFields: ['domain', 'offchainReferences.code'],
        },
      }),
    );
    expect(body.itemData.networkCurrencyDebitLimits![0].maxAllowedDebit.limitAmount).toBe('1.5');
    expect(refused(updateAccountBody, '{"itemData":{"account":{},"offchainReferences":{"type":"WALLET"}}}')[0].field).toBe('itemData.offchainReferences.type');
    expect(refused(updateAccountBody, '{"itemData":{"account":{},"managed":false}}')[0].field).toBe('itemData.managed');
    expect(refused(updateAccountBody, '{"itemData":{"account":{},"unsetFields":["managed"]}}')[0].field).toBe('itemData.unsetFields.0');
    expect(refused(updateAccountBody, '{"itemData":{"account":{},"postTransactionSubmitWebhooks":[{"endpointUrl":"not a url"}]}}')[0].field).toBe(
      'itemData.postTransactionSubmitWebhooks.0.endpointUrl',
    );
    expect(refused(updateAccountBody, '{"itemData":{"comments":"x"}}')[0].field).toBe('itemData.account');
  });

  it('Inactivate Account takes accountToInactivate and an optional destination', () => {
    accepted(
      inactivateAccountBody,
      JSON.stringify({ itemData: { accountToInactivate: ACCOUNT, transferRemainingNetworkCurrencyTo: { onchainId: ADDRESS, offPlatform: true } } }),
    );
    expect(refused(inactivateAccountBody, '{"itemData":{}}')[0].field).toBe('itemData.accountToInactivate');
  });
});

describe('validateUpdateAccount', () => {
  it('refuses a request that changes nothing', () => {
    expect(refusal(() => validateUpdateAccount(update({}), writer)).field).toBe('itemData');
    expect(refusal(() => validateUpdateAccount(update({ offchainReferences: {}, unsetFields: [] }), writer)).field).toBe('itemData');
    expect(() => validateUpdateAccount(update({ canPayFees: false }), writer)).not.toThrow();
    expect(() => validateUpdateAccount(update({ unsetFields: ['comments'] }), writer)).not.toThrow();
  });

  it('needs UPDATE_DEBIT_API_KEYS for any change of debit API keys, emptying them included (spec 5.4)', () => {
    for (const list of ['networkCurrencyDebitApiKeys', 'tokenDebitApiKeys'] as const) {
      for (const value of [['k'], []]) {
        const error = refusal(() => validateUpdateAccount(update({ [list]: value }), writer));
        expect({ code: error.code, status: error.status, field: error.field }).toEqual({ code: 'FORBIDDEN', status: 403, field: `itemData.${list}` });
        expect(() => validateUpdateAccount(update({ [list]: value }), debitKeyAdmin)).not.toThrow();
      }
    }
  });

  it('refuses a field both set and unset, naming the unsetFields entry', () => {
    expect(refusal(() => validateUpdateAccount(update({ comments: 'x', unsetFields: ['domain', 'comments'] }), writer)).field).toBe('itemData.unsetFields.1');
    expect(refusal(() => validateUpdateAccount(update({ offchainReferences: { code: 'x' }, unsetFields: ['offchainReferences.code'] }), writer)).field).toBe(
      'itemData.unsetFields.0',
    );
    expect(() => validateUpdateAccount(update({ offchainReferences: { name: 'x' }, unsetFields: ['offchainReferences.code'] }), writer)).not.toThrow();
  });

  it('refuses a DURATION limit without its duration, as Create Account does', () => {
    const error = refusal(() =>
      validateUpdateAccount(update({ tokenDebitLimits: [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: '5' } }] }), writer),
    );
    expect(error.field).toBe('itemData.tokenDebitLimits.0.maxAllowedDebit.duration');
  });
});

describe('lamportsToSweep: what inactivating an account moves onchain', () => {
  const managed = { managed: true, address: ADDRESS };
  const wallet = (lamports: bigint, owner = SYSTEM_PROGRAM, dataLength = 0) => ({ owner, lamports, dataLength });

  it('sweeps the whole balance of a managed system account without data', () => {
    expect(lamportsToSweep(managed, wallet(2_000_890_880n), true)).toBe(2_000_890_880n);
  });

  it('moves nothing when the account is not (or no longer) onchain, with or without a destination', () => {
    expect(lamportsToSweep(managed, null, false)).toBe(0n);
    expect(lamportsToSweep(managed, wallet(0n), true)).toBe(0n);
  });

  it('needs a destination while lamports remain, naming transferRemainingNetworkCurrencyTo', () => {
    const error = refusal(() => lamportsToSweep(managed, wallet(890_880n), false));
    expect(error.field).toBe('itemData.transferRemainingNetworkCurrencyTo');
    expect(error.message).toContain('890880 lamports');
  });

  it('refuses an account owned by another program, or holding data, explaining why', () => {
    const owned = refusal(() => lamportsToSweep(managed, wallet(2_039_280n, TOKEN_PROGRAM, 165), true));
    expect(owned.field).toBe('itemData.accountToInactivate');
    expect(owned.message).toContain(`owned by program ${TOKEN_PROGRAM}`);
    const withData = refusal(() => lamportsToSweep(managed, wallet(1_586_880n, SYSTEM_PROGRAM, 100), true));
    expect(withData.field).toBe('itemData.accountToInactivate');
    expect(withData.message).toContain('100 bytes of data');
  });

  it('closes a non-managed account offchain only, and refuses a destination for it (no key to sign)', () => {
    const nonManaged = { managed: false, address: ADDRESS };
    expect(lamportsToSweep(nonManaged, wallet(5n), false)).toBe(0n);
    expect(refusal(() => lamportsToSweep(nonManaged, null, true)).field).toBe('itemData.transferRemainingNetworkCurrencyTo');
  });
});
