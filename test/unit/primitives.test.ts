import * as t from 'io-ts';
import { address, amountText, arrayOf, decimalText, integer, integerText, jsonValue, oneOf, strictObject, uuid } from '../../src/domain/inputs/primitives';
import { accepted, refused } from '../support/expectations';

/** Wraps a codec as `{"v": ...}` so single JSON values go through the same parser as a body. */
const field = <C extends t.Mixed>(codec: C) => strictObject('Wrapper', { v: codec }, {});

describe('decimalText: amounts keep their exact decimal text', () => {
  const amount = field(decimalText);

  it('keeps 123456789012345678.000001 exactly as sent', () => {
    expect(accepted(amount, '{"v": 123456789012345678.000001}')).toEqual({ v: '123456789012345678.000001' });
  });

  it('keeps an exponent form and trailing zeros as written', () => {
    expect(accepted(amount, '{"v": 1e-9}')).toEqual({ v: '1e-9' });
    expect(accepted(amount, '{"v": 2.50}')).toEqual({ v: '2.50' });
  });

  it('accepts a decimal sent as a string', () => {
    expect(accepted(amount, '{"v": "0.1"}')).toEqual({ v: '0.1' });
  });

  it.each(['"ten"', 'true', '{}', '[1]', '"1,5"'])('refuses %s', (json) => {
    expect(refused(amount, `{"v": ${json}}`)).toEqual([{ field: 'v', message: 'must be a decimal number' }]);
  });
});

describe('amountText: what a value moves is never negative', () => {
  const amount = field(amountText);

  it('keeps non-negative decimals exactly, zero and -0 included', () => {
    expect(accepted(amount, '{"v": 123456789012345678.000001}')).toEqual({ v: '123456789012345678.000001' });
    expect(accepted(amount, '{"v": "0.5"}')).toEqual({ v: '0.5' });
    expect(accepted(amount, '{"v": -0.0}')).toEqual({ v: '-0.0' });
  });

  it.each(['-1', '"-0.5"', '-1e-9'])('refuses %s as negative', (json) => {
    expect(refused(amount, `{"v": ${json}}`)).toEqual([{ field: 'v', message: 'must not be negative' }]);
  });

  it('refuses what is not a decimal as decimalText does', () => {
    expect(refused(amount, '{"v": "ten"}')).toEqual([{ field: 'v', message: 'must be a decimal number' }]);
  });
});

describe('integerText: lamports as exact integers', () => {
  const lamports = field(integerText);

  it('accepts an integer larger than a double can hold, digit for digit', () => {
    expect(accepted(lamports, '{"v": 123456789012345678901234567890}')).toEqual({ v: '123456789012345678901234567890' });
  });

  it('accepts 0', () => {
    expect(accepted(lamports, '{"v": 0}')).toEqual({ v: '0' });
  });

  it.each(['1.5', '-1', '"abc"', 'true'])('refuses %s', (json) => {
    expect(refused(lamports, `{"v": ${json}}`)).toEqual([{ field: 'v', message: 'must be a non-negative integer' }]);
  });
});

describe('integer(min, max): bounded counts such as itemQuery.limit', () => {
  const limit = field(integer(0, 1000));

  it('accepts both bounds', () => {
    expect(accepted(limit, '{"v": 0}')).toEqual({ v: 0 });
    expect(accepted(limit, '{"v": 1000}')).toEqual({ v: 1000 });
  });

  it('refuses 1001 and -1, saying the bounds', () => {
    expect(refused(limit, '{"v": 1001}')).toEqual([{ field: 'v', message: 'must be between 0 and 1000' }]);
    expect(refused(limit, '{"v": -1}')).toEqual([{ field: 'v', message: 'must be between 0 and 1000' }]);
  });

  it('refuses a fraction, a quoted number and an integer beyond double precision', () => {
    expect(refused(limit, '{"v": 2.5}')).toEqual([{ field: 'v', message: 'must be an integer' }]);
    expect(refused(limit, '{"v": "10"}')).toEqual([{ field: 'v', message: 'must be an integer' }]);
    expect(refused(field(integer()), '{"v": 9007199254740993}')).toEqual([{ field: 'v', message: 'must be an integer' }]);
  });
});

describe('strictObject: misspelt and missing fields are named', () => {
  const seed = strictObject('Seed', { amount: decimalText }, { memo: t.string });
  const item = strictObject('Item', { seed }, { note: t.string });
  const body = strictObject('Body', { itemData: item }, {});

  it('decodes known fields and leaves out absent optional ones', () => {
    expect(accepted(body, '{"itemData": {"seed": {"amount": 1.10}}}')).toEqual({ itemData: { seed: { amount: '1.10' } } });
  });

  it('treats an optional field sent as null as absent', () => {
    expect(accepted(body, '{"itemData": {"seed": {"amount": 1, "memo": null}}}')).toEqual({ itemData: { seed: { amount: '1' } } });
  });

  it('refuses an unknown field with its full path', () => {
    expect(refused(body, '{"itemData": {"seed": {"amount": 1, "amunt": 1}}}')).toEqual([{ field: 'itemData.seed.amunt', message: 'is not a known field' }]);
  });

  it('reports a missing required field as required', () => {
    expect(refused(body, '{"itemData": {"seed": {}}}')).toEqual([{ field: 'itemData.seed.amount', message: 'is required' }]);
    expect(refused(body, '{}')).toEqual([{ field: 'itemData', message: 'is required' }]);
  });

  it('reports every bad field of one request at once', () => {
    const issues = refused(body, '{"itemData": {"seed": {"amount": "x"}, "note": 5, "extra": true}}');
    expect(issues).toHaveLength(3);
    expect(issues).toEqual(
      expect.arrayContaining([
        { field: 'itemData.extra', message: 'is not a known field' },
        { field: 'itemData.seed.amount', message: 'must be a decimal number' },
        expect.objectContaining({ field: 'itemData.note' }),
      ]),
    );
  });

  it.each(['[]', '1', '"x"', 'null'])('refuses %s where an object is expected', (json) => {
    expect(refused(body, `{"itemData": ${json}}`)).toEqual([{ field: 'itemData', message: expect.any(String) }]);
  });

  it('refuses a body that is not an object, naming the body', () => {
    expect(refused(body, '[1, 2]')).toEqual([{ field: '(body)', message: 'must be an object' }]);
  });
});

describe('reportErrors: one issue per field', () => {
  it('keeps only the first message when one field fails several ways', () => {
    const picky = new t.Type<string, string, unknown>(
      'Picky',
      t.string.is,
      (u, c) =>
        t.failures([
          { value: u, context: c, message: 'is too short' },
          { value: u, context: c, message: 'has no digits' },
        ]),
      t.identity,
    );
    expect(refused(strictObject('Body', { a: picky, b: picky }, {}), '{"a": "x", "b": "y"}')).toEqual([
      { field: 'a', message: 'is too short' },
      { field: 'b', message: 'is too short' },
    ]);
  });

  it('names each bad item of a list by its index', () => {
    expect(refused(field(arrayOf(oneOf(['A', 'B'] as const), 5)), '{"v": ["A", "C", "B", "D"]}')).toEqual([
      { field: 'v.1', message: 'must be one of A, B' },
      { field: 'v.3', message: 'must be one of A, B' },
    ]);
  });
});

describe('other building blocks', () => {
  it('arrayOf refuses more items than allowed', () => {
    expect(refused(field(arrayOf(t.string, 2)), '{"v": ["a", "b", "c"]}')).toEqual([{ field: 'v', message: 'must have at most 2 items' }]);
  });

  it('uuid accepts any case and answers lower case; refuses other text', () => {
    expect(accepted(field(uuid), '{"v": "3F2504E0-4F89-11D3-9A0C-0305E82C3301"}')).toEqual({ v: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
    expect(refused(field(uuid), '{"v": "3f2504e0"}')).toEqual([{ field: 'v', message: 'must be a UUID' }]);
  });

  it('address accepts a base58 network address and refuses others', () => {
    expect(accepted(field(address), '{"v": "So11111111111111111111111111111111111111112"}')).toEqual({ v: 'So11111111111111111111111111111111111111112' });
    // 0, O, I and l are not base58.
    expect(refused(field(address), '{"v": "0o11111111111111111111111111111111111111112"}')).toEqual([
      { field: 'v', message: 'must be a base58 network address' },
    ]);
  });

  it('jsonValue keeps a number a double cannot hold as its exact text, ordinary numbers as numbers', () => {
    expect(accepted(field(jsonValue), '{"v": {"big": 12345678901234567890, "small": 0.1, "n": 7}}')).toEqual({
      v: { big: '12345678901234567890', small: 0.1, n: 7 },
    });
  });
});
