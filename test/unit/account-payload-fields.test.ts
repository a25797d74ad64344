/**
 * Debit limit and webhook fields of an account payload (spec 2.3, 6, 8): each acts or is refused
 * with 400 naming it, on Create Account and Update Account alike (codec and request rules).
 */
import { writeBodyOf } from '../../src/api/routes/write-route';
import type { CreateAccountItemData } from '../../src/domain/operations/accounts/account.inputs';
import { validateCreateAccount } from '../../src/domain/operations/accounts/create-account.rules';
import { validateUpdateAccount } from '../../src/domain/operations/accounts/update-account.rules';
import { accepted, refusal, refused } from '../support/expectations';

const createBody = writeBodyOf('CREATE_ACCOUNT');
const updateBody = writeBodyOf('UPDATE_ACCOUNT');
const writer = { updateDebitApiKeys: false };
const ACCOUNT = { offchainId: '396197e3-ae95-48d1-868d-6342ea9dc71e' };
const AUTHORITY = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

const tokenLimit = (fields: string) =>
  `{"itemData": {"tokenDebitLimits": [{"destination": "ANY", "maxAllowedDebit": {"limitType": "PER_TRANSACTION", "limitAmount": 1}, ${fields}}]}}`;
/** Runs a rule on Create Account and Update Account; both must refuse naming the same field. */
const fieldRefusedByBoth = (fields: Partial<CreateAccountItemData>) => {
  const created = refusal(() => validateCreateAccount(fields, writer));
  const updated = refusal(() => validateUpdateAccount({ account: ACCOUNT, ...fields }, writer));
  expect(updated.field).toBe(created.field);
  expect({ code: created.code, status: created.status }).toEqual({ code: 'VALIDATION_ERROR', status: 400 });
  return created.field;
};

describe('token debit limits: operationType and mintAuthority', () => {
  it('takes ANY, TRANSFER and BURN, and refuses MINT (a mint debits no one) naming the field', () => {
    for (const type of ['ANY', 'TRANSFER', 'BURN'])
      expect(accepted(createBody, tokenLimit(`"operationType": "${type}"`)).itemData.tokenDebitLimits).toHaveLength(1);
    expect(refused(createBody, tokenLimit('"operationType": "MINT"'))).toEqual([
      { field: 'itemData.tokenDebitLimits.0.operationType', message: 'must be one of ANY, TRANSFER, BURN' },
    ]);
  });

  it('takes ANY or an account lookup as mintAuthority, and refuses any other text naming the field', () => {
    expect(accepted(createBody, tokenLimit('"mintAuthority": "ANY"')).itemData.tokenDebitLimits?.[0].mintAuthority).toBe('ANY');
    expect(accepted(createBody, tokenLimit(`"mintAuthority": {"offchainId": "${ACCOUNT.offchainId}"}`)).itemData.tokenDebitLimits?.[0].mintAuthority).toEqual(
      ACCOUNT,
    );
    expect(
      accepted(
        updateBody,
        `{"itemData": {"account": {"offchainId": "${ACCOUNT.offchainId}"}, "tokenDebitLimits": [{"destination": "ANY",
      "mintAuthority": {"onchainId": "${AUTHORITY}"}, "maxAllowedDebit": {"limitType": "PER_TRANSACTION", "limitAmount": 1}}]}}`,
      ).itemData.tokenDebitLimits?.[0].mintAuthority,
    ).toEqual({ onchainId: AUTHORITY });
    for (const value of [`"${AUTHORITY}"`, '"any"', '7'])
      expect(refused(createBody, tokenLimit(`"mintAuthority": ${value}`))[0].field).toBe('itemData.tokenDebitLimits.0.mintAuthority');
    expect(refused(createBody, tokenLimit('"mintAuthority": {"address": "x"}'))[0].field).toBe('itemData.tokenDebitLimits.0.mintAuthority.address');
  });

  it('refuses autoSign on a mint authority lookup: it is matched, never asked to sign', () => {
    const limit = {
      destination: 'ANY' as const,
      mintAuthority: { ...ACCOUNT, autoSign: false },
      maxAllowedDebit: { limitType: 'PER_TRANSACTION' as const, limitAmount: '1' },
    };
    expect(fieldRefusedByBoth({ tokenDebitLimits: [limit] })).toBe('itemData.tokenDebitLimits.0.mintAuthority.autoSign');
  });
});

describe('maxAllowedDebit: duration and requiredApproversCount', () => {
  it('refuses a duration on a PER_TRANSACTION limit, naming it', () => {
    const limit = {
      destination: 'ANY' as const,
      maxAllowedDebit: { limitType: 'PER_TRANSACTION' as const, limitAmount: '1', duration: { code: 'DAYS' as const, unit: 1 } },
    };
    expect(fieldRefusedByBoth({ networkCurrencyDebitLimits: [limit] })).toBe('itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.duration');
    expect(fieldRefusedByBoth({ tokenDebitLimits: [limit] })).toBe('itemData.tokenDebitLimits.0.maxAllowedDebit.duration');
  });

  it('takes requiredApproversCount from 1 to the number of approversForOverride, refusing more (or any, without approvers)', () => {
    const limit = (requiredApproversCount: number, approversForOverride?: string[]) => ({
      destination: 'ANY' as const,
      maxAllowedDebit: { limitType: 'PER_TRANSACTION' as const, limitAmount: '1', approversForOverride, requiredApproversCount },
    });
    const field = 'itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.requiredApproversCount';
    expect(fieldRefusedByBoth({ networkCurrencyDebitLimits: [limit(3, ['a', 'b'])] })).toBe(field);
    expect(fieldRefusedByBoth({ networkCurrencyDebitLimits: [limit(1)] })).toBe(field);
    expect(() => validateCreateAccount({ networkCurrencyDebitLimits: [limit(2, ['a', 'b'])] }, writer)).not.toThrow();
    expect(refused(createBody, tokenLimit('"operationType": "ANY"').replace('"limitAmount": 1', '"limitAmount": 1, "requiredApproversCount": 0'))).toEqual([
      { field: 'itemData.tokenDebitLimits.0.maxAllowedDebit.requiredApproversCount', message: expect.any(String) },
    ]);
  });
});

describe('webhooks: doNotSubmitTransactionOnFailure', () => {
  const hook = { endpointUrl: 'https://hooks.example.com/x', doNotSubmitTransactionOnFailure: true };
  it('is accepted on pre-submit webhooks', () => {
    expect(() => validateCreateAccount({ preTransactionSubmitWebhooks: [hook] }, writer)).not.toThrow();
    expect(() => validateUpdateAccount({ account: ACCOUNT, preTransactionSubmitWebhooks: [hook] }, writer)).not.toThrow();
  });

  it('is refused on post-submit and missing-signature webhooks (true or false), naming the field', () => {
    const plain = { endpointUrl: 'https://hooks.example.com/y' };
    expect(fieldRefusedByBoth({ postTransactionSubmitWebhooks: [plain, hook] })).toBe(
      'itemData.postTransactionSubmitWebhooks.1.doNotSubmitTransactionOnFailure',
    );
    expect(fieldRefusedByBoth({ missingSignatureWebhooks: [{ ...hook, doNotSubmitTransactionOnFailure: false }] })).toBe(
      'itemData.missingSignatureWebhooks.0.doNotSubmitTransactionOnFailure',
    );
  });
});
