import type { TransferNetworkCurrencyItemData } from '../../src/domain/operations/accounts/account.inputs';
import { validateInput } from '../../src/domain/operations/registry';
import {
  checkAvailableLamports,
  checkTransferableSource,
  offPlatformDestination,
  onboardedDestination,
  transferLamports,
  validateTransferNetworkCurrency,
} from '../../src/domain/operations/accounts/transfer-network-currency.rules';
import { refusal } from '../support/expectations';

const SOURCE = { offchainId: '396197e3-ae95-48d1-868d-6342ea9dc71e' };
const ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const transfer = (value: TransferNetworkCurrencyItemData['value']): TransferNetworkCurrencyItemData => ({
  source: SOURCE,
  destination: { onchainId: ADDRESS, offPlatform: true },
  value,
});
const writer = { updateDebitApiKeys: false };

describe('transferLamports: how much network currency moves', () => {
  it('reads an amount in UI units (9 decimals) or lamports, in base units', () => {
    expect(transferLamports(transfer({ amount: '1.5' }))).toBe(1_500_000_000n);
    expect(transferLamports(transfer({ lamports: '42' }))).toBe(42n);
    expect(transferLamports(transfer({ amount: '0.000000001', lamports: '1' }))).toBe(1n);
  });

  it.each([[{ amount: '0' }], [{ lamports: '0' }]])('refuses a transfer of nothing (%j), naming itemData.value', (value) => {
    const error = refusal(() => transferLamports(transfer(value)));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value');
    expect(error.message).toBe('the amount must be more than zero');
  });

  it('refuses an amount finer than a lamport, naming itemData.value.amount', () => {
    const error = refusal(() => transferLamports(transfer({ amount: '0.0000000001' })));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.value.amount');
  });

  it('refuses an amount and lamports that disagree, naming the field', () => {
    const error = refusal(() => transferLamports(transfer({ amount: '1', lamports: '2' })));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toMatch(/^itemData\.value/);
  });

  it("is the operation's request-only rule: the registry runs it before any lookup", () => {
    expect(() => validateTransferNetworkCurrency(transfer({ lamports: '1' }))).not.toThrow();
    expect(refusal(() => validateInput('TRANSFER_NETWORK_CURRENCY', transfer({ lamports: '0' }), writer)).field).toBe('itemData.value');
    // Values that disagree are 400 before the destination is looked up (it need not exist).
    const disagreeing = { ...transfer({ amount: '1', lamports: '2' }), destination: { offchainId: '00000000-0000-4000-8000-000000000000' } };
    expect(refusal(() => validateInput('TRANSFER_NETWORK_CURRENCY', disagreeing, writer)).field).toBe('itemData.value.lamports');
  });
});

describe('destination classes (spec 8 limits are chosen by them)', () => {
  it('an onboarded account is MANAGED when the service holds its key, NON_MANAGED otherwise', () => {
    expect(onboardedDestination({ address: ADDRESS, managed: true, status: 'ACTIVE' }, 'itemData.destination')).toEqual({ address: ADDRESS, class: 'MANAGED' });
    expect(onboardedDestination({ address: ADDRESS, managed: false, status: 'ACTIVE' }, 'itemData.destination')).toEqual({
      address: ADDRESS,
      class: 'NON_MANAGED',
    });
  });

  it('an address outside the platform is OFF_PLATFORM', () => {
    expect(offPlatformDestination(ADDRESS)).toEqual({ address: ADDRESS, class: 'OFF_PLATFORM' });
  });

  it('refuses a closed destination account, naming the field it was given in', () => {
    const error = refusal(() => onboardedDestination({ address: ADDRESS, managed: true, status: 'CLOSED' }, 'itemData.transferRemainingNetworkCurrencyTo'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.transferRemainingNetworkCurrencyTo');
    expect(error.message).toBe('the destination account is CLOSED');
  });
});

describe('what the chain lets the source send (checked before anything is signed)', () => {
  const SYSTEM = '11111111111111111111111111111111';
  const RENT = 890_880n;

  it('refuses a System Program account holding data: seeded currency cannot be transferred out (spec 2.3 rule 2), naming the field', () => {
    const error = refusal(() => checkTransferableSource(ADDRESS, { owner: SYSTEM, dataLength: 16 }, 'itemData.source'));
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.source' });
    expect(error.message).toBe(
      `account ${ADDRESS} holds 16 bytes of data: network currency seeded into a System Program account with dataLength > 0 cannot be transferred out (spec 2.3 rule 2)`,
    );
    expect(() => checkTransferableSource(ADDRESS, { owner: SYSTEM, dataLength: 0 }, 'itemData.source')).not.toThrow();
  });

  it("refuses another program's account, naming the field", () => {
    const error = refusal(() => checkTransferableSource(ADDRESS, { owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', dataLength: 0 }, 'itemData.source'));
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.source' });
  });

  it('lets it send everything, or keep at least the rent-exempt minimum', () => {
    const source = { address: ADDRESS, lamports: 2_000_000n };
    expect(() => checkAvailableLamports(source, 2_000_000n, 0n, RENT)).not.toThrow();
    expect(() => checkAvailableLamports(source, 2_000_000n - RENT, 0n, RENT)).not.toThrow();
  });

  it('refuses more than it holds, or a remainder under the rent-exempt minimum: INSUFFICIENT_BALANCE naming itemData.value', () => {
    const source = { address: ADDRESS, lamports: 2_000_000n };
    for (const amount of [2_000_001n, 2_000_000n - RENT + 1n, 1_999_999n]) {
      const error = refusal(() => checkAvailableLamports(source, amount, 0n, RENT));
      expect(error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', field: 'itemData.value' });
    }
    expect(refusal(() => checkAvailableLamports(source, 1_999_999n, 0n, RENT)).message).toBe(
      `the source ${ADDRESS} holds 0.002 (2000000 lamports); it keeps the rent-exempt minimum of 890880 lamports unless it sends everything, so it can send at most 0.00110912 (1109120 lamports), or all 0.002 (2000000 lamports); 0.001999999 (1999999 lamports) cannot be transferred`,
    );
  });

  it('keeps the fee when the source pays it', () => {
    const source = { address: ADDRESS, lamports: 2_000_000n };
    expect(() => checkAvailableLamports(source, 1_995_000n, 5_000n, RENT)).not.toThrow();
    const error = refusal(() => checkAvailableLamports(source, 2_000_000n, 5_000n, RENT));
    expect(error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', field: 'itemData.value' });
    expect(error.message).toContain('and pays the fee of 5000 lamports');
  });

  it('an account with nothing can send nothing', () => {
    expect(refusal(() => checkAvailableLamports({ address: ADDRESS, lamports: 0n }, 1n, 0n, RENT)).message).toContain('so it can send nothing');
  });
});
