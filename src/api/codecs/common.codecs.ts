/** HTTP envelope shapes of spec 2.1: tenancyConfig, itemQuery, the bulk read body. */
import * as t from 'io-ts';
import { arrayOf, decimalText, describe, integer, nonEmptyString, oneOf, strictObject } from '../../domain/inputs/primitives';

export const tenancyConfig = strictObject(
  'TenancyConfig',
  {},
  {
    overrideOrganizationExternalId: describe(nonEmptyString(200), {
      description:
        "Act inside this organization (its external id) instead of the API key's own: for the platform's operators only. Allowed only to an API key of the operator organization (OPERATOR_ORGANIZATION) holding the ADMIN role, which must also hold the operation's own role explicitly (ADMIN does not stand in for it when acting for another organization, nor for a role the operation checks itself, e.g. UPDATE_DEBIT_API_KEYS). Any other key naming another organization is 403 FORBIDDEN naming this field, whether or not that organization exists; an operator naming one that does not exist is 404. Naming the key's own organization changes nothing. See docs/tenancy.md.",
    }),
  },
);

/** Spec 2.1's envelope of a request about one item: its itemData, and the tenant to act for. */
export const itemDataBody = <I extends t.Mixed>(name: string, itemData: I) => strictObject(name, { itemData }, { tenancyConfig });

const filterTypes = ['EQUALS', 'NOT_EQUALS', 'IN', 'RANGE', 'CONTAINS', 'IS_NULL', 'IS_NOT_NULL'] as const;
export const dataTypes = [
  'TEXT',
  'BOOLEAN',
  'NUMBER',
  'TIMESTAMP',
  'OFFCHAIN_REFRENCE_TYPE',
  'ONCHAIN_ADDRESS_ID',
  'OFFCHAIN_ID',
  'ADDRESS_ONCHAIN_ID',
] as const;

export const filterValue = strictObject(
  'FilterValue',
  { filterType: oneOf(filterTypes, 'FilterType') },
  {
    dataType: oneOf(dataTypes, 'DataType'),
    valueString: t.string,
    valueNumber: decimalText,
    valueBoolean: t.boolean,
    valuesString: arrayOf(t.string, 1000),
    valueFromString: t.string,
    valueToString: t.string,
    valueFromNumber: decimalText,
    valueToNumber: decimalText,
  },
);
export type FilterValueInput = t.TypeOf<typeof filterValue>;

export const itemQuery = strictObject(
  'ItemQuery',
  {},
  {
    limit: integer(0, 1000),
    skip: describe(integer(0, Number.MAX_SAFE_INTEGER), {
      description:
        'Rows to pass over before the page (offset paging, default 0). Pages read with skip shift when records are written before them, and a deep skip costs the database every row it passes over: walk long lists with cursor instead. Not with cursor (400).',
    }),
    filter: arrayOf(
      strictObject(
        'FilterEntry',
        { fieldName: nonEmptyString(100), filterValues: arrayOf(filterValue, 1000) },
        { operator: oneOf(['AND', 'OR'] as const, 'FilterOperator') },
      ),
      100,
    ),
    sort: arrayOf(strictObject('SortEntry', { fieldName: nonEmptyString(100) }, { sortDirection: oneOf(['ASC', 'DESC'] as const, 'SortDirection') }), 20),
    cursor: describe(nonEmptyString(4000), {
      description:
        "Keyset paging: the cursor of the previous answer, with the same filter and sort (another query's cursor is 400). The page holds the records strictly after the previous page's last one in the same order, so records written meanwhile never shift or repeat a page. Opaque: pass it back as given. Not with a skip above 0 (400).",
    }),
  },
);
export type ItemQueryInput = t.TypeOf<typeof itemQuery>;

export const bulkBody = strictObject('BulkRequest', {}, { itemQuery, tenancyConfig });
