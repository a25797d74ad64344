/** Create Loan Strategy's rules: the vault payload, the collateral terms, the lender, each instrument once. */
import type { CreateLoanStrategyItemData } from '../../../src/domain/operations/loans/loan.inputs';
import {
  checkCollateralTerms,
  loanStrategyRecord,
  requireActiveLender,
  requireListedOnce,
  validateCreateLoanStrategy,
} from '../../../src/domain/operations/loans/loan-strategy.rules';
import { BOND, expectRefusal } from './fixtures';

const can = { updateDebitApiKeys: false };
const request = (fields: Partial<CreateLoanStrategyItemData> = {}): CreateLoanStrategyItemData => ({
  strategy: {},
  lender: { offchainId: 'lender' },
  principal: { financialInstrument: { offchainId: 'usd' } },
  collateral: [{ financialInstrument: { offchainId: 'bond' }, apy: [50_000], loanToValueRatio: 600_000, liquidationRatio: 800_000 }],
  ...fields,
});

describe('checkCollateralTerms', () => {
  it('takes 1 to 5 rates, a limit above 0 and a liquidation ratio above it', () => {
    expect(() => checkCollateralTerms({ apy: [1, 2, 3, 4, 5], loanToValueRatio: 1, liquidationRatio: 2 }, 'c')).not.toThrow();
    expectRefusal(() => checkCollateralTerms({ apy: [], loanToValueRatio: 1, liquidationRatio: 2 }, 'c'), 'VALIDATION_ERROR', 'c.apy');
    expectRefusal(() => checkCollateralTerms({ apy: [1, 2, 3, 4, 5, 6], loanToValueRatio: 1, liquidationRatio: 2 }, 'c'), 'VALIDATION_ERROR', 'c.apy');
    expectRefusal(() => checkCollateralTerms({ apy: [1], loanToValueRatio: 0, liquidationRatio: 2 }, 'c'), 'VALIDATION_ERROR', 'c.loanToValueRatio');
    expectRefusal(() => checkCollateralTerms({ apy: [1], loanToValueRatio: 2, liquidationRatio: 2 }, 'c'), 'VALIDATION_ERROR', 'c.liquidationRatio');
  });
});

describe('validateCreateLoanStrategy', () => {
  it('accepts a new managed vault with terms', () => {
    expect(() => validateCreateLoanStrategy(request(), can)).not.toThrow();
    expect(() => validateCreateLoanStrategy(request({ strategy: { offchainReferences: { type: 'WALLET' } } }), can)).not.toThrow();
  });

  it('refuses a vault the service does not make and manage', () => {
    expectRefusal(() => validateCreateLoanStrategy(request({ strategy: { managed: false } }), can), 'VALIDATION_ERROR', 'itemData.strategy.managed');
    expectRefusal(
      () => validateCreateLoanStrategy(request({ strategy: { alreadyOnchain: true } }), can),
      'VALIDATION_ERROR',
      'itemData.strategy.alreadyOnchain',
    );
    expectRefusal(
      () => validateCreateLoanStrategy(request({ strategy: { offchainReferences: { type: 'FUNDS_TOKEN' } } }), can),
      'VALIDATION_ERROR',
      'itemData.strategy.offchainReferences.type',
    );
  });

  it("names the account rules' fields under itemData.strategy", () => {
    const error = expectRefusal(
      () => validateCreateLoanStrategy(request({ strategy: { privateKeyDetails: { location: ['DATABASE', 'SECRETS'] } } }), can),
      'VALIDATION_ERROR',
      'itemData.strategy.privateKeyDetails.location',
    );
    expect(error.message).not.toMatch(/(^|[^.])itemData\.privateKeyDetails/);
  });

  it('needs at least one collateral, each with terms a loan can live by', () => {
    expectRefusal(() => validateCreateLoanStrategy(request({ collateral: [] }), can), 'VALIDATION_ERROR', 'itemData.collateral');
    expectRefusal(
      () =>
        validateCreateLoanStrategy(
          request({ collateral: [{ financialInstrument: { offchainId: 'b' }, apy: [1], loanToValueRatio: 5, liquidationRatio: 4 }] }),
          can,
        ),
      'VALIDATION_ERROR',
      'itemData.collateral[0].liquidationRatio',
    );
  });
});

describe('over what the lookup resolves', () => {
  it('lends from an ACTIVE lender only', () => {
    expect(() => requireActiveLender('ACTIVE')).not.toThrow();
    expect(expectRefusal(() => requireActiveLender('INACTIVE'), 'VALIDATION_ERROR', 'itemData.lender').message).toBe('the lender account is INACTIVE');
  });

  it('lists a collateral instrument once', () => {
    expect(() => requireListedOnce(['usd'], BOND, 'f')).not.toThrow();
    expectRefusal(
      () => requireListedOnce(['usd', BOND.id], BOND, 'itemData.collateral[2].financialInstrument'),
      'VALIDATION_ERROR',
      'itemData.collateral[2].financialInstrument',
    );
  });
});

describe('the record', () => {
  const strategy = {
    lender: { address: 'Lena', id: 'lena' },
    principal: { id: 'usd', mint: 'UsdMint' },
    collateral: [{ financialInstrumentId: 'bond', mintAddress: 'BondMint', apy: [50_000], loanToValueRatio: 600_000, liquidationRatio: 800_000 }],
    originationCap: '1000',
    liquidityBuffer: null,
  };
  const at = new Date('2026-01-01T00:00:00Z');

  it('lends at once and rolls nothing over unless asked, on the vault that landed', () => {
    expect(loanStrategyRecord({}, strategy, 'Vault', 'tx', at)).toEqual({
      vaultAddress: 'Vault',
      lenderAddress: 'Lena',
      lenderAccountId: 'lena',
      principalInstrumentId: 'usd',
      principalMint: 'UsdMint',
      collateral: strategy.collateral,
      collateralMints: ['BondMint'],
      originationsEnabled: true,
      originationCap: '1000',
      liquidityBuffer: null,
      rollover: false,
      creationTransactionId: 'tx',
      createdAt: at,
      updatedAt: at,
    });
    expect(loanStrategyRecord({ originationsEnabled: false, rollover: true }, strategy, 'Vault', null, at)).toMatchObject({
      originationsEnabled: false,
      rollover: true,
      creationTransactionId: null,
    });
  });
});
