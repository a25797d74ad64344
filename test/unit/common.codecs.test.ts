import { accountLookup, svmTransactionConfig, valueInput, webhookConfig } from '../../src/domain/inputs/common.inputs';
import { bulkBody, itemQuery } from '../../src/api/codecs/common.codecs';
import { accepted, refused } from '../support/expectations';

describe('value input (spec 2.1)', () => {
  it('keeps the amount and lamports exactly as sent', () => {
    expect(accepted(valueInput, '{"amount": 123456789012345678.000001, "lamports": 98765432109876543210}')).toEqual({
      amount: '123456789012345678.000001',
      lamports: '98765432109876543210',
    });
  });

  it('refuses a misspelt amount', () => {
    expect(refused(valueInput, '{"amunt": 1}')).toEqual([{ field: 'amunt', message: 'is not a known field' }]);
  });

  it('refuses fractional or negative lamports', () => {
    expect(refused(valueInput, '{"lamports": 1.5}')).toEqual([{ field: 'lamports', message: 'must be a non-negative integer' }]);
    expect(refused(valueInput, '{"lamports": -1}')).toEqual([{ field: 'lamports', message: 'must be a non-negative integer' }]);
  });
});

describe('account lookup (spec 2.1)', () => {
  it('accepts every lookup field the spec names', () => {
    const json = `{
      "onchainId": "So11111111111111111111111111111111111111112",
      "offchainId": "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
      "offchainReferences": {"alId": "AL-1", "organizationExternalId": "ACME", "accountNumber": "42", "code": "C1", "type": "ASSETS_WALLET", "name": "Treasury",
                             "newAlId": {"financialInstrumentType": "STABLECOIN"}},
      "autoSign": true,
      "otherTenantOrganizationExternalId": "OTHER",
      "offPlatform": false
    }`;
    expect(accepted(accountLookup, json)).toEqual({
      onchainId: 'So11111111111111111111111111111111111111112',
      offchainId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      offchainReferences: {
        alId: 'AL-1',
        organizationExternalId: 'ACME',
        accountNumber: '42',
        code: 'C1',
        type: 'ASSETS_WALLET',
        name: 'Treasury',
        newAlId: { financialInstrumentType: 'STABLECOIN' },
      },
      autoSign: true,
      otherTenantOrganizationExternalId: 'OTHER',
      offPlatform: false,
    });
  });

  it('names the nested field of a bad account type', () => {
    const issues = refused(accountLookup, '{"offchainReferences": {"type": "WALET"}}');
    expect(issues).toHaveLength(1);
    expect(issues[0].field).toBe('offchainReferences.type');
    expect(issues[0].message).toMatch(/^must be one of WALLET, /);
  });

  it('refuses an offchainId that is not a UUID and an onchainId that is not an address', () => {
    expect(refused(accountLookup, '{"offchainId": "abc", "onchainId": "not an address"}')).toEqual([
      { field: 'onchainId', message: 'must be a base58 network address' },
      { field: 'offchainId', message: 'must be a UUID' },
    ]);
  });

  it('refuses an unknown financial instrument type for a new AL ID', () => {
    expect(refused(accountLookup, '{"offchainReferences": {"newAlId": {"financialInstrumentType": "BEANIE_BABY"}}}')[0].field).toBe(
      'offchainReferences.newAlId.financialInstrumentType',
    );
  });
});

describe('itemQuery (spec 2.1, docs/behaviour/conventions.md)', () => {
  it('decodes a full query, keeping number filter values exact', () => {
    const json = `{
      "limit": 50, "skip": 100,
      "filter": [{"fieldName": "lamportsBalance", "operator": "OR", "filterValues": [
        {"dataType": "NUMBER", "filterType": "RANGE", "valueFromNumber": 0.000000001, "valueToNumber": 123456789012345678.000001},
        {"filterType": "IN", "valuesString": ["1", "2"]}
      ]}],
      "sort": [{"fieldName": "managed", "sortDirection": "DESC"}]
    }`;
    expect(accepted(itemQuery, json)).toEqual({
      limit: 50,
      skip: 100,
      filter: [
        {
          fieldName: 'lamportsBalance',
          operator: 'OR',
          filterValues: [
            { dataType: 'NUMBER', filterType: 'RANGE', valueFromNumber: '0.000000001', valueToNumber: '123456789012345678.000001' },
            { filterType: 'IN', valuesString: ['1', '2'] },
          ],
        },
      ],
      sort: [{ fieldName: 'managed', sortDirection: 'DESC' }],
    });
  });

  it('accepts a limit of 1000 and refuses 1001 at itemQuery.limit', () => {
    expect(accepted(bulkBody, '{"itemQuery": {"limit": 1000}}')).toEqual({ itemQuery: { limit: 1000 } });
    expect(refused(bulkBody, '{"itemQuery": {"limit": 1001}}')).toEqual([{ field: 'itemQuery.limit', message: 'must be between 0 and 1000' }]);
  });

  it('refuses a negative skip and a fractional limit', () => {
    expect(refused(bulkBody, '{"itemQuery": {"skip": -1, "limit": 10.5}}')).toEqual([
      { field: 'itemQuery.limit', message: 'must be an integer' },
      { field: 'itemQuery.skip', message: expect.stringContaining('must be between 0') },
    ]);
  });

  it('names a bad filter type, operator and sort direction by position', () => {
    const issues = refused(
      bulkBody,
      '{"itemQuery": {"filter": [{"fieldName": "code", "operator": "XOR", "filterValues": [{"filterType": "LIKE"}]}], "sort": [{"fieldName": "code", "sortDirection": "UP"}]}}',
    );
    expect(issues.map((i) => i.field).sort()).toEqual([
      'itemQuery.filter.0.filterValues.0.filterType',
      'itemQuery.filter.0.operator',
      'itemQuery.sort.0.sortDirection',
    ]);
  });

  it('requires fieldName and filterValues on a filter entry', () => {
    expect(refused(bulkBody, '{"itemQuery": {"filter": [{}]}}')).toEqual([
      { field: 'itemQuery.filter.0.fieldName', message: 'is required' },
      { field: 'itemQuery.filter.0.filterValues', message: 'is required' },
    ]);
  });

  it('refuses a misspelt filter value field', () => {
    expect(refused(bulkBody, '{"itemQuery": {"filter": [{"fieldName": "code", "filterValues": [{"filterType": "EQUALS", "valueStrng": "x"}]}]}}')).toEqual([
      { field: 'itemQuery.filter.0.filterValues.0.valueStrng', message: 'is not a known field' },
    ]);
  });

  it('refuses a data type the spec does not name', () => {
    expect(
      refused(bulkBody, '{"itemQuery": {"filter": [{"fieldName": "code", "filterValues": [{"filterType": "EQUALS", "dataType": "STRING"}]}]}}')[0].field,
    ).toBe('itemQuery.filter.0.filterValues.0.dataType');
  });
});

describe('svmTransactionConfig (spec 2.1)', () => {
  it('accepts the values the spec shows', () => {
    const json = `{"computeUnitConfig": {"enable": true, "limit": 200000, "price": 1000,
                     "priceEstimate": {"provider": "CLUSTER_RPC", "calculationStrategy": "DEFAULT", "priorityLevel": "RECOMMENDED"}},
                   "commitmentConfig": {"commitmentLevel": "processed"}, "messageLifetimeStrategy": "RECENT_BLOCKHASH", "transactionVersion": "V0"}`;
    expect(accepted(svmTransactionConfig, json)).toMatchObject({
      computeUnitConfig: { limit: 200000, price: 1000 },
      commitmentConfig: { commitmentLevel: 'processed' },
    });
  });

  it('refuses a price estimate provider, strategy or level outside the enumerations, naming the field', () => {
    expect(refused(svmTransactionConfig, '{"computeUnitConfig": {"priceEstimate": {"provider": "HELIUS"}}}')).toEqual([
      { field: 'computeUnitConfig.priceEstimate.provider', message: 'must be one of CLUSTER_RPC' },
    ]);
    expect(refused(svmTransactionConfig, '{"computeUnitConfig": {"priceEstimate": {"calculationStrategy": "AVERAGE"}}}')).toEqual([
      { field: 'computeUnitConfig.priceEstimate.calculationStrategy', message: 'must be one of DEFAULT, EXCLUDE_ZEROES' },
    ]);
    expect(refused(svmTransactionConfig, '{"computeUnitConfig": {"priceEstimate": {"priorityLevel": "URGENT"}}}')[0].field).toBe(
      'computeUnitConfig.priceEstimate.priorityLevel',
    );
    expect(refused(svmTransactionConfig, '{"commitmentConfig": {"commitmentLevel": "final"}}')[0].field).toBe('commitmentConfig.commitmentLevel');
  });

  it('refuses a compute unit limit above the network maximum', () => {
    expect(refused(svmTransactionConfig, '{"computeUnitConfig": {"limit": 1400001}}')).toEqual([
      { field: 'computeUnitConfig.limit', message: 'must be between 1 and 1400000' },
    ]);
  });

  it('refuses an unknown lifetime strategy', () => {
    expect(refused(svmTransactionConfig, '{"messageLifetimeStrategy": "FOREVER"}')[0].field).toBe('messageLifetimeStrategy');
  });
});

describe('webhook configuration (spec 6, docs/webhooks.md)', () => {
  it('needs an endpointUrl', () => {
    expect(refused(webhookConfig, '{"name": "hook"}')).toEqual([{ field: 'endpointUrl', message: 'is required' }]);
  });

  it('allows a timeout of at most 30000 ms', () => {
    expect(accepted(webhookConfig, '{"endpointUrl": "https://example.com/h", "timeout": 30000}')).toEqual({
      endpointUrl: 'https://example.com/h',
      timeout: 30000,
    });
    expect(refused(webhookConfig, '{"endpointUrl": "https://example.com/h", "timeout": 30001}')).toEqual([
      { field: 'timeout', message: 'must be between 1 and 30000' },
    ]);
  });

  it('needs both header name and key value for API-key auth', () => {
    expect(refused(webhookConfig, '{"endpointUrl": "https://example.com/h", "apiKeyAuthConfig": {"httpHeaderName": "x-key"}}')).toEqual([
      { field: 'apiKeyAuthConfig.keyValue', message: 'is required' },
    ]);
  });
});
