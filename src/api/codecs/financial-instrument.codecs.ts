/** Financial instrument request bodies of the reads and the calculator (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { mintExtensions } from '../../domain/token-extensions';
import { stringMap } from '../../domain/operations/financial-instruments/financial-instrument.inputs';
import { accountLookup } from '../../domain/inputs/common.inputs';
import { arrayOf, nonEmptyString, oneOf, strictObject } from '../../domain/inputs/primitives';
import { itemDataBody } from './common.codecs';

export const tokenMetadata = strictObject(
  'TokenMetadataInput',
  {},
  {
    name: nonEmptyString(32),
    symbol: nonEmptyString(10),
    uri: nonEmptyString(200),
    simpleCustomMetadata: stringMap,
  },
);

/** Token Extensions Calculator (spec 4.2). No x-request-id, no svmTransactionConfig: it builds nothing. */
export const tokenExtensionsCalculatorBody = strictObject(
  'TokenExtensionsCalculatorRequest',
  { extensions: arrayOf(oneOf(mintExtensions, 'MintExtension'), 20) },
  { metadata: tokenMetadata },
);

export const singleFinancialInstrumentBody = itemDataBody(
  'SingleFinancialInstrumentRequest',
  strictObject('SingleFinancialInstrumentItemData', { financialInstrument: accountLookup }, {}),
);
