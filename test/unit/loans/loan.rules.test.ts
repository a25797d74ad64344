/** The rules every loan write shares: borrower, hold, vault, positive amounts, items out of the escrow. */
import {
  acceptedTerms,
  checkOutOfEscrow,
  positiveUnits,
  requireBorrowerOwns,
  requireFeePayer,
  requireHold,
  requireLoanBorrower,
  requireLoanOfEscrow,
  requireOwnerAndInstrument,
  requireUnsettled,
  requireVaultFunded,
  withLoanFieldNames,
} from '../../../src/domain/operations/loans/loan.rules';
import { conflict, LedgerError, validationError } from '../../../src/domain/errors';
import { BOND, expectRefusal, loan, OTHER, strategy, USD } from './fixtures';

const at = { position: { offchainId: 'p' } };

describe('the borrower and the loan', () => {
  it('needs the fee payer named, and answers it', () => {
    expect(requireFeePayer({ offchainId: 'b' })).toEqual({ offchainId: 'b' });
    expectRefusal(() => requireFeePayer(undefined), 'VALIDATION_ERROR', 'svmTransactionConfig.feePayer');
  });

  it('needs a position lookup to name the position, or its owner and instrument', () => {
    expect(requireOwnerAndInstrument({ owner: { offchainId: 'o' }, financialInstrument: { offchainId: 'i' } }, 'f')).toEqual({
      owner: { offchainId: 'o' },
      financialInstrument: { offchainId: 'i' },
    });
    expectRefusal(
      () => requireOwnerAndInstrument({ owner: { offchainId: 'o' } }, 'itemData.itemsToPledge[0].positionLookup'),
      'VALIDATION_ERROR',
      'itemData.itemsToPledge[0].positionLookup',
    );
    expectRefusal(() => requireOwnerAndInstrument({ financialInstrument: { offchainId: 'i' } }, 'f'), 'VALIDATION_ERROR', 'f');
  });

  it('takes items of the borrower only', () => {
    expect(() => requireBorrowerOwns('Borrower', 'Borrower', 'f')).not.toThrow();
    const error = expectRefusal(
      () => requireBorrowerOwns('Someone', 'Borrower', 'itemData.itemsToBorrow[0].positionLookup'),
      'VALIDATION_ERROR',
      'itemData.itemsToBorrow[0].positionLookup',
    );
    expect(error.message).toContain('belongs to Someone');
  });

  it('takes a write on a loan from its borrower only', () => {
    expect(() => requireLoanBorrower(loan(), 'Borrower')).not.toThrow();
    expectRefusal(() => requireLoanBorrower(loan(), 'Lender'), 'VALIDATION_ERROR', 'svmTransactionConfig.feePayer');
  });

  it('refuses a write on a loan another write holds, naming that write', () => {
    expect(() => requireHold(true, null)).not.toThrow();
    expect(expectRefusal(() => requireHold(false, 'tx-1'), 'CONFLICT', 'itemData.escrow').message).toContain('transaction tx-1');
    expect(expectRefusal(() => requireHold(false, null), 'CONFLICT', 'itemData.escrow').message).toContain('transaction unknown');
  });

  it('moves an OPEN or OVERDUE loan only', () => {
    expect(() => requireUnsettled('OPEN', 'm')).not.toThrow();
    expect(() => requireUnsettled('OVERDUE', 'm')).not.toThrow();
    for (const status of ['REPAID', 'LIQUIDATED', 'CLOSED'])
      expect(expectRefusal(() => requireUnsettled(status, 'the loan is settled'), 'CONFLICT', 'itemData.escrow').message).toBe('the loan is settled');
  });

  it('lends from a funded vault only', () => {
    const position = { id: 'v' };
    expect(requireVaultFunded(position, 'Vault', USD.mintAddress, 'f')).toBe(position);
    expectRefusal(
      () => requireVaultFunded(null, 'Vault', USD.mintAddress, 'itemData.protocolDetails.loanStrategyAddress'),
      'CONFLICT',
      'itemData.protocolDetails.loanStrategyAddress',
    );
  });
});

describe('amounts and collateral', () => {
  it('takes an amount more than zero, in base units', () => {
    expect(positiveUnits({ amount: '1.5' }, 6, 'f')).toBe(1_500_000n);
    expect(positiveUnits({ lamports: '1' }, 6, 'f')).toBe(1n);
    expectRefusal(() => positiveUnits({ amount: '0' }, 6, 'itemData.itemsToBorrow[0].value'), 'VALIDATION_ERROR', 'itemData.itemsToBorrow[0].value');
  });

  it("answers the strategy's terms for a collateral it accepts, and refuses one it does not", () => {
    expect(acceptedTerms(strategy(), BOND, 'f').financialInstrumentId).toBe(BOND.id);
    expectRefusal(
      () => acceptedTerms(strategy(), OTHER, 'itemData.itemsToDeposit[0].positionLookup'),
      'VALIDATION_ERROR',
      'itemData.itemsToDeposit[0].positionLookup',
    );
  });
});

describe('an item out of the escrow (a release, a withdrawal)', () => {
  const held = new Map([[BOND.id, 20_000n]]);
  const p = 'itemData.itemsToRelease[0]';

  it('answers the pledged item, the value and its units, up to what the escrow holds exactly', () => {
    expect(checkOutOfEscrow(loan(), BOND, { positionLookup: at, value: { amount: '200' } }, p, 'release', held)).toEqual({
      pledged: loan().pledged[0],
      value: { amount: '200' },
      amount: 20_000n,
    });
  });

  it("refuses one unit more than the escrow holds (after the write's earlier items)", () => {
    expect(
      expectRefusal(
        () => checkOutOfEscrow(loan(), BOND, { positionLookup: at, value: { lamports: '20001' } }, p, 'release', held),
        'VALIDATION_ERROR',
        `${p}.value`,
      ).message,
    ).toBe('the escrow holds 200 of BondMint');
    expectRefusal(
      () => checkOutOfEscrow(loan(), BOND, { positionLookup: at, value: { lamports: '1' } }, p, 'release', new Map()),
      'VALIDATION_ERROR',
      `${p}.value`,
    );
  });

  it('refuses an instrument the loan does not hold', () => {
    expectRefusal(
      () => checkOutOfEscrow(loan(), USD, { positionLookup: at, value: { amount: '1' } }, p, 'release', held),
      'VALIDATION_ERROR',
      `${p}.positionLookup`,
    );
  });

  it.each([
    [{ repayAll: true }, 'repayAll'],
    [{ transferFrom: at }, 'transferFrom'],
    [{ mintAsset: true }, 'mintAsset'],
  ])('takes positionLookup and value only (%o)', (extra, name) => {
    const error = expectRefusal(
      () => checkOutOfEscrow(loan(), BOND, { positionLookup: at, value: { amount: '1' }, ...extra }, 'itemData.itemsToWithdraw[1]', 'withdrawal', held),
      'VALIDATION_ERROR',
      `itemData.itemsToWithdraw[1].${name}`,
    );
    expect(error.message).toBe('a withdrawal takes positionLookup and value only');
  });

  it('needs a value more than zero', () => {
    expect(expectRefusal(() => checkOutOfEscrow(loan(), BOND, { positionLookup: at }, p, 'release', held), 'VALIDATION_ERROR', `${p}.value`).message).toBe(
      'give the value to release',
    );
    expect(expectRefusal(() => checkOutOfEscrow(loan(), BOND, { positionLookup: at }, p, 'withdrawal', held), 'VALIDATION_ERROR', `${p}.value`).message).toBe(
      'give the value to withdraw',
    );
    expect(
      expectRefusal(() => checkOutOfEscrow(loan(), BOND, { positionLookup: at, value: { amount: '0' } }, p, 'release', held), 'VALIDATION_ERROR', `${p}.value`)
        .message,
    ).toBe('the amount must be more than zero');
  });
});

describe('a loan request names its own fields', () => {
  it("answers the escrow's loan, or 404 naming the escrow when it is none", () => {
    expect(requireLoanOfEscrow(loan(), 'E', 'itemData.escrow')).toEqual(loan());
    expectRefusal(() => requireLoanOfEscrow(null, 'Escrow111', 'itemData.escrow'), 'NOT_FOUND', 'itemData.escrow');
    expect(() => requireLoanOfEscrow(null, 'Escrow111', 'f')).toThrow('account Escrow111 is not the escrow of a loan');
  });

  it("renames a movement rule's refusal to the loan request's field, the longest name first, keeping code and message", () => {
    const p = 'itemData.itemsToRepay[0]';
    const names = { [`${p}.source`]: `${p}.positionLookup`, [`${p}.source.owner`]: `${p}.transferFrom` };
    const renamed = withLoanFieldNames(validationError(`${p}.source.position`, `${p}.source.position is frozen`), names) as LedgerError;
    expect([renamed.code, renamed.field, renamed.message]).toEqual([
      'VALIDATION_ERROR',
      `${p}.positionLookup.position`,
      `${p}.positionLookup.position is frozen`,
    ]);
    expect((withLoanFieldNames(conflict(`${p}.source.owner`, 'x'), names) as LedgerError).field).toBe(`${p}.transferFrom`);
  });

  it('leaves alone what it does not name: another field, a refusal without field, any other error', () => {
    const other = conflict('itemData.escrow', 'held');
    expect(withLoanFieldNames(other, { 'itemData.items': 'x' })).toBe(other);
    const plain = new Error('boom');
    expect(withLoanFieldNames(plain, { 'itemData.items': 'x' })).toBe(plain);
    const fieldless = new LedgerError('CONFLICT', 'no field');
    expect(withLoanFieldNames(fieldless, { 'itemData.items': 'x' })).toBe(fieldless);
  });
});
