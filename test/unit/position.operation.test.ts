import { LedgerError } from '../../src/domain/errors';
import type { InactivatePositionItemData, InitializePositionItemData } from '../../src/domain/operations/positions/position.inputs';
import {
  checkFreezeAllInstrument,
  checkFreezeTarget,
  FREEZE_ALL_BATCH,
  freezeBatch,
  freezeTransactionCount,
} from '../../src/domain/operations/positions/freeze-position.rules';
import {
  asInactivationError,
  remainderDisposal,
  thawBeforeClose,
  validateInactivatePosition,
} from '../../src/domain/operations/positions/inactivate-position.rules';
import { explicitAccountPreparation, validateInitializePosition } from '../../src/domain/operations/positions/initialize-position.rules';
import { validateInput } from '../../src/domain/operations/registry';
import { rentExemptMinimum } from '../../src/domain/token-extensions';
import { refusal } from '../support/expectations';

const OWNER = { offchainId: '396197e3-ae95-48d1-868d-6342ea9dc71e' };
const INSTRUMENT = { offchainId: '7b1c1c43-6b5e-4d7b-9a39-2f0c3f8d2a11' };
const POSITION = { position: { offchainId: 'c1e1d2b8-9a55-4f7e-8a57-0b5c0f2b3e44' } };
const ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const permissions = { updateDebitApiKeys: false };

describe('Initialize Position', () => {
  const item = (lookup: InitializePositionItemData['positionToInitialize']): InitializePositionItemData => ({ positionToInitialize: lookup });

  it('needs the owner and the instrument, naming the missing one before any lookup', () => {
    expect(refusal(() => validateInitializePosition(item({ financialInstrument: INSTRUMENT }))).field).toBe('itemData.positionToInitialize.owner');
    expect(refusal(() => validateInput('INITIALIZE_POSITION', item({ owner: OWNER }), permissions)).field).toBe(
      'itemData.positionToInitialize.financialInstrument',
    );
    expect(() => validateInput('INITIALIZE_POSITION', item({ owner: OWNER, financialInstrument: INSTRUMENT }), permissions)).not.toThrow();
  });

  describe('an explicit position’s account', () => {
    const mint = { address: ADDRESS, size: 165 };
    const field = 'itemData.positionToInitialize.position';

    it('is allocated, assigned and topped up to rent-exempt when it holds no data', () => {
      expect(explicitAccountPreparation(ADDRESS, { owner: SYSTEM_PROGRAM, lamports: 1_000n, dataLength: 0 }, mint, field)).toEqual({
        topUp: rentExemptMinimum(165) - 1_000n,
        allocate: true,
        size: 165,
      });
    });

    it('is only assigned when it holds exactly the token account’s size, and gets no top-up when it is funded', () => {
      expect(explicitAccountPreparation(ADDRESS, { owner: SYSTEM_PROGRAM, lamports: 10_000_000n, dataLength: 165 }, mint, field)).toEqual({
        topUp: 0n,
        allocate: false,
        size: 165,
      });
    });

    it('is refused when missing, owned by a program or holding other data, naming the position; a missing mint names the instrument', () => {
      const refusals = [
        refusal(() => explicitAccountPreparation(ADDRESS, null, mint, field)),
        refusal(() => explicitAccountPreparation(ADDRESS, { owner: TOKEN_PROGRAM, lamports: 1n, dataLength: 0 }, mint, field)),
        refusal(() => explicitAccountPreparation(ADDRESS, { owner: SYSTEM_PROGRAM, lamports: 1n, dataLength: 10 }, mint, field)),
        refusal(() => explicitAccountPreparation(ADDRESS, { owner: SYSTEM_PROGRAM, lamports: 1n, dataLength: 0 }, { address: ADDRESS, size: null }, field)),
      ];
      expect(refusals.map((e) => [e.code, e.field])).toEqual([
        ['VALIDATION_ERROR', field],
        ['VALIDATION_ERROR', field],
        ['VALIDATION_ERROR', field],
        ['VALIDATION_ERROR', 'itemData.positionToInitialize.financialInstrument'],
      ]);
      expect(refusals[2].message).toContain('exactly 165');
    });
  });
});

describe('Freeze / Unfreeze Position', () => {
  it('changes an active position not already in that state', () => {
    expect(() => checkFreezeTarget({ status: 'ACTIVE', frozen: false }, true, 'itemData.position')).not.toThrow();
    expect(refusal(() => checkFreezeTarget({ status: 'ACTIVE', frozen: true }, true, 'itemData.position')).message).toBe('the position is already frozen');
    expect(refusal(() => checkFreezeTarget({ status: 'ACTIVE', frozen: false }, false, 'itemData.position')).message).toBe('the position is already unfrozen');
    expect(refusal(() => checkFreezeTarget({ status: 'INACTIVE', frozen: false }, true, 'itemData.position')).message).toBe('the position is INACTIVE');
  });

  it('changes every position of an active SPL instrument only, naming allPositions for a Token-2022 one', () => {
    expect(() => checkFreezeAllInstrument({ version: 'SPL', status: 'ACTIVE' }, 'itemData.financialInstrument')).not.toThrow();
    expect(refusal(() => checkFreezeAllInstrument({ version: 'TOKEN_2022', status: 'ACTIVE' }, 'itemData.financialInstrument')).field).toBe(
      'itemData.allPositions',
    );
    expect(refusal(() => checkFreezeAllInstrument({ version: 'SPL', status: 'CLOSED' }, 'itemData.financialInstrument')).field).toBe(
      'itemData.financialInstrument',
    );
  });

  it('cuts all positions into transactions of FREEZE_ALL_BATCH, each position in exactly one', () => {
    const positions = Array.from({ length: 2 * FREEZE_ALL_BATCH + 3 }, (_, i) => i);
    const count = freezeTransactionCount(positions.length);
    expect(count).toBe(3);
    const parts = Array.from({ length: count }, (_, part) => freezeBatch(positions, part));
    expect(parts.map((p) => p.length)).toEqual([FREEZE_ALL_BATCH, FREEZE_ALL_BATCH, 3]);
    expect(parts.flat()).toEqual(positions);
  });
});

describe('Inactivate Position (spec 3, 4.3)', () => {
  const item = (fields: Partial<InactivatePositionItemData> = {}): InactivatePositionItemData => ({ positionToInactivate: POSITION, ...fields });

  it('refuses burning and transferring the remainder, or refunding to the fee payer and a destination, before any lookup', () => {
    expect(
      refusal(() => validateInput('INACTIVATE_POSITION', item({ burnRemainingTokenBalance: true, transferRemainingTokenBalanceTo: POSITION }), permissions))
        .field,
    ).toBe('itemData.transferRemainingTokenBalanceTo');
    expect(refusal(() => validateInactivatePosition(item({ refundNetworkCurrrencyToFeePayer: true, refundNetworkCurrrencyDestination: OWNER }))).field).toBe(
      'itemData.refundNetworkCurrrencyDestination',
    );
    expect(() => validateInactivatePosition(item({ burnRemainingTokenBalance: true, refundNetworkCurrrencyDestination: OWNER }))).not.toThrow();
  });

  it('closes a frozen position only with unfreezeIfNeeded', () => {
    const frozen = { frozen: true, address: ADDRESS };
    const error = refusal(() => thawBeforeClose(frozen, item()));
    expect([error.code, error.field]).toEqual(['POSITION_FROZEN', 'itemData.unfreezeIfNeeded']);
    expect(thawBeforeClose(frozen, item({ unfreezeIfNeeded: true }))).toBe(true);
    expect(thawBeforeClose({ frozen: false, address: ADDRESS }, item({ unfreezeIfNeeded: true }))).toBe(false);
  });

  it('burns or transfers a remaining balance as asked, and refuses one it has nowhere to go', () => {
    expect(remainderDisposal(item(), 0n, 2)).toEqual({ kind: 'none' });
    expect(remainderDisposal(item({ burnRemainingTokenBalance: true }), 5n, 2)).toEqual({ kind: 'burn' });
    expect(remainderDisposal(item({ transferRemainingTokenBalanceTo: POSITION }), 5n, 2)).toEqual({ kind: 'transfer', to: POSITION });
    const error = refusal(() => remainderDisposal(item(), 150n, 2));
    expect(error.field).toBe('itemData.burnRemainingTokenBalance');
    expect(error.message).toContain('still holds 1.5');
  });

  it('names a movement leg’s refusal by this payload’s fields', () => {
    const renamed = (field: string) => asInactivationError(new LedgerError('INSUFFICIENT_BALANCE', 'm', field, { a: 1 }));
    expect(renamed('itemData.burnFrom.owner').field).toBe('itemData.positionToInactivate.owner');
    expect(renamed('itemData.source').field).toBe('itemData.positionToInactivate');
    expect(renamed('itemData.destination.owner').field).toBe('itemData.transferRemainingTokenBalanceTo.owner');
    expect(renamed('itemData.unfreezeSource').field).toBe('itemData.unfreezeIfNeeded');
    expect(renamed('itemData.value').field).toBe('itemData.value');
    expect(renamed('itemData.source').context).toEqual({ a: 1 });
  });
});
