import { parse } from 'lossless-json';
import { singleAccountBody } from '../../src/api/codecs/account.codecs';
import { writeBodyOf } from '../../src/api/routes/write-route';
import { reportErrors, type ValidationIssue } from '../../src/domain/inputs/primitives';

const createAccountBody = writeBodyOf('CREATE_ACCOUNT');

/** Decodes a Create Account body parsed exactly as the API does (lossless numbers). */
function decodeCreate(json: string) {
  const result = createAccountBody.decode(parse(json));
  return result._tag === 'Right' ? { ok: true as const, value: result.right } : { ok: false as const, issues: reportErrors(result.left) };
}

function accepted(json: string) {
  const result = decodeCreate(json);
  if (!result.ok) throw new Error(`expected the body to be accepted, got ${JSON.stringify(result.issues)}`);
  return result.value;
}

function refused(json: string): ValidationIssue[] {
  const result = decodeCreate(json);
  if (result.ok) throw new Error(`expected the body to be refused, got ${JSON.stringify(result.value)}`);
  return result.issues;
}

const itemData = (fields: string) => `{"itemData": {${fields}}}`;

describe('Create Account body (spec 2.3)', () => {
  it('accepts a full request using the spec field names and keeps the seed exact', () => {
    const body = accepted(`{
      "itemData": {
        "managed": true,
        "alreadyOnchain": false,
        "offchainReferences": {"type": "WALLET", "code": "TREASURY", "name": "Main treasury"},
        "privateKeyDetails": {"location": ["DATABASE"]},
        "dataLength": 0,
        "seed": {"amount": 123456789012345678.000001},
        "networkCurrencyDebitApiKeys": ["key-1"],
        "networkCurrencyDebitLimits": [{"destination": "NON_MANAGED", "maxAllowedDebit": {"limitType": "PER_TRANSACTION", "limitAmount": 2.5}}],
        "tokenDebitLimits": [{"operationType": "ANY", "destination": "ANY", "mintAuthority": "ANY",
                              "maxAllowedDebit": {"limitType": "DURATION", "limitAmount": 100, "duration": {"code": "DAYS", "unit": 1},
                                                  "approversForOverride": ["alice"], "requiredApproversCount": 1}}],
        "subscribeToNetworkEvents": true, "canPayFees": true, "globalFeePayerForOrgs": ["ACME"], "orgsAllowedToSignWithPrivateKey": ["ACME"],
        "shareAcrossTenants": false, "tokenVersion": "SPL", "comments": "hello", "isDerived": false, "isGenesis": false, "domain": "example.com",
        "skipBlockchainExistenceVerification": false,
        "preTransactionSubmitWebhooks": [{"endpointUrl": "https://example.com/pre", "timeout": 5000, "doNotSubmitTransactionOnFailure": true}]
      },
      "svmTransactionConfig": {"commitmentConfig": {"commitmentLevel": "confirmed"}},
      "tenancyConfig": {"overrideOrganizationExternalId": "ACME"}
    }`);
    expect(body.itemData.seed).toEqual({ amount: '123456789012345678.000001' });
    expect(body.itemData.networkCurrencyDebitLimits?.[0].maxAllowedDebit.limitAmount).toBe('2.5');
    expect(body.itemData.tokenDebitLimits?.[0].maxAllowedDebit).toEqual({
      limitType: 'DURATION',
      limitAmount: '100',
      duration: { code: 'DAYS', unit: 1 },
      approversForOverride: ['alice'],
      requiredApproversCount: 1,
    });
    expect(body.tenancyConfig).toEqual({ overrideOrganizationExternalId: 'ACME' });
  });

  it('accepts an empty itemData (a new managed wallet with defaults)', () => {
    expect(accepted(itemData(''))).toEqual({ itemData: {} });
  });

  it('requires itemData', () => {
    expect(refused('{"svmTransactionConfig": {}}')).toEqual([{ field: 'itemData', message: 'is required' }]);
  });

  it('refuses a misspelt seed amount, naming itemData.seed.amunt', () => {
    expect(refused(itemData('"seed": {"amunt": 1.5}'))).toEqual([{ field: 'itemData.seed.amunt', message: 'is not a known field' }]);
    expect(refused(itemData('"tokenDebitLimits": [{"destination": "ANY", "maxAllowedDebit": {"limitType": "PER_TRANSACTION", "limitAmount": -1}}]'))).toEqual([
      { field: 'itemData.tokenDebitLimits.0.maxAllowedDebit.limitAmount', message: 'must not be negative' },
    ]);
  });

  it('names itemData.offchainReferences.type for an unknown account type', () => {
    const issues = refused(itemData('"offchainReferences": {"type": "WALET"}'));
    expect(issues).toHaveLength(1);
    expect(issues[0].field).toBe('itemData.offchainReferences.type');
    expect(issues[0].message).toContain('must be one of');
    expect(issues[0].message).toContain('ASSETS_WALLET');
  });

  it('takes the spec spelling publickKey and refuses publicKey', () => {
    const key = 'So11111111111111111111111111111111111111112';
    expect(accepted(itemData(`"privateKeyDetails": {"publickKey": "${key}"}`)).itemData.privateKeyDetails).toEqual({ publickKey: key });
    expect(refused(itemData(`"privateKeyDetails": {"publicKey": "${key}"}`))).toEqual([
      { field: 'itemData.privateKeyDetails.publicKey', message: 'is not a known field' },
    ]);
  });

  it('refuses an unknown private key location by position', () => {
    expect(refused(itemData('"privateKeyDetails": {"location": ["DATABASE", "VAULT"]}'))).toEqual([
      { field: 'itemData.privateKeyDetails.location.1', message: 'must be one of DATABASE, SECRETS' },
    ]);
  });

  it('keeps dataLength between 0 and the 10 MiB account limit', () => {
    expect(accepted(itemData('"dataLength": 10485760')).itemData.dataLength).toBe(10485760);
    expect(refused(itemData('"dataLength": 10485761'))).toEqual([{ field: 'itemData.dataLength', message: 'must be between 0 and 10485760' }]);
    expect(refused(itemData('"dataLength": -1'))).toEqual([{ field: 'itemData.dataLength', message: 'must be between 0 and 10485760' }]);
    expect(refused(itemData('"dataLength": 1.5'))).toEqual([{ field: 'itemData.dataLength', message: 'must be an integer' }]);
  });

  it('names the bad debit limit destination by position', () => {
    const issues = refused(
      itemData('"networkCurrencyDebitLimits": [{"destination": "EVERYWHERE", "maxAllowedDebit": {"limitType": "PER_TRANSACTION", "limitAmount": 1}}]'),
    );
    expect(issues).toEqual([{ field: 'itemData.networkCurrencyDebitLimits.0.destination', message: 'must be one of ANY, OFF_PLATFORM, NON_MANAGED, MANAGED' }]);
  });

  it('requires limitType and limitAmount on maxAllowedDebit', () => {
    expect(refused(itemData('"networkCurrencyDebitLimits": [{"destination": "ANY", "maxAllowedDebit": {}}]'))).toEqual([
      { field: 'itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.limitType', message: 'is required' },
      { field: 'itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.limitAmount', message: 'is required' },
    ]);
  });

  it('names the bad field of a webhook inside the list', () => {
    expect(
      refused(itemData('"postTransactionSubmitWebhooks": [{"endpointUrl": "https://example.com/a"}, {"endpointUrl": "https://example.com/b", "timeout": 0}]')),
    ).toEqual([{ field: 'itemData.postTransactionSubmitWebhooks.1.timeout', message: 'must be between 1 and 30000' }]);
  });

  it('reports one issue per bad field, all at once', () => {
    const issues = refused(itemData('"managed": "yes", "seed": {"lamports": 1.5}, "tokenVersion": "TOKEN_2023", "colour": "red"'));
    expect(issues.map((i) => i.field).sort()).toEqual(['itemData.colour', 'itemData.managed', 'itemData.seed.lamports', 'itemData.tokenVersion']);
  });
});

describe('single account read body', () => {
  it('needs itemData.account', () => {
    const result = singleAccountBody.decode(parse('{"itemData": {}}'));
    expect(result._tag).toBe('Left');
    if (result._tag === 'Left') expect(reportErrors(result.left)).toEqual([{ field: 'itemData.account', message: 'is required' }]);
  });

  it('accepts an account named by offchain id', () => {
    const result = singleAccountBody.decode(parse('{"itemData": {"account": {"offchainId": "3f2504e0-4f89-11d3-9a0c-0305e82c3301"}}}'));
    expect(result).toEqual({ _tag: 'Right', right: { itemData: { account: { offchainId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' } } } });
  });
});
