import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionSize,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from '@solana/kit';
import { createAddressLookupTableHandler } from '../../src/activities/operations/address-lookup-tables/create-address-lookup-table.handler';
import { extendAddressLookupTableHandler } from '../../src/activities/operations/address-lookup-tables/extend-address-lookup-table.handler';
import type { OperationRequest, OperationResolved } from '../../src/activities/operations/operation-handler';
import {
  checkCapacity,
  checkExtendable,
  checkUpdate,
  coolDownOver,
  createBatch,
  createTransactionCount,
  CREATE_BATCH,
  EXTEND_BATCH,
  extendTransactionCount,
  slotHashSlots,
  tableFlags,
  usableAddresses,
  validateUpdateAddressLookupTable,
  type TableState,
} from '../../src/domain/operations/address-lookup-tables/address-lookup-table.rules';
import { LedgerError } from '../../src/domain/errors';

const newAddress = async () => (await generateKeyPairSigner()).address;
const fieldOf = (fn: () => void) => {
  try {
    fn();
  } catch (error) {
    return error instanceof LedgerError ? `${error.code} ${error.field}` : String(error);
  }
  return 'accepted';
};
const table = (over: Partial<TableState> = {}): TableState => ({
  authority: 'A',
  deactivationSlot: null,
  lastExtendedSlot: 10n,
  lastExtendedSlotStartIndex: 2,
  addresses: ['a', 'b', 'c', 'd'],
  ...over,
});

/** The worst-case size of one transaction of the write: own fee payer, separate authority, compute budget limit and price. */
async function worstSize(instructions: ReturnType<typeof createAddressLookupTableHandler.instructions>, feePayer: string) {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: '11111111111111111111111111111111' as Blockhash, lastValidBlockHeight: 1n }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [getSetComputeUnitLimitInstruction({ units: 1_400_000 }), getSetComputeUnitPriceInstruction({ microLamports: 2n ** 63n }), ...instructions],
        m,
      ),
  );
  return getTransactionSize(compileTransaction(message));
}

describe('Address lookup tables: batches fit one network transaction', () => {
  it(`creates with ${CREATE_BATCH} addresses and extends by ${EXTEND_BATCH} within 1232 bytes, with room for a durable nonce's advance`, async () => {
    const feePayer = await newAddress();
    const authority = await newAddress();
    const components = await Promise.all(Array.from({ length: 256 }, async () => ({ address: await newAddress(), accountId: null })));
    const tableAddress = await newAddress();
    const base = { needsTransaction: true, feePayer, signers: [feePayer, authority], debits: [], webhooks: { preSubmit: false, postSubmit: false } };
    const create: OperationResolved<any> = {
      ...base,
      data: { tableId: 't', address: tableAddress, recentSlot: '100', bump: 255, authority, authorityAccountId: 'x', managed: true, components },
    };
    const first = createAddressLookupTableHandler.instructions({} as OperationRequest<any>, create, 0);
    expect(first).toHaveLength(2);
    expect(await worstSize(first, feePayer)).toBeLessThanOrEqual(1232 - 80);
    const extend: OperationResolved<any> = { ...base, data: { tableId: 't', address: tableAddress, authority, components } };
    expect(await worstSize(extendAddressLookupTableHandler.instructions({} as OperationRequest<any>, extend, 0), feePayer)).toBeLessThanOrEqual(1232 - 80);
  });

  it('splits a creation into create + extends, every address once and in order', () => {
    const all = Array.from({ length: 256 }, (_, i) => i);
    expect(createTransactionCount(20)).toBe(1);
    expect(createTransactionCount(40)).toBe(2);
    const count = createTransactionCount(256);
    expect(Array.from({ length: count }, (_, part) => createBatch(all, part)).flat()).toEqual(all);
    expect(extendTransactionCount(EXTEND_BATCH + 1)).toBe(2);
  });
});

describe('Address lookup tables: the network rules, checked before signing', () => {
  it('reads the flags as the network has them', () => {
    expect(tableFlags(null)).toEqual({ frozen: false, deactivated: true, closed: true });
    expect(tableFlags(table({ authority: null }))).toEqual({ frozen: true, deactivated: false, closed: false });
    expect(tableFlags(table({ deactivationSlot: 5n }))).toEqual({ frozen: false, deactivated: true, closed: false });
  });

  it('leaves out an extension of the slot a transaction may still land in, and every address of a deactivated table', () => {
    expect(usableAddresses(table(), 10n)).toEqual(['a', 'b']);
    expect(usableAddresses(table(), 11n)).toEqual(['a', 'b', 'c', 'd']);
    expect(usableAddresses(table({ deactivationSlot: 3n }), 11n)).toEqual([]);
  });

  it('closes only once the deactivation slot has left SlotHashes', () => {
    const data = new Uint8Array(8 + 3 * 40);
    const view = new DataView(data.buffer);
    view.setBigUint64(0, 3n, true);
    [102n, 101n, 100n].forEach((slot, i) => view.setBigUint64(8 + i * 40, slot, true));
    const slots = slotHashSlots(data);
    expect(slots).toEqual([102n, 101n, 100n]);
    expect(coolDownOver(101n, slots)).toBe(false);
    expect(coolDownOver(103n, slots)).toBe(false);
    expect(coolDownOver(99n, slots)).toBe(true);
  });

  it('refuses what the network would refuse, naming the field', () => {
    expect(fieldOf(() => checkExtendable(tableFlags(table({ authority: null })), 'f'))).toBe('VALIDATION_ERROR f');
    expect(fieldOf(() => checkExtendable(tableFlags(table()), 'f'))).toBe('accepted');
    expect(fieldOf(() => checkCapacity(250, 7, 'c'))).toBe('VALIDATION_ERROR c');
    expect(fieldOf(() => checkCapacity(250, 6, 'c'))).toBe('accepted');
    expect(fieldOf(() => checkUpdate({ close: true }, table(), false, 'f'))).toBe('VALIDATION_ERROR itemData.close');
    expect(fieldOf(() => checkUpdate({ close: true }, table({ deactivationSlot: 5n }), false, 'f'))).toBe('VALIDATION_ERROR itemData.close');
    expect(fieldOf(() => checkUpdate({ close: true }, table({ deactivationSlot: 5n }), true, 'f'))).toBe('accepted');
    expect(fieldOf(() => checkUpdate({ freeze: true }, table({ addresses: [] }), false, 'f'))).toBe('VALIDATION_ERROR itemData.freeze');
    expect(fieldOf(() => checkUpdate({ deactivate: true }, table({ authority: null }), false, 'f'))).toBe('VALIDATION_ERROR itemData.deactivate');
    expect(fieldOf(() => checkUpdate({ freeze: true }, null, false, 'f'))).toBe('VALIDATION_ERROR f');
    expect(fieldOf(() => validateUpdateAddressLookupTable({}))).toBe('VALIDATION_ERROR itemData');
    expect(fieldOf(() => validateUpdateAddressLookupTable({ freeze: true, deactivate: true }))).toBe('VALIDATION_ERROR itemData.deactivate');
    expect(fieldOf(() => validateUpdateAddressLookupTable({ deactivate: true, refundDestination: {} }))).toBe('VALIDATION_ERROR itemData.refundDestination');
  });
});
