import { checkApprovers, checkDebits, defaultNetworkCurrencyLimits, type DebitLimit, type DestinationClass } from '../../src/domain/debit-limits';
import type { Debit } from '../../src/domain/write';
import { refusal } from '../support/expectations';

const ONE_SOL = 1_000_000_000n;

/** A network-currency debit of `lamports` from a wallet to a destination of the given class. */
function debit(lamports: bigint, destination: DestinationClass): Debit {
  return {
    accountId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    address: 'So11111111111111111111111111111111111111112',
    asset: 'NETWORK_CURRENCY',
    amount: lamports.toString(),
    destination: { address: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', class: destination },
  };
}

/** One debit checked alone; `recent` is what every DURATION window already holds. */
const checkPerTransaction = (limits: DebitLimit[], d: Debit, decimals = 9, recent = 0n) => checkDebits(limits, [d], decimals, () => recent);

const perTransaction = (destination: DebitLimit['destination'], limitAmount: string): DebitLimit => ({
  destination,
  maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount },
});

describe('default network currency limits (spec 8)', () => {
  it('refuses any positive debit to an off-platform address, saying which limit fired', () => {
    const error = refusal(() => checkPerTransaction(defaultNetworkCurrencyLimits, debit(1n, 'OFF_PLATFORM')));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.status).toBe(400);
    expect(error.context.limit).toEqual({ destination: 'OFF_PLATFORM', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '0' } });
    expect(error.context.debit).toEqual({
      address: 'So11111111111111111111111111111111111111112',
      amount: '1',
      destination: { address: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', class: 'OFF_PLATFORM' },
    });
    expect(error.message).toContain('0.000000001');
  });

  it('lets a zero debit to an off-platform address through', () => {
    expect(() => checkPerTransaction(defaultNetworkCurrencyLimits, debit(0n, 'OFF_PLATFORM'))).not.toThrow();
  });

  it('allows exactly 1 SOL per transaction to a non-managed account', () => {
    expect(() => checkPerTransaction(defaultNetworkCurrencyLimits, debit(ONE_SOL, 'NON_MANAGED'))).not.toThrow();
  });

  it('refuses 1 SOL and 1 lamport to a non-managed account', () => {
    const error = refusal(() => checkPerTransaction(defaultNetworkCurrencyLimits, debit(ONE_SOL + 1n, 'NON_MANAGED')));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.context.limit).toEqual({ destination: 'NON_MANAGED', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: '1' } });
    expect(error.message).toContain('1.000000001');
  });

  it('does not limit debits to managed accounts', () => {
    expect(() => checkPerTransaction(defaultNetworkCurrencyLimits, debit(10n ** 20n, 'MANAGED'))).not.toThrow();
  });
});

describe('configured per-transaction limits', () => {
  it('an ANY limit applies to every destination', () => {
    const limits = [perTransaction('ANY', '0.5')];
    for (const destination of ['OFF_PLATFORM', 'NON_MANAGED', 'MANAGED'] as const) {
      expect(() => checkPerTransaction(limits, debit(ONE_SOL / 2n, destination))).not.toThrow();
      const error = refusal(() => checkPerTransaction(limits, debit(ONE_SOL / 2n + 1n, destination)));
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.context.limit).toEqual(limits[0]);
    }
  });

  it('only the provided entries apply: defaults no longer hold once limits are configured', () => {
    const limits = [perTransaction('MANAGED', '2')];
    expect(() => checkPerTransaction(limits, debit(5n * ONE_SOL, 'OFF_PLATFORM'))).not.toThrow();
    expect(() => checkPerTransaction(limits, debit(2n * ONE_SOL, 'MANAGED'))).not.toThrow();
    expect(refusal(() => checkPerTransaction(limits, debit(2n * ONE_SOL + 1n, 'MANAGED'))).code).toBe('LIMIT_EXCEEDED');
  });

  it('the tightest matching limit wins when several apply', () => {
    const limits = [perTransaction('ANY', '10'), perTransaction('NON_MANAGED', '3')];
    expect(() => checkPerTransaction(limits, debit(3n * ONE_SOL, 'NON_MANAGED'))).not.toThrow();
    const error = refusal(() => checkPerTransaction(limits, debit(4n * ONE_SOL, 'NON_MANAGED')));
    expect(error.context.limit).toEqual(limits[1]);
    expect(() => checkPerTransaction(limits, debit(4n * ONE_SOL, 'MANAGED'))).not.toThrow();
  });

  it('uses the token decimals for token limits', () => {
    const limits = [perTransaction('ANY', '1.5')];
    expect(() => checkPerTransaction(limits, debit(1_500_000n, 'MANAGED'), 6)).not.toThrow();
    expect(refusal(() => checkPerTransaction(limits, debit(1_500_001n, 'MANAGED'), 6)).code).toBe('LIMIT_EXCEEDED');
  });

  it('a DURATION limit counts what its window already holds', () => {
    const limits: DebitLimit[] = [{ destination: 'ANY', maxAllowedDebit: { limitType: 'DURATION', limitAmount: '1', duration: { code: 'DAYS', unit: 1 } } }];
    expect(() => checkPerTransaction(limits, debit(ONE_SOL / 2n, 'MANAGED'), 9, ONE_SOL / 2n)).not.toThrow();
    const error = refusal(() => checkPerTransaction(limits, debit(ONE_SOL / 2n + 1n, 'MANAGED'), 9, ONE_SOL / 2n));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.context.limit).toEqual(limits[0]);
    expect(error.message).toContain('0.5 is already debited');
  });
});

describe('which limits govern a debit', () => {
  const burn: Debit = { ...debit(5n, 'MANAGED'), operationType: 'BURN', destination: null };
  it('a burn has no destination: only ANY limits govern it', () => {
    expect(() => checkPerTransaction(defaultNetworkCurrencyLimits, burn)).not.toThrow();
    expect(refusal(() => checkPerTransaction([perTransaction('ANY', '0')], burn)).code).toBe('LIMIT_EXCEEDED');
  });
  it('operationType and mintAuthority narrow a token limit', () => {
    const transferOnly: DebitLimit = { ...perTransaction('ANY', '0'), operationType: 'TRANSFER' };
    expect(() => checkPerTransaction([transferOnly], burn)).not.toThrow();
    expect(refusal(() => checkPerTransaction([transferOnly], debit(1n, 'MANAGED'))).code).toBe('LIMIT_EXCEEDED');
    const forOneMint: DebitLimit = { ...perTransaction('ANY', '0'), mintAuthority: 'Auth1111111111111111111111111111111111111111' };
    expect(() => checkDebits([forOneMint], [debit(1n, 'MANAGED')], 9, () => 0n, 'Other111111111111111111111111111111111111111')).not.toThrow();
    expect(refusal(() => checkDebits([forOneMint], [debit(1n, 'MANAGED')], 9, () => 0n, 'Auth1111111111111111111111111111111111111111')).code).toBe(
      'LIMIT_EXCEEDED',
    );
  });
  it("sums one transaction's debits a limit governs", () => {
    const limits = [perTransaction('NON_MANAGED', '1')];
    expect(() => checkDebits(limits, [debit(ONE_SOL / 2n, 'NON_MANAGED'), debit(ONE_SOL / 2n, 'NON_MANAGED')], 9, () => 0n)).not.toThrow();
    expect(
      refusal(() => checkDebits(limits, [debit(ONE_SOL / 2n, 'NON_MANAGED'), debit(ONE_SOL / 2n + 1n, 'NON_MANAGED')], 9, () => 0n)).context.debit,
    ).toMatchObject({ amount: (ONE_SOL + 1n).toString() });
  });
});

describe('limits in the asset units', () => {
  it('drops decimals finer than the asset has: 0.5 of a whole-unit token is 0', () => {
    const limits = [perTransaction('ANY', '1.5')];
    expect(() => checkPerTransaction(limits, debit(1n, 'MANAGED'), 0)).not.toThrow();
    expect(refusal(() => checkPerTransaction(limits, debit(2n, 'MANAGED'), 0)).code).toBe('LIMIT_EXCEEDED');
    expect(refusal(() => checkPerTransaction([perTransaction('ANY', '0.5')], debit(1n, 'MANAGED'), 0)).code).toBe('LIMIT_EXCEEDED');
  });
});

describe('limits that name approvers (approversForOverride)', () => {
  const withApprovers = (limitType: 'PER_TRANSACTION' | 'DURATION', limitAmount: string): DebitLimit => ({
    destination: 'ANY',
    maxAllowedDebit: {
      limitType,
      limitAmount,
      approversForOverride: ['key-1', 'key-2'],
      requiredApproversCount: 2,
      ...(limitType === 'DURATION' ? { duration: { code: 'DAYS', unit: 1 } } : {}),
    },
  });

  it('answers the rule that fired and the headroom left in the window instead of refusing', () => {
    const needed = checkPerTransaction([withApprovers('DURATION', '2')], debit(ONE_SOL, 'MANAGED'), 9, (3n * ONE_SOL) / 2n);
    expect(needed).toMatchObject({
      limit: withApprovers('DURATION', '2'),
      amount: String(ONE_SOL),
      alreadyInWindow: String((3n * ONE_SOL) / 2n),
      headroom: String(ONE_SOL / 2n),
    });
  });

  it('answers nothing within the limit, and a zero headroom once the window is over it', () => {
    expect(checkPerTransaction([withApprovers('PER_TRANSACTION', '1')], debit(ONE_SOL, 'MANAGED'))).toBeUndefined();
    expect(checkPerTransaction([withApprovers('DURATION', '1')], debit(1n, 'MANAGED'), 9, 2n * ONE_SOL)?.headroom).toBe('0');
  });

  it('still refuses when another exceeded limit names no approvers', () => {
    const error = refusal(() => checkPerTransaction([withApprovers('PER_TRANSACTION', '1'), perTransaction('MANAGED', '1.5')], debit(2n * ONE_SOL, 'MANAGED')));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.context.limit).toEqual(perTransaction('MANAGED', '1.5'));
  });
});

describe('approvers for override', () => {
  const own = ['3f2504e0-4f89-11d3-9a0c-0305e82c3301', '3f2504e0-4f89-11d3-9a0c-0305e82c3302'];
  const limit = (approversForOverride: string[]) => ({
    destination: 'ANY' as const,
    maxAllowedDebit: { limitType: 'PER_TRANSACTION' as const, limitAmount: '1', approversForOverride },
  });

  it("accepts the organization's own usable API key ids, and limits naming none", () => {
    expect(() =>
      checkApprovers({ networkCurrencyDebitLimits: [limit(own)], tokenDebitLimits: [limit([]), perTransaction('ANY', '1')] }, new Set(own)),
    ).not.toThrow();
    expect(() => checkApprovers({}, new Set())).not.toThrow();
  });

  it('refuses an id that is not a usable key of the organization, naming its entry', () => {
    const foreign = '3f2504e0-4f89-11d3-9a0c-0305e82c3399';
    const error = refusal(() =>
      checkApprovers({ networkCurrencyDebitLimits: [limit([own[0]])], tokenDebitLimits: [limit([own[1]]), limit([own[0], foreign])] }, new Set(own)),
    );
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.tokenDebitLimits.1.maxAllowedDebit.approversForOverride.1' });
    expect(error.message).toContain(foreign);
    expect(refusal(() => checkApprovers({ networkCurrencyDebitLimits: [limit(['not-a-key'])] }, new Set(own))).field).toBe(
      'itemData.networkCurrencyDebitLimits.0.maxAllowedDebit.approversForOverride.0',
    );
  });
});
