/** The position rules over the request's shape and looked-up state (the handlers look up, these decide): each refusal's code and field, and the good case. */
import { checkPositionsToChange, requireFreezeAuthority, validateFreezePosition } from '../../../src/domain/operations/positions/freeze-position.rules';
import { checkRefundDestination } from '../../../src/domain/operations/positions/inactivate-position.rules';
import { checkExplicitAccount, checkNotActive, requireThawAuthority } from '../../../src/domain/operations/positions/initialize-position.rules';
import {
  checkDistinctEnds,
  checkHookAccounts,
  checkInstrumentMovable,
  checkPermanentDelegate,
  checkPositiveAmount,
  checkSameInstrument,
  freezeOptionAuthority,
  tradeKinds,
  transferDestinationState,
} from '../../../src/domain/operations/positions/movement.rules';
import { checkInstrumentActive, checkOwnerActive, checkPositionActive } from '../../../src/domain/operations/positions/position.rules';
import { refusal } from '../../support/expectations';

const A = 'Addr1111111111111111111111111111111111111111';
const B = 'Addr2222222222222222222222222222222222222222';
const F = 'itemData.position';

describe('the records a position write names', () => {
  it('wants an active position, instrument and owner account', () => {
    expect(refusal(() => checkPositionActive({ status: 'INACTIVE' }, F))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: F,
      message: 'the position is INACTIVE',
    });
    expect(refusal(() => checkInstrumentActive({ status: 'CLOSED' }, `${F}.financialInstrument`))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: `${F}.financialInstrument`,
    });
    expect(refusal(() => checkOwnerActive({ status: 'CLOSED' }, `${F}.owner`))).toMatchObject({ code: 'VALIDATION_ERROR', field: `${F}.owner` });
    expect(() => checkPositionActive({ status: 'ACTIVE' }, F)).not.toThrow();
    expect(() => checkInstrumentActive({ status: 'ACTIVE' }, F)).not.toThrow();
    expect(() => checkOwnerActive({ status: 'ACTIVE' }, F)).not.toThrow();
  });
});

describe('Freeze / Unfreeze Position', () => {
  it('takes one position, or an instrument with allPositions, naming the field at fault', () => {
    const position = { owner: { onchainId: A } };
    const instrument = { onchainId: B };
    const cases: [object, string][] = [
      [{ position, allPositions: true }, 'itemData.allPositions'],
      [{ position, financialInstrument: instrument }, 'itemData.financialInstrument'],
      [{ financialInstrument: instrument }, 'itemData.allPositions'],
      [{ allPositions: true }, 'itemData.financialInstrument'],
      [{}, 'itemData.position'],
    ];
    for (const [item, field] of cases)
      expect(refusal(() => validateFreezePosition(item))).toMatchObject({
        code: 'VALIDATION_ERROR',
        field,
        message: expect.stringMatching(new RegExp(`^${field} `)),
      });
    expect(() => validateFreezePosition({ position })).not.toThrow();
    expect(() => validateFreezePosition({ financialInstrument: instrument, allPositions: true })).not.toThrow();
  });

  it('needs the instrument to have a freeze authority', () => {
    expect(refusal(() => requireFreezeAuthority(null, 'itemData.financialInstrument'))).toMatchObject({
      code: 'FREEZE_AUTHORITY_NOT_FOUND',
      field: 'itemData.financialInstrument',
    });
    expect(requireFreezeAuthority({ accountId: 'a' }, F)).toEqual({ accountId: 'a' });
  });

  it('refuses allPositions when every position is already in the state asked for', () => {
    expect(refusal(() => checkPositionsToChange(0, true))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.allPositions',
      message: expect.stringContaining('already frozen'),
    });
    expect(refusal(() => checkPositionsToChange(0, false)).message).toContain('already unfrozen');
    expect(() => checkPositionsToChange(3, true)).not.toThrow();
  });
});

describe('Initialize Position', () => {
  const account = { address: A, canPayFees: false, globalFeePayerForOrgs: [] };
  const field = 'itemData.positionToInitialize.position';

  it('turns only a fresh, non-fee-paying account other than the owner into an explicit position', () => {
    expect(refusal(() => checkExplicitAccount(account, true, B, field))).toMatchObject({ code: 'CONFLICT', field });
    expect(refusal(() => checkExplicitAccount(account, false, A, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: expect.stringContaining('its own owner'),
    });
    expect(refusal(() => checkExplicitAccount({ ...account, canPayFees: true }, false, B, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: expect.stringContaining('pays fees'),
    });
    expect(refusal(() => checkExplicitAccount({ ...account, globalFeePayerForOrgs: ['org'] }, false, B, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
    });
    expect(() => checkExplicitAccount(account, false, B, field)).not.toThrow();
  });

  it('refuses an active position (409) and reopens an inactive one', () => {
    expect(refusal(() => checkNotActive({ status: 'ACTIVE' }, A, 'itemData.positionToInitialize'))).toMatchObject({
      code: 'CONFLICT',
      field: 'itemData.positionToInitialize',
    });
    expect(() => checkNotActive({ status: 'INACTIVE' }, A, 'itemData.positionToInitialize')).not.toThrow();
    expect(() => checkNotActive(null, A, 'itemData.positionToInitialize')).not.toThrow();
  });

  it('thaws only with an onboarded freeze authority', () => {
    expect(refusal(() => requireThawAuthority(null))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.unfreeze' });
    expect(requireThawAuthority({ address: A })).toEqual({ address: A });
  });
});

describe('Inactivate Position', () => {
  it('refunds the rent anywhere but the closed account', () => {
    expect(refusal(() => checkRefundDestination(A, A))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.refundNetworkCurrrencyDestination' });
    expect(() => checkRefundDestination(B, A)).not.toThrow();
  });
});

describe('Mint, Burn, Transfer, Trade', () => {
  it('moves units only in an active, unpaused instrument', () => {
    const field = 'itemData.mintTo.financialInstrument';
    expect(refusal(() => checkInstrumentMovable({ status: 'CLOSED', paused: false }, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: 'the instrument is CLOSED',
    });
    expect(refusal(() => checkInstrumentMovable({ status: 'ACTIVE', paused: true }, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: 'the instrument is paused',
    });
    expect(() => checkInstrumentMovable({ status: 'ACTIVE', paused: null }, field)).not.toThrow();
  });

  it('mints more than zero', () => {
    expect(refusal(() => checkPositiveAmount(0n, 'itemData.value'))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.value' });
    expect(() => checkPositiveAmount(1n, 'itemData.value')).not.toThrow();
  });

  it('signs with the permanent delegate only of a Token-2022 instrument that has one', () => {
    const field = 'itemData.signWithPermanentDelegate';
    expect(refusal(() => checkPermanentDelegate({ version: 'SPL', hasPermanentDelegate: true }, 'itemData'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
    });
    expect(refusal(() => checkPermanentDelegate({ version: 'TOKEN_2022', hasPermanentDelegate: false }, 'itemData'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
    });
    expect(() => checkPermanentDelegate({ version: 'TOKEN_2022', hasPermanentDelegate: true }, 'itemData')).not.toThrow();
  });

  it("decides a transfer's destination: the active one, or one opened on the way", () => {
    const field = 'itemData.destination';
    const found = (over: object = {}) => ({ financialInstrumentId: 'fi', status: 'ACTIVE', associated: true, ...over });
    expect(refusal(() => transferDestinationState(found({ financialInstrumentId: 'other' }), 'fi', {}, true, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: expect.stringContaining('same instrument'),
    });
    expect(transferDestinationState(found(), 'fi', {}, undefined, field)).toBe('active');
    expect(refusal(() => transferDestinationState(found({ status: 'INACTIVE' }), 'fi', {}, false, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: expect.stringContaining('initializeDestinationPositionIfNeeded'),
    });
    expect(refusal(() => transferDestinationState(found({ status: 'INACTIVE', associated: false }), 'fi', {}, true, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: expect.stringContaining('explicit'),
    });
    expect(refusal(() => transferDestinationState(null, 'fi', {}, true, field))).toMatchObject({ code: 'VALIDATION_ERROR', field: `${field}.owner` });
    expect(transferDestinationState(null, 'fi', { owner: { onchainId: A } }, true, field)).toBe('open');
    expect(transferDestinationState(found({ status: 'INACTIVE' }), 'fi', {}, true, field)).toBe('open');
  });

  it('transfers between two positions of one instrument', () => {
    expect(refusal(() => checkSameInstrument('a', 'b', 'itemData.destination.financialInstrument'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.destination.financialInstrument',
    });
    expect(() => checkSameInstrument('a', 'a', 'itemData.destination.financialInstrument')).not.toThrow();
    expect(refusal(() => checkDistinctEnds('p', 'p', 'itemData'))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.destination' });
    expect(() => checkDistinctEnds('p', 'q', 'itemData')).not.toThrow();
  });

  it('refuses a transfer hook asking for a signature the service does not give', () => {
    const field = 'itemData.source.financialInstrument';
    expect(
      refusal(() =>
        checkHookAccounts(
          [
            { address: A, role: 'readonly' },
            { address: B, role: 'writable_signer' },
          ],
          field,
        ),
      ),
    ).toMatchObject({ code: 'VALIDATION_ERROR', field, message: expect.stringContaining(B) });
    expect(checkHookAccounts([{ address: A, role: 'writable' }], field)).toEqual([{ address: A, role: 'writable' }]);
  });

  it('refuses a transfer hook whose accounts cannot be resolved, naming the instrument', () => {
    const field = 'itemData.source.financialInstrument';
    expect(refusal(() => checkHookAccounts({ unresolvable: 'no validation account' }, field))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: "the transfer hook's accounts cannot be resolved: no validation account",
    });
  });

  it('freezes and thaws only Token-2022 instruments with a freeze authority, naming the first option set', () => {
    const options: [string, boolean | undefined][] = [
      ['itemData.unfreeze', false],
      ['itemData.freeze', true],
    ];
    expect(refusal(() => freezeOptionAuthority({ version: 'SPL', mintAddress: A, freezeAuthority: { accountId: 'f' } }, options))).toMatchObject({
      code: 'FREEZE_AUTHORITY_NOT_FOUND',
      field: 'itemData.freeze',
    });
    expect(refusal(() => freezeOptionAuthority({ version: 'TOKEN_2022', mintAddress: A, freezeAuthority: null }, options))).toMatchObject({
      code: 'FREEZE_AUTHORITY_NOT_FOUND',
      field: 'itemData.freeze',
    });
    expect(freezeOptionAuthority({ version: 'SPL', mintAddress: A, freezeAuthority: null }, [['itemData.freeze', undefined]])).toBeNull();
    expect(freezeOptionAuthority({ version: 'TOKEN_2022', mintAddress: A, freezeAuthority: { accountId: 'f' } }, options)).toEqual({ accountId: 'f' });
  });

  it('takes a trade of operations holding one movement each', () => {
    expect(refusal(() => tradeKinds([]))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.operations' });
    expect(refusal(() => tradeKinds([{ mint: {} }, { mint: {}, burn: {} }]))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.operations[1]' });
    expect(refusal(() => tradeKinds([{}]))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.operations[0]' });
    expect(tradeKinds([{ mint: {} }, { burn: {} }, { transfer: {} }])).toEqual(['mint', 'burn', 'transfer']);
  });
});
