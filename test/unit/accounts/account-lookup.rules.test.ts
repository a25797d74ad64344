/** The account rules over looked-up state (the handlers look up, these decide): each refusal's code and field, and the good case. */
import { checkNotOnboarded, checkOnchainExistence, checkOwnAccount, thresholdPlayers } from '../../../src/domain/operations/accounts/create-account.rules';
import { checkInactivatable, checkSweep } from '../../../src/domain/operations/accounts/inactivate-account.rules';
import { checkDistinct } from '../../../src/domain/operations/accounts/transfer-network-currency.rules';
import { checkUpdatable } from '../../../src/domain/operations/accounts/update-account.rules';
import { refusal } from '../../support/expectations';

const A = 'Addr1111111111111111111111111111111111111111';
const B = 'Addr2222222222222222222222222222222222222222';
const own = { organizationId: 'org-a', status: 'ACTIVE' };

describe('Create Account', () => {
  it('refuses an address already onboarded (409 on itemData.onchainId)', () => {
    expect(refusal(() => checkNotOnboarded(A, true))).toMatchObject({ code: 'CONFLICT', field: 'itemData.onchainId' });
    expect(() => checkNotOnboarded(A, false)).not.toThrow();
  });

  it('wants an onboarded account on chain unless the check is skipped, and a new one not yet there', () => {
    expect(refusal(() => checkOnchainExistence({ alreadyOnchain: true }, A, 'LOCAL', false))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.onchainId',
    });
    expect(() => checkOnchainExistence({ alreadyOnchain: true }, A, 'LOCAL', true)).not.toThrow();
    expect(() => checkOnchainExistence({ alreadyOnchain: true, skipBlockchainExistenceVerification: true }, A, 'LOCAL', false)).not.toThrow();
    expect(refusal(() => checkOnchainExistence({}, A, 'LOCAL', true))).toMatchObject({ code: 'CONFLICT', field: 'itemData.onchainId' });
    expect(() => checkOnchainExistence({}, A, 'LOCAL', false)).not.toThrow();
  });

  it('takes only configured backend players, enough for the threshold', () => {
    const key = (players: string[] | undefined, threshold: number) => ({ useBackendPlayersCodes: players, session: { threshold } });
    expect(refusal(() => thresholdPlayers(key(['p1', 'p9'], 2), ['p1', 'p2', 'p3']))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.privateKeyDetails.dkgKeys[0].useBackendPlayersCodes',
    });
    expect(refusal(() => thresholdPlayers(key(['p1', 'p2'], 3), ['p1', 'p2', 'p3']))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.privateKeyDetails.dkgKeys[0].session.threshold',
    });
    expect(thresholdPlayers(key(undefined, 3), ['p1', 'p2', 'p3'])).toEqual({ players: ['p1', 'p2', 'p3'], threshold: 3 });
  });

  it("refuses another organization's account (403 on the field named)", () => {
    expect(refusal(() => checkOwnAccount(own, 'org-b', 'itemData.account', 'change it'))).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.account' });
    expect(() => checkOwnAccount(own, 'org-a', 'itemData.account', 'change it')).not.toThrow();
  });
});

describe('Update Account', () => {
  it("changes only this organization's ACTIVE account", () => {
    expect(refusal(() => checkUpdatable(own, 'org-b'))).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.account' });
    expect(refusal(() => checkUpdatable({ ...own, status: 'CLOSED' }, 'org-a'))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.account' });
    expect(() => checkUpdatable(own, 'org-a')).not.toThrow();
  });
});

describe('Inactivate Account', () => {
  const f = 'itemData.accountToInactivate';
  it("inactivates only this organization's ACTIVE account with no active position and no active instrument's mint", () => {
    expect(refusal(() => checkInactivatable(own, 'org-b', 0, false))).toMatchObject({ code: 'FORBIDDEN', field: f });
    expect(refusal(() => checkInactivatable({ ...own, status: 'CLOSED' }, 'org-a', 0, false))).toMatchObject({ code: 'VALIDATION_ERROR', field: f });
    expect(refusal(() => checkInactivatable(own, 'org-a', 1, false))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: f,
      message: expect.stringContaining('1 active position'),
    });
    expect(refusal(() => checkInactivatable(own, 'org-a', 0, true))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: f,
      message: expect.stringContaining('mint of an active financial instrument'),
    });
    expect(() => checkInactivatable(own, 'org-a', 0, false)).not.toThrow();
  });

  it('sweeps elsewhere, and not with the account paying its own fee', () => {
    expect(refusal(() => checkSweep(A, A))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.transferRemainingNetworkCurrencyTo' });
    expect(refusal(() => checkSweep(A, undefined, A))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'svmTransactionConfig.feePayer' });
    expect(() => checkSweep(A, B, B)).not.toThrow();
  });
});

describe('Transfer Network Currency', () => {
  it('refuses a transfer to its own source', () => {
    expect(refusal(() => checkDistinct(A, A))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.destination' });
    expect(() => checkDistinct(A, B)).not.toThrow();
  });
});
