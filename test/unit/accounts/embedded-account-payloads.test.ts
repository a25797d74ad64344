/**
 * The account payloads (spec 2.3) inside Create Durable Nonce Accounts, Create Address Lookup Table
 * and Create Onchain Data Source (API.md section 10): the codec takes every 2.3 field, `managed`
 * included; what the operation honours passes its rules, the rest is 400 naming the field and why.
 */
import type * as t from 'io-ts';
import { operationRegistry, validateInput } from '../../../src/domain/operations/registry';
import { checkTableManaged } from '../../../src/domain/operations/address-lookup-tables/address-lookup-table.rules';
import { checkPayloadFields } from '../../../src/domain/operations/accounts/account-payload.rules';
import { accepted, refusal } from '../../support/expectations';

const T = 'Addr1111111111111111111111111111111111111111';
const lookup = { offchainId: '00000000-0000-4000-8000-000000000000' };
const bodies = {
  CREATE_DURABLE_NONCE_ACCOUNTS: (payload: object) => ({ nonceAccount: payload, numberOfNonceAccounts: 1, nonceAuthority: lookup }),
  CREATE_ADDRESS_LOOKUP_TABLE: (payload: object) => ({ addressLookupTable: payload, authority: lookup }),
  CREATE_ONCHAIN_DATA_SOURCE: (payload: object) => ({
    defiProtocol: 'LEDGER_FEED',
    onchainDataSource: payload,
    financialInstrument: lookup,
    onchainDataSourceAuthority: lookup,
    dataDetails: { kind: 'PRICE' },
    providerDetails: { kind: 'QUOTES', jobDefinition: '{"tasks": []}' },
  }),
} as const;
type Op = keyof typeof bodies;
const payloadOf: Record<Op, string> = {
  CREATE_DURABLE_NONCE_ACCOUNTS: 'nonceAccount',
  CREATE_ADDRESS_LOOKUP_TABLE: 'addressLookupTable',
  CREATE_ONCHAIN_DATA_SOURCE: 'onchainDataSource',
};

/** Decodes the body as the API does, then runs the operation's request-only rules. */
const validate = (op: Op, payload: object) => {
  const codec = operationRegistry[op].input as unknown as t.Type<unknown, unknown, unknown>;
  const item = accepted(codec, JSON.stringify(bodies[op](payload)));
  validateInput(op, item as never, { updateDebitApiKeys: true });
};

describe.each(Object.keys(bodies) as Op[])('%s: the account payload', (op) => {
  const at = `itemData.${payloadOf[op]}`;

  it('takes managed: true and the labels of spec 2.3', () => {
    expect(() => validate(op, { managed: true, offchainReferences: { code: 'C', name: 'N' }, comments: 'c' })).not.toThrow();
  });

  it.each([
    ['managed', false],
    ['seed', { amount: 1 }],
    ['dataLength', 10],
    ['canPayFees', true],
    ['networkCurrencyDebitLimits', [{ destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 1 } }]],
    ['postTransactionSubmitWebhooks', [{ endpointUrl: 'https://hooks.example.com/x' }]],
    ['skipBlockchainExistenceVerification', true],
  ])('refuses %s %j with 400 naming it and saying why', (field, value) => {
    expect(refusal(() => validate(op, { [field]: value }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: `${at}.${field}`,
      message: expect.stringMatching(/is not accepted: .{10,}|: .{10,}/),
    });
  });

  it('refuses an imported key (the key is generated, or there is none)', () => {
    expect(refusal(() => validate(op, { privateKeyDetails: { privateKey: 'x' } })).field).toMatch(new RegExp(`^${at}\\.privateKeyDetails`));
  });
});

describe('what each operation honours', () => {
  it('a nonce account: 80 bytes, one key location; alreadyOnchain with an address is left to the lookup (409 when on record)', () => {
    expect(() => validate('CREATE_DURABLE_NONCE_ACCOUNTS', { dataLength: 80, privateKeyDetails: { location: ['SECRETS'] } })).not.toThrow();
    expect(() => validate('CREATE_DURABLE_NONCE_ACCOUNTS', { alreadyOnchain: true, onchainId: T })).not.toThrow();
    expect(refusal(() => validate('CREATE_DURABLE_NONCE_ACCOUNTS', { alreadyOnchain: true })).field).toBe('itemData.nonceAccount.alreadyOnchain');
  });

  it('a table: onboarding pairs, labels it keeps, its type; no key, no other labels', () => {
    const at = 'itemData.addressLookupTable';
    expect(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { alreadyOnchain: true, onchainId: T, managed: false })).not.toThrow();
    expect(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { offchainReferences: { type: 'ADDRESS_LOOKUP_TABLE' } })).not.toThrow();
    expect(refusal(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { privateKeyDetails: { location: ['DATABASE'] } })).field).toBe(`${at}.privateKeyDetails`);
    expect(refusal(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { offchainReferences: { type: 'NONCE' } })).field).toBe(`${at}.offchainReferences.type`);
    expect(refusal(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { offchainReferences: { accountNumber: '1' } })).field).toBe(
      `${at}.offchainReferences.accountNumber`,
    );
    expect(refusal(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { domain: 'x.example' })).field).toBe(`${at}.domain`);
    expect(refusal(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { shareAcrossTenants: true })).field).toBe(`${at}.shareAcrossTenants`);
  });

  it("an onboarded table's managed is whether the service holds its authority's key", () => {
    expect(() => checkTableManaged(undefined, false)).not.toThrow();
    expect(() => checkTableManaged(true, true)).not.toThrow();
    expect(refusal(() => checkTableManaged(true, false))).toMatchObject({
      field: 'itemData.addressLookupTable.managed',
      message: "the table's authority is not a managed account, so the table is not managed",
    });
  });

  it('a feed mint: Token-2022, its flags and labels, one key location; never an address of its own', () => {
    const at = 'itemData.onchainDataSource';
    const flags = { tokenVersion: 'TOKEN_2022', domain: 'x.example', isGenesis: true, shareAcrossTenants: true, privateKeyDetails: { location: ['SECRETS'] } };
    expect(() => validate('CREATE_ONCHAIN_DATA_SOURCE', { ...flags, alreadyOnchain: false })).not.toThrow();
    expect(refusal(() => validate('CREATE_ONCHAIN_DATA_SOURCE', { tokenVersion: 'SPL' })).field).toBe(`${at}.tokenVersion`);
    expect(refusal(() => validate('CREATE_ONCHAIN_DATA_SOURCE', { onchainId: T })).field).toBe(`${at}.onchainId`);
    expect(refusal(() => validate('CREATE_ONCHAIN_DATA_SOURCE', { alreadyOnchain: true })).field).toBe(`${at}.alreadyOnchain`);
  });
});

describe('checkPayloadFields', () => {
  it('lets false and the empty list through (they ask for nothing) and names the first field it refuses, with why', () => {
    expect(() => checkPayloadFields({ canPayFees: false, tokenDebitLimits: [] }, { canPayFees: 'no', tokenDebitLimits: 'no' }, 'at')).not.toThrow();
    expect(refusal(() => checkPayloadFields({ canPayFees: true }, { canPayFees: 'cannot pay' }, 'at'))).toMatchObject({
      field: 'at.canPayFees',
      message: 'at.canPayFees true is not accepted: cannot pay',
    });
  });
});

describe('a refusal never echoes what a refused field holds', () => {
  it('names an imported key or a webhook credential without its value', () => {
    const secret = 'sEcReT-value-123';
    const refusals = [
      refusal(() => validate('CREATE_ADDRESS_LOOKUP_TABLE', { privateKeyDetails: { privateKey: secret } })),
      refusal(() => validate('CREATE_DURABLE_NONCE_ACCOUNTS', { privateKeyDetails: { privateKey: secret } })),
      refusal(() =>
        validate('CREATE_ONCHAIN_DATA_SOURCE', {
          preTransactionSubmitWebhooks: [{ endpointUrl: 'https://hooks.example.com/x', apiKeyAuthConfig: { httpHeaderName: 'X-Key', keyValue: secret } }],
        }),
      ),
    ];
    for (const r of refusals) expect(JSON.stringify(r)).not.toContain(secret);
  });
});
