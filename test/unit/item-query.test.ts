import { accountQuery } from '../../src/api/routes/query-fields';
import { translateItemQuery, type FilterValue, type ItemQuery, type QueryResource } from '../../src/domain/item-query';
import { refusal } from '../support/expectations';

/** A small resource with one field of every kind, mapped to differently named properties. */
const gadgets: QueryResource = {
  fields: {
    name: { property: 'displayName', kind: 'TEXT', dataTypes: ['TEXT'], nullable: true },
    colour: { property: 'colour', kind: 'TEXT', dataTypes: ['TEXT'], values: ['RED', 'GREEN', 'BLUE'] },
    active: { property: 'isActive', kind: 'BOOLEAN', dataTypes: ['BOOLEAN'] },
    weight: { property: 'weight', kind: 'NUMBER', dataTypes: ['NUMBER'] },
    seenAt: { property: 'lastSeenAt', kind: 'TIMESTAMP', dataTypes: ['TIMESTAMP'], nullable: true },
    ownerId: { property: 'ownerId', kind: 'UUID', dataTypes: ['OFFCHAIN_ID', 'TEXT'] },
    tags: { property: 'tagList', kind: 'TEXT', dataTypes: ['TEXT'], array: true, nullable: true },
    labels: { property: 'labels', kind: 'TEXT', dataTypes: ['TEXT'], array: true },
  },
  defaultSort: [['active', 'DESC']],
  idProperty: 'gadgetId',
};

const scope = { organizationId: 'org-1', cluster: 'LOCAL' };

/** The where clause for a single filter entry on the gadgets resource. */
function whereFor(fieldName: string, ...filterValues: FilterValue[]) {
  return translateItemQuery(gadgets, { filter: [{ fieldName, filterValues }] }, scope).where;
}

/** The one condition a single filter entry produces (the tenancy scope comes first). */
function conditionFor(fieldName: string, value: FilterValue) {
  const where = whereFor(fieldName, value) as { $and: unknown[] };
  expect(where.$and[0]).toBe(scope);
  expect(where.$and).toHaveLength(2);
  return where.$and[1];
}

describe('translateItemQuery: without a query', () => {
  it('returns the first 100 rows of the caller tenant, in the default order with the id tie-breaker in the same direction', () => {
    const { cursorAfter, ...query } = translateItemQuery(gadgets, undefined, scope);
    expect(query).toEqual({
      where: scope,
      orderBy: [{ isActive: 'desc' }, { gadgetId: 'desc' }],
      keyProperties: ['isActive', 'gadgetId'],
      limit: 100,
      offset: 0,
    });
    expect(typeof cursorAfter).toBe('function');
  });

  it('lists accounts managed first (spec 4.1 default sort), ties broken by offchain id', () => {
    const { cursorAfter: _, ...query } = translateItemQuery(accountQuery, {}, scope);
    expect(query).toEqual({ where: scope, orderBy: [{ managed: 'desc' }, { id: 'desc' }], keyProperties: ['managed', 'id'], limit: 100, offset: 0 });
  });
});

describe('translateItemQuery: paging', () => {
  it('accepts the maximum limit of 1000', () => {
    expect(translateItemQuery(gadgets, { limit: 1000 }, scope).limit).toBe(1000);
  });

  it('refuses a limit above 1000, naming itemQuery.limit', () => {
    const error = refusal(() => translateItemQuery(gadgets, { limit: 1001 }, scope));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.limit');
  });

  it('turns skip into the offset', () => {
    expect(translateItemQuery(gadgets, { limit: 20, skip: 40 }, scope)).toMatchObject({ limit: 20, offset: 40 });
  });
});

describe('translateItemQuery: filter types', () => {
  it('EQUALS on text', () => {
    expect(conditionFor('name', { filterType: 'EQUALS', valueString: 'Alice' })).toEqual({ displayName: { $eq: 'Alice' } });
  });

  it('NOT_EQUALS on a nullable text field also finds the records with no value', () => {
    expect(conditionFor('name', { filterType: 'NOT_EQUALS', valueString: 'Alice' })).toEqual({
      $or: [{ displayName: { $ne: 'Alice' } }, { displayName: null }],
    });
  });

  it('EQUALS on a boolean, including false', () => {
    expect(conditionFor('active', { filterType: 'EQUALS', dataType: 'BOOLEAN', valueBoolean: false })).toEqual({ isActive: { $eq: false } });
    expect(conditionFor('active', { filterType: 'NOT_EQUALS', valueBoolean: true })).toEqual({ isActive: { $ne: true } });
  });

  it('EQUALS on a number keeps the exact decimal text', () => {
    expect(conditionFor('weight', { filterType: 'EQUALS', valueNumber: '123456789012345678.000001' })).toEqual({
      weight: { $eq: '123456789012345678.000001' },
    });
  });

  it('EQUALS on a timestamp compares with a date', () => {
    expect(conditionFor('seenAt', { filterType: 'EQUALS', valueString: '2025-01-02T03:04:05.678Z' })).toEqual({
      lastSeenAt: { $eq: new Date('2025-01-02T03:04:05.678Z') },
    });
  });

  it('IN on text uses valuesString', () => {
    expect(conditionFor('colour', { filterType: 'IN', valuesString: ['RED', 'BLUE'] })).toEqual({ colour: { $in: ['RED', 'BLUE'] } });
  });

  it('IN refuses an empty list', () => {
    const error = refusal(() => whereFor('colour', { filterType: 'IN', valuesString: [] }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valuesString');
  });

  it('IN checks every value against the allowed values, naming the bad one', () => {
    const error = refusal(() => whereFor('colour', { filterType: 'IN', valuesString: ['RED', 'PURPLE'] }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valuesString.1');
  });

  it('IN on a number field refuses a value that is not a number', () => {
    const error = refusal(() => whereFor('weight', { filterType: 'IN', valuesString: ['1', 'heavy'] }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valuesString.1');
  });

  it('IN does not apply to a boolean', () => {
    const error = refusal(() => whereFor('active', { filterType: 'IN', valuesString: ['true'] }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.filterType');
  });

  it('RANGE on a number, both ends inclusive', () => {
    expect(conditionFor('weight', { filterType: 'RANGE', valueFromNumber: '1.5', valueToNumber: '10' })).toEqual({ weight: { $gte: '1.5', $lte: '10' } });
  });

  it('RANGE with only one end', () => {
    expect(conditionFor('weight', { filterType: 'RANGE', valueFromNumber: '5' })).toEqual({ weight: { $gte: '5' } });
    expect(conditionFor('weight', { filterType: 'RANGE', valueToNumber: '-5' })).toEqual({ weight: { $lte: '-5' } });
  });

  it('RANGE on timestamps', () => {
    expect(conditionFor('seenAt', { filterType: 'RANGE', valueFromString: '2025-01-01T00:00:00Z', valueToString: '2025-02-01T00:00:00Z' })).toEqual({
      lastSeenAt: { $gte: new Date('2025-01-01T00:00:00Z'), $lte: new Date('2025-02-01T00:00:00Z') },
    });
  });

  it('RANGE needs at least one end', () => {
    const error = refusal(() => whereFor('weight', { filterType: 'RANGE' }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0');
  });

  it('RANGE does not apply to text', () => {
    const error = refusal(() => whereFor('name', { filterType: 'RANGE', valueFromString: 'a', valueToString: 'm' }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.filterType');
  });

  it('RANGE refuses a bound that is not a number, naming it', () => {
    const error = refusal(() => whereFor('weight', { filterType: 'RANGE', valueFromNumber: '1', valueToNumber: 'lots' }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valueToNumber');
  });

  it('CONTAINS is a case-insensitive substring match with % and _ taken literally', () => {
    expect(conditionFor('name', { filterType: 'CONTAINS', valueString: '50%_off\\' })).toEqual({ displayName: { $ilike: '%50\\%\\_off\\\\%' } });
  });

  it('CONTAINS applies only to text', () => {
    expect(refusal(() => whereFor('weight', { filterType: 'CONTAINS', valueNumber: '1' })).field).toBe('itemQuery.filter.0.filterValues.0.filterType');
    expect(refusal(() => whereFor('tags', { filterType: 'CONTAINS', valueString: 'x' })).field).toBe('itemQuery.filter.0.filterValues.0.filterType');
  });

  it('IS_NULL and IS_NOT_NULL on a nullable field', () => {
    expect(conditionFor('name', { filterType: 'IS_NULL' })).toEqual({ displayName: null });
    expect(conditionFor('seenAt', { filterType: 'IS_NOT_NULL' })).toEqual({ $not: { lastSeenAt: null } });
  });

  it('IS_NULL and IS_NOT_NULL on a list field mean empty and not empty', () => {
    expect(conditionFor('tags', { filterType: 'IS_NULL' })).toEqual({ tagList: { $eq: [] } });
    expect(conditionFor('tags', { filterType: 'IS_NOT_NULL' })).toEqual({ $not: { tagList: { $eq: [] } } });
  });

  it('IS_NULL is refused on a field that is not nullable', () => {
    const error = refusal(() => whereFor('active', { filterType: 'IS_NULL' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.filterType');
    expect(refusal(() => whereFor('labels', { filterType: 'IS_NOT_NULL' })).field).toBe('itemQuery.filter.0.filterValues.0.filterType');
  });

  it('on a list field EQUALS means "contains", NOT_EQUALS "does not contain", IN "contains any"', () => {
    expect(conditionFor('tags', { filterType: 'EQUALS', valueString: 'x' })).toEqual({ tagList: { $contains: ['x'] } });
    expect(conditionFor('tags', { filterType: 'NOT_EQUALS', valueString: 'x' })).toEqual({ $not: { tagList: { $contains: ['x'] } } });
    expect(conditionFor('tags', { filterType: 'IN', valuesString: ['x', 'y'] })).toEqual({ tagList: { $overlap: ['x', 'y'] } });
  });
});

describe('translateItemQuery: operators', () => {
  const red: FilterValue = { filterType: 'EQUALS', valueString: 'RED' };
  const blue: FilterValue = { filterType: 'EQUALS', valueString: 'BLUE' };

  it('OR across the values of one entry', () => {
    const query: ItemQuery = { filter: [{ fieldName: 'colour', operator: 'OR', filterValues: [red, blue] }] };
    expect(translateItemQuery(gadgets, query, scope).where).toEqual({ $and: [scope, { $or: [{ colour: { $eq: 'RED' } }, { colour: { $eq: 'BLUE' } }] }] });
  });

  it('AND across the values of one entry, also when no operator is given', () => {
    const expected = { $and: [scope, { $and: [{ colour: { $eq: 'RED' } }, { colour: { $eq: 'BLUE' } }] }] };
    expect(translateItemQuery(gadgets, { filter: [{ fieldName: 'colour', operator: 'AND', filterValues: [red, blue] }] }, scope).where).toEqual(expected);
    expect(translateItemQuery(gadgets, { filter: [{ fieldName: 'colour', filterValues: [red, blue] }] }, scope).where).toEqual(expected);
  });

  it('separate entries combine with AND, after the tenancy scope', () => {
    const query: ItemQuery = {
      filter: [
        { fieldName: 'colour', operator: 'OR', filterValues: [red, blue] },
        { fieldName: 'active', filterValues: [{ filterType: 'EQUALS', valueBoolean: true }] },
      ],
    };
    expect(translateItemQuery(gadgets, query, scope).where).toEqual({
      $and: [scope, { $or: [{ colour: { $eq: 'RED' } }, { colour: { $eq: 'BLUE' } }] }, { isActive: { $eq: true } }],
    });
  });

  it('an entry with no values is refused', () => {
    const error = refusal(() => translateItemQuery(gadgets, { filter: [{ fieldName: 'colour', filterValues: [] }] }, scope));
    expect(error.field).toBe('itemQuery.filter.0.filterValues');
  });
});

describe('translateItemQuery: fields, types and values that do not fit', () => {
  it('refuses an unknown field, naming itemQuery.filter.0.fieldName', () => {
    const error = refusal(() =>
      translateItemQuery(accountQuery, { filter: [{ fieldName: 'balance', filterValues: [{ filterType: 'EQUALS', valueNumber: '1' }] }] }, scope),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.filter.0.fieldName');
    expect(error.message).toContain('balance');
  });

  it('names the position of the bad entry', () => {
    const query: ItemQuery = {
      filter: [
        { fieldName: 'managed', filterValues: [{ filterType: 'EQUALS', valueBoolean: true }] },
        { fieldName: 'nope', filterValues: [{ filterType: 'EQUALS', valueString: 'x' }] },
      ],
    };
    expect(refusal(() => translateItemQuery(accountQuery, query, scope)).field).toBe('itemQuery.filter.1.fieldName');
  });

  it('refuses a dataType the field does not have', () => {
    const error = refusal(() => whereFor('name', { filterType: 'EQUALS', dataType: 'NUMBER', valueString: 'x' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.dataType');
  });

  it('accepts the spec spelling OFFCHAIN_REFRENCE_TYPE for the account type', () => {
    const where = translateItemQuery(
      accountQuery,
      { filter: [{ fieldName: 'type', filterValues: [{ filterType: 'EQUALS', dataType: 'OFFCHAIN_REFRENCE_TYPE', valueString: 'WALLET' }] }] },
      scope,
    ).where;
    expect(where).toEqual({ $and: [scope, { type: { $eq: 'WALLET' } }] });
  });

  it('refuses valueString on a BOOLEAN field, asking for valueBoolean', () => {
    const error = refusal(() =>
      translateItemQuery(accountQuery, { filter: [{ fieldName: 'managed', filterValues: [{ filterType: 'EQUALS', valueString: 'true' }] }] }, scope),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valueBoolean');
  });

  it('refuses valueBoolean on a TEXT field, asking for valueString', () => {
    const error = refusal(() => whereFor('name', { filterType: 'EQUALS', valueBoolean: true }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valueString');
  });

  it('refuses a value outside an enumeration', () => {
    const error = refusal(() =>
      translateItemQuery(accountQuery, { filter: [{ fieldName: 'status', filterValues: [{ filterType: 'EQUALS', valueString: 'OPEN' }] }] }, scope),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valueString');
    expect(error.message).toContain('ACTIVE');
  });

  it('refuses an account type that does not exist', () => {
    const error = refusal(() =>
      translateItemQuery(accountQuery, { filter: [{ fieldName: 'type', filterValues: [{ filterType: 'EQUALS', valueString: 'WALET' }] }] }, scope),
    );
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valueString');
  });

  it('refuses an organization id that is not a UUID', () => {
    const error = refusal(() =>
      translateItemQuery(
        accountQuery,
        { filter: [{ fieldName: 'tenantOrganizationId', filterValues: [{ filterType: 'EQUALS', valueString: 'acme' }] }] },
        scope,
      ),
    );
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valueString');
  });

  it('refuses a timestamp that is not a date', () => {
    const error = refusal(() => whereFor('seenAt', { filterType: 'EQUALS', valueString: 'yesterday' }));
    expect(error.field).toBe('itemQuery.filter.0.filterValues.0.valueString');
  });
});

describe('translateItemQuery: account fields (spec 4.1)', () => {
  const accountWhere = (fieldName: string, value: FilterValue) =>
    translateItemQuery(accountQuery, { filter: [{ fieldName, filterValues: [value] }] }, scope).where;

  it('maps the spec names to the stored properties', () => {
    expect(accountWhere('externalOrganizationId', { filterType: 'EQUALS', valueString: 'ACME' })).toEqual({
      $and: [scope, { referenceOrganizationExternalId: { $eq: 'ACME' } }],
    });
    expect(accountWhere('wasAlreadyOnchain', { filterType: 'EQUALS', valueBoolean: true })).toEqual({ $and: [scope, { wasOnchainAlready: { $eq: true } }] });
    expect(accountWhere('sharedAccrossTenants', { filterType: 'EQUALS', valueBoolean: false })).toEqual({
      $and: [scope, { sharedAcrossTenants: { $eq: false } }],
    });
  });

  it('finds accounts with no debit API keys (a nullable list)', () => {
    expect(accountWhere('solDebitApiKeys', { filterType: 'IS_NULL' })).toEqual({ $and: [scope, { solDebitApiKeys: { $eq: [] } }] });
  });

  it('refuses IS_NULL on privateKeyLocation, which the spec does not mark nullable', () => {
    expect(refusal(() => accountWhere('privateKeyLocation', { filterType: 'IS_NULL' })).field).toBe('itemQuery.filter.0.filterValues.0.filterType');
  });

  it('refuses IS_NULL on the non-nullable lamportsBalance', () => {
    expect(refusal(() => accountWhere('lamportsBalance', { filterType: 'IS_NULL' })).field).toBe('itemQuery.filter.0.filterValues.0.filterType');
  });

  // Bug: CONTAINS on an enumerated TEXT field (type, status) checks the search text against the
  // enumeration (src/domain/item-query.ts:140 -> scalar -> checkText, line 100), so a substring
  // such as "TOKEN" is refused with 400 "must be one of ...". CONTAINS is documented for TEXT
  // fields (docs/behaviour/conventions.md) and `type` is a TEXT field; only whole values can be searched for.
  it('finds every account whose type contains "TOKEN"', () => {
    expect(accountWhere('type', { filterType: 'CONTAINS', valueString: 'TOKEN' })).toEqual({ $and: [scope, { type: { $ilike: '%TOKEN%' } }] });
  });
});

describe('translateItemQuery: sorting', () => {
  it('sorts as asked, ASC by default, the id last as tie-breaker, without the default sort', () => {
    const query: ItemQuery = { sort: [{ fieldName: 'lamportsBalance', sortDirection: 'DESC' }, { fieldName: 'code' }] };
    expect(translateItemQuery(accountQuery, query, scope).orderBy).toEqual([{ lamportsBalance: 'desc' }, { code: 'asc' }, { id: 'asc' }]);
  });

  it('sorts by the stored property of a renamed field', () => {
    expect(translateItemQuery(accountQuery, { sort: [{ fieldName: 'offchainReferenceName', sortDirection: 'ASC' }] }, scope).orderBy).toEqual([
      { name: 'asc' },
      { id: 'asc' },
    ]);
  });

  it('an empty sort list falls back to the default sort', () => {
    expect(translateItemQuery(accountQuery, { sort: [] }, scope).orderBy).toEqual([{ managed: 'desc' }, { id: 'desc' }]);
  });

  it('sorts a list field by its first element (API.md section 10)', () => {
    expect(translateItemQuery(accountQuery, { sort: [{ fieldName: 'code' }, { fieldName: 'solDebitApiKeys', sortDirection: 'DESC' }] }, scope).orderBy).toEqual(
      [{ code: 'asc' }, { 'solDebitApiKeys[1]': 'desc' }, { id: 'desc' }],
    );
  });

  it('refuses to sort by an unknown field', () => {
    const error = refusal(() => translateItemQuery(accountQuery, { sort: [{ fieldName: 'createdAt' }] }, scope));
    expect(error.field).toBe('itemQuery.sort.0.fieldName');
  });
});

describe('translateItemQuery: fields inside a JSON column', () => {
  const resource: QueryResource = {
    fields: { mintAuthorityOnchainId: { property: 'authorities.mintAuthority.address', kind: 'TEXT', dataTypes: ['ONCHAIN_ADDRESS_ID'], nullable: true } },
    defaultSort: [['mintAuthorityOnchainId', 'ASC']],
    idProperty: 'id',
  };

  it('nests a dotted property as a JSON path, in filters and in sorts', () => {
    const query = translateItemQuery(
      resource,
      { filter: [{ fieldName: 'mintAuthorityOnchainId', filterValues: [{ filterType: 'IS_NULL' }] }] },
      { organizationId: 'o' },
    );
    expect(query.where).toEqual({ $and: [{ organizationId: 'o' }, { authorities: { mintAuthority: { address: null } } }] });
    expect(query.orderBy).toEqual([{ authorities: { mintAuthority: { address: 'asc' } } }, { id: 'asc' }]);
  });
});
