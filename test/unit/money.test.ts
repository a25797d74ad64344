import { checkValueAlone, fromBaseUnits, resolveValue, scaleAmount, toBaseUnits } from '../../src/domain/money';
import { refusal } from '../support/expectations';

describe('toBaseUnits: an amount typed by a customer becomes exact base units', () => {
  it.each([
    ['1.5', 9, 1_500_000_000n],
    ['1', 9, 1_000_000_000n],
    ['0', 9, 0n],
    ['0.000000001', 9, 1n],
    ['42', 0, 42n],
    ['2.50', 1, 25n],
    ['1.0000000', 2, 100n],
  ])('reads %s with %i decimals as %s base units', (text, decimals, expected) => {
    expect(toBaseUnits(text, decimals, 'itemData.value.amount')).toBe(expected);
  });

  it('keeps every digit of a huge amount with 6 decimals (never rounded through a float)', () => {
    expect(toBaseUnits('123456789012345678.000001', 6, 'itemData.value.amount')).toBe(123456789012345678000001n);
  });

  it.each([
    ['1e-9', 9, 1n],
    ['1.5E3', 0, 1500n],
    ['2.5e+2', 0, 250n],
    ['15e-1', 1, 15n],
    ['0.001E3', 0, 1n],
  ])('understands exponent form %s (%i decimals) as %s', (text, decimals, expected) => {
    expect(toBaseUnits(text, decimals, 'itemData.value.amount')).toBe(expected);
  });

  it('refuses more decimal places than the token has, naming the field', () => {
    const error = refusal(() => toBaseUnits('0.0000001', 6, 'itemData.value.amount'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.amount');
    expect(error.status).toBe(400);
    expect(error.message).toContain('7 decimal places');
    expect(error.message).toContain('at most 6');
  });

  it('refuses an exponent form that ends up below the smallest unit', () => {
    const error = refusal(() => toBaseUnits('1e-10', 9, 'itemData.seed.amount'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.seed.amount');
  });

  it('refuses a negative amount', () => {
    const error = refusal(() => toBaseUnits('-1', 9, 'itemData.value.amount'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.amount');
    expect(error.message).toContain('negative');
  });

  it.each(['abc', '', '.', '1.2.3', '0x10', '1,5', '1_000', 'NaN', 'Infinity', '1e', '--1'])('refuses garbage %j, naming the field', (text) => {
    const error = refusal(() => toBaseUnits(text, 9, 'itemData.value.amount'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.amount');
  });

  it('refuses an absurd exponent instead of building an enormous number', () => {
    const error = refusal(() => toBaseUnits('1e100000', 0, 'itemData.value.amount'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.amount');
  });
});

describe('fromBaseUnits: base units shown back to the customer as exact decimal text', () => {
  it.each([
    [1_500_000_000n, 9, '1.5'],
    [1_000_000_000n, 9, '1'],
    [1n, 9, '0.000000001'],
    [0n, 9, '0'],
    [0n, 0, '0'],
    [100n, 0, '100'],
    [120n, 2, '1.2'],
    [123456789012345678000001n, 6, '123456789012345678.000001'],
  ])('writes %s base units with %i decimals as %s', (units, decimals, expected) => {
    expect(fromBaseUnits(units, decimals)).toBe(expected);
  });

  it('gives back the canonical text of what toBaseUnits read', () => {
    for (const text of ['0.1', '7', '98765432109876543210.123456789', '0.000000001']) {
      expect(fromBaseUnits(toBaseUnits(text, 9, 'f'), 9)).toBe(text);
    }
  });
});

describe('resolveValue: the value input (amount or lamports)', () => {
  const field = 'itemData.value';

  it('takes an amount alone, in UI units', () => {
    expect(resolveValue({ amount: '1.5' }, 9, field)).toBe(1_500_000_000n);
  });

  it('takes lamports alone, as base units', () => {
    expect(resolveValue({ lamports: '42' }, 9, field)).toBe(42n);
  });

  it("takes lamports larger than any double can hold exactly, up to the network's u64 maximum", () => {
    expect(resolveValue({ lamports: '18446744073709551615' }, 9, field)).toBe(18446744073709551615n);
    expect(() => resolveValue({ lamports: '18446744073709551616' }, 9, field)).toThrow(/larger than the network can hold/);
  });

  it('accepts both when they agree', () => {
    expect(resolveValue({ amount: '0.000000042', lamports: '42' }, 9, field)).toBe(42n);
    expect(resolveValue({ amount: '2', lamports: '2000000' }, 6, field)).toBe(2_000_000n);
  });

  it('refuses both when they disagree, pointing at lamports', () => {
    const error = refusal(() => resolveValue({ amount: '1', lamports: '999999999' }, 9, field));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.lamports');
    expect(error.message).toContain('disagree');
  });

  it('refuses a value with neither amount nor lamports, naming the value', () => {
    const error = refusal(() => resolveValue({}, 9, field));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value');
  });

  it.each(['1.5', '-3', 'ten', ''])('refuses lamports %j that are not a non-negative integer', (lamports) => {
    const error = refusal(() => resolveValue({ lamports }, 9, field));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.lamports');
  });

  it('names the amount when the amount has too many decimals', () => {
    const error = refusal(() => resolveValue({ amount: '0.1234567', lamports: '123456' }, 6, field));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.amount');
  });
});

describe('checkValueAlone: the rules on a value whatever the asset’s decimals (before its lookup)', () => {
  const field = 'itemData.value';

  it.each([
    [{ amount: '1', lamports: '1' }, 'at 0 decimals'],
    [{ amount: '1', lamports: '1000000000' }, 'at 9 decimals'],
    [{ amount: '0.05', lamports: '500' }, 'at 4 decimals'],
    [{ amount: '0', lamports: '0' }, 'at any decimals'],
  ])('accepts an amount and lamports that agree at some decimals: %j (%s)', (value) => {
    expect(() => checkValueAlone(value, field)).not.toThrow();
  });

  it.each([
    { amount: '1', lamports: '3' },
    { amount: '1', lamports: '2' },
    { amount: '0.05', lamports: '50000005' },
    { amount: '2.5', lamports: '2' },
    { amount: '1', lamports: '0' },
    { amount: '0', lamports: '7' },
  ])('refuses an amount and lamports no decimals make agree, naming the lamports: %j', (value) => {
    const error = refusal(() => checkValueAlone(value, field));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.lamports');
    expect(error.message).toContain('disagree');
  });

  it('refuses neither, malformed lamports and values beyond u64 at every decimals, naming the field', () => {
    expect(refusal(() => checkValueAlone({}, field)).field).toBe('itemData.value');
    expect(refusal(() => checkValueAlone({ lamports: '-1' }, field)).field).toBe('itemData.value.lamports');
    expect(refusal(() => checkValueAlone({ lamports: '18446744073709551616' }, field)).field).toBe('itemData.value.lamports');
    expect(refusal(() => checkValueAlone({ amount: '18446744073709551616' }, field)).field).toBe('itemData.value.amount');
    expect(refusal(() => checkValueAlone({ amount: '-2' }, field)).field).toBe('itemData.value.amount');
    // As many digits as u64 holds, with decimals: some asset can hold it.
    expect(checkValueAlone({ amount: '1844674407370.9551615' }, field)).toEqual({ zero: false });
  });

  it('says whether the value is zero', () => {
    expect(checkValueAlone({ amount: '0.000' }, field)).toEqual({ zero: true });
    expect(checkValueAlone({ lamports: '0' }, field)).toEqual({ zero: true });
    expect(checkValueAlone({ amount: '1e-3', lamports: '1' }, field)).toEqual({ zero: false });
  });
});

describe('scaleAmount: base units times a Scaled UI Amount multiplier, exactly', () => {
  it.each([
    [1000n, 2, 1.5, '15'],
    [123n, 0, 0.1, '12.3'],
    [5n, 3, 2, '0.01'],
    [7n, 0, 1e-7, '0.0000007'],
    [0n, 6, 1.25, '0'],
    [123456789012345678n, 6, 1.000001, '123456912469.134690345678'],
  ])('%s base units (%i decimals) × %s = %s', (units, decimals, multiplier, expected) => {
    expect(scaleAmount(units, decimals, multiplier)).toBe(expected);
  });
});
