/** Financial instrument payloads (spec 2.4, 4.2). */
import * as t from 'io-ts';
import { mintExtensions } from '../../domain/token-extensions';
import { arrayOf, describe, nonEmptyString, oneOf, strictObject } from './primitives';

const stringMap = describe(
  new t.Type<Record<string, string>, Record<string, string>, unknown>(
    'StringMap',
    (u): u is Record<string, string> => typeof u === 'object' && u !== null,
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'must be an object of text values');
      const entries = Object.entries(u as Record<string, unknown>);
      if (entries.length > 100) return t.failure(u, c, 'must have at most 100 fields');
      for (const [key, value] of entries) if (typeof value !== 'string') return t.failure(value, [...c, { key, type: t.string, actual: value }], 'must be text');
      return t.success(u as Record<string, string>);
    },
    (a) => a,
  ),
  { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 100 },
);

export const tokenMetadata = strictObject('TokenMetadataInput', {}, {
  name: nonEmptyString(32),
  symbol: nonEmptyString(10),
  uri: nonEmptyString(200),
  simpleCustomMetadata: stringMap,
});

/** Token Extensions Calculator (spec 4.2). No x-request-id, no svmTransactionConfig: it builds nothing. */
export const tokenExtensionsCalculatorBody = strictObject('TokenExtensionsCalculatorRequest', { extensions: arrayOf(oneOf(mintExtensions, 'MintExtension'), 20) }, { metadata: tokenMetadata });
