/** Create Account onboarding a NONCE or ADDRESS_LOOKUP_TABLE account: the checks against the chain, each refusal's code and field. */
import { getNonceEncoder, NonceState, NonceVersion, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { address, type Address } from '@solana/kit';
import {
  chainVerifiedKind,
  checkOnboardedLookupTable,
  checkOnboardedNonce,
  checkTableNotOnRecord,
  onboardedTableFlags,
} from '../../../src/domain/operations/accounts/onboarded-kinds.rules';
import { validateCreateAccount } from '../../../src/domain/operations/accounts/create-account.rules';
import type { TableState } from '../../../src/domain/operations/address-lookup-tables/address-lookup-table.rules';
import { refusal } from '../../support/expectations';

const N = 'Addr1111111111111111111111111111111111111111';
const AUTH = 'Addr2222222222222222222222222222222222222222';
const NONCE = '4fo5ahGxbJqR4jDHWfdLZSQNDKGYUhBFTqjQL4GurEmJ';
const nonceData = (state: NonceState) =>
  new Uint8Array(
    getNonceEncoder().encode({
      version: NonceVersion.Current,
      state,
      authority: address(AUTH),
      blockhash: NONCE as unknown as Address,
      lamportsPerSignature: 5000n,
    }),
  );
const table = (change: Partial<TableState> = {}): TableState => ({
  authority: AUTH,
  deactivationSlot: null,
  lastExtendedSlot: 1n,
  lastExtendedSlotStartIndex: 0,
  addresses: [N],
  ...change,
});

describe('which onboardings are verified against the chain', () => {
  it('NONCE and ADDRESS_LOOKUP_TABLE accounts that are alreadyOnchain; nothing else', () => {
    expect(chainVerifiedKind({ alreadyOnchain: true, offchainReferences: { type: 'NONCE' } })).toBe('NONCE');
    expect(chainVerifiedKind({ alreadyOnchain: true, offchainReferences: { type: 'ADDRESS_LOOKUP_TABLE' } })).toBe('ADDRESS_LOOKUP_TABLE');
    expect(chainVerifiedKind({ alreadyOnchain: true })).toBeNull();
    expect(chainVerifiedKind({ offchainReferences: { type: 'NONCE' } })).toBeNull();
  });

  it.each(['NONCE', 'ADDRESS_LOOKUP_TABLE'] as const)('refuses skipBlockchainExistenceVerification for a %s account before any lookup', (type) => {
    const item = { managed: false, alreadyOnchain: true, onchainId: N, offchainReferences: { type }, skipBlockchainExistenceVerification: true };
    expect(refusal(() => validateCreateAccount(item, { updateDebitApiKeys: false }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.skipBlockchainExistenceVerification',
    });
  });
});

describe('a nonce account onboarded', () => {
  it('answers its authority and nonce when the System Program owns an initialized nonce', () => {
    expect(checkOnboardedNonce({ owner: SYSTEM_PROGRAM_ADDRESS, data: nonceData(NonceState.Initialized) }, N, 'LOCAL')).toEqual({
      authority: AUTH,
      nonce: NONCE,
    });
  });

  it.each([
    ['no account', null, `no account at ${N} on LOCAL`],
    [
      'another owner program',
      { owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', data: nonceData(NonceState.Initialized) },
      /its owner program is Tokenkeg/,
    ],
    ['a plain system account', { owner: SYSTEM_PROGRAM_ADDRESS, data: new Uint8Array(0) }, /holds no initialized nonce \(0 bytes/],
    ['an uninitialized nonce', { owner: SYSTEM_PROGRAM_ADDRESS, data: nonceData(NonceState.Uninitialized) }, /holds no initialized nonce/],
  ])('refuses %s with 400 naming itemData.onchainId', (_what, account, message) => {
    expect(refusal(() => checkOnboardedNonce(account, N, 'LOCAL'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.onchainId',
      message: typeof message === 'string' ? message : expect.stringMatching(message),
    });
  });
});

describe('a lookup table onboarded', () => {
  it('answers the table with its authority, and its flags as the network has them', () => {
    expect(checkOnboardedLookupTable(table(), N, 'LOCAL')).toMatchObject({ authority: AUTH, addresses: [N] });
    expect(onboardedTableFlags(table({ deactivationSlot: 7n }))).toEqual({ frozen: false, deactivated: true, deactivationSlot: '7' });
  });

  it("refuses no account, another program's account and a frozen table (400 naming itemData.onchainId); one on record is 409", () => {
    expect(refusal(() => checkOnboardedLookupTable(null, N, 'LOCAL'))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.onchainId' });
    expect(refusal(() => checkOnboardedLookupTable({ notATable: `${N} is not an address lookup table (owner x)` }, N, 'LOCAL'))).toMatchObject({
      field: 'itemData.onchainId',
      message: `${N} is not an address lookup table (owner x)`,
    });
    expect(refusal(() => checkOnboardedLookupTable(table({ authority: null }), N, 'LOCAL'))).toMatchObject({
      field: 'itemData.onchainId',
      message: expect.stringContaining('frozen'),
    });
    expect(refusal(() => checkTableNotOnRecord(true, N))).toMatchObject({ code: 'CONFLICT', field: 'itemData.onchainId' });
    expect(() => checkTableNotOnRecord(false, N)).not.toThrow();
  });
});
