/** The address lookup table rules over looked-up state (the handlers look up, these decide): each refusal's code and field, the good case, and a new table's record. */
import {
  checkNotOnRecord,
  checkOnboardedTable,
  checkOnboarding,
  componentsToAppend,
  newTableRecord,
  requireFreeSlot,
  type TableState,
} from '../../../src/domain/operations/address-lookup-tables/address-lookup-table.rules';
import { validateInput } from '../../../src/domain/operations/registry';
import { refusal } from '../../support/expectations';

const A = 'Addr1111111111111111111111111111111111111111';
const B = 'Addr2222222222222222222222222222222222222222';
const T = 'Tab11111111111111111111111111111111111111111';
const ONCHAIN_ID = 'itemData.addressLookupTable.onchainId';
const state = (over: Partial<TableState> = {}): TableState => ({
  authority: A,
  deactivationSlot: null,
  lastExtendedSlot: 0n,
  lastExtendedSlotStartIndex: 0,
  addresses: [A, B],
  ...over,
});

describe('Create Address Lookup Table', () => {
  it('takes onchainId only with alreadyOnchain, and alreadyOnchain only with onchainId', () => {
    expect(refusal(() => checkOnboarding({ onchainId: T }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: ONCHAIN_ID,
      message: expect.stringContaining('goes with alreadyOnchain'),
    });
    expect(refusal(() => checkOnboarding({ alreadyOnchain: true }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: ONCHAIN_ID,
      message: expect.stringContaining('names the existing table'),
    });
    expect(() => checkOnboarding({ alreadyOnchain: true, onchainId: T })).not.toThrow();
    expect(() => checkOnboarding({})).not.toThrow();
  });

  it('checks that pairing before any lookup (an authority that does not exist is not looked up first)', () => {
    const item = { addressLookupTable: { onchainId: T }, authority: { offchainId: '00000000-0000-4000-8000-000000000000' } };
    expect(refusal(() => validateInput('CREATE_ADDRESS_LOOKUP_TABLE', item, { updateDebitApiKeys: false }))).toMatchObject({ field: ONCHAIN_ID });
  });

  it('onboards a table once (409)', () => {
    expect(refusal(() => checkNotOnRecord(true, T, ONCHAIN_ID))).toMatchObject({ code: 'CONFLICT', field: ONCHAIN_ID });
    expect(() => checkNotOnRecord(false, T, ONCHAIN_ID)).not.toThrow();
  });

  it('onboards an existing table of the named authority holding every component named', () => {
    expect(refusal(() => checkOnboardedTable(null, T, 'LOCAL', A, [], ONCHAIN_ID))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: ONCHAIN_ID,
      message: `no address lookup table at ${T} on LOCAL`,
    });
    expect(refusal(() => checkOnboardedTable(state({ authority: B }), T, 'LOCAL', A, [], ONCHAIN_ID))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.authority',
    });
    expect(refusal(() => checkOnboardedTable(state({ addresses: [A] }), T, 'LOCAL', A, [{ address: A }, { address: B }], ONCHAIN_ID))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.componentAddresses.1',
    });
    expect(checkOnboardedTable(state(), T, 'LOCAL', A, [{ address: B }], ONCHAIN_ID).addresses).toEqual([A, B]);
    expect(refusal(() => checkOnboardedTable({ notATable: `${T} is not an address lookup table` }, T, 'LOCAL', A, [], ONCHAIN_ID))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: ONCHAIN_ID,
      message: `${T} is not an address lookup table`,
    });
    // A frozen table has no authority: any authority named onboards it.
    expect(() => checkOnboardedTable(state({ authority: null }), T, 'LOCAL', B, [], ONCHAIN_ID)).not.toThrow();
  });

  it('needs a recent slot no other table of the authority took (409)', () => {
    expect(refusal(() => requireFreeSlot(undefined))).toMatchObject({ code: 'CONFLICT', field: 'itemData.authority' });
    expect(requireFreeSlot({ address: T, slot: 5n })).toEqual({ address: T, slot: 5n });
  });

  it("records a new table with the request's labels, and an onboarded one without a creating transaction", () => {
    const table = { tableId: 'id', address: T, recentSlot: '7', authority: A, authorityAccountId: 'acc', managed: true };
    const at = new Date('2026-01-01T00:00:00Z');
    const scope = { organizationId: 'org', cluster: 'LOCAL' };
    expect(newTableRecord(table, scope, { offchainReferences: { code: 'ALT', name: 'Desk' }, comments: 'c' }, { transactionId: 'tx', at })).toEqual({
      id: 'id',
      organizationId: 'org',
      cluster: 'LOCAL',
      address: T,
      authorityAddress: A,
      authorityAccountId: 'acc',
      managed: true,
      componentAddresses: [],
      componentAccountIds: [],
      wasOnchainAlready: false,
      frozen: false,
      deactivated: false,
      closed: false,
      code: 'ALT',
      name: 'Desk',
      comments: 'c',
      creationTransactionId: 'tx',
      creationTransactionAt: at,
    });
    expect(newTableRecord({ ...table, recentSlot: null }, scope, {}, null)).toMatchObject({
      wasOnchainAlready: true,
      code: null,
      name: null,
      comments: null,
      creationTransactionId: null,
      creationTransactionAt: null,
    });
  });
});

describe('Extend Address Lookup Table', () => {
  it('appends only the addresses the table does not hold, and refuses when none is new', () => {
    expect(refusal(() => componentsToAppend([{ address: A }], [A, B]))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.componentAddresses' });
    expect(componentsToAppend([{ address: A }, { address: T }], [A, B])).toEqual([{ address: T }]);
  });
});
