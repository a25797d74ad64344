/** `npm start`'s development key: the saved key is printed again while it is valid; a new one replaces the earlier ones. */
import { planDevApiKey, type KnownKey } from '../../dev/dev-api-key';
import { hashApiKey } from '../../src/custody/credentials';

const ALL = ['LEDGER_READ', 'LEDGER_WRITE', 'LEDGER_FETCH_PRIVATE_KEY', 'LEDGER_UPDATE_DEBIT_API_KEYS', 'LEDGER_APPROVE', 'LEDGER_ADMIN'];
const key = (id: string, apiKey: string, options: Partial<KnownKey> = {}): KnownKey => ({
  id,
  keyHash: hashApiKey(apiKey),
  roles: ALL,
  revokedAt: null,
  ...options,
});

describe('planDevApiKey', () => {
  it('reuses the saved key while the database holds it unrevoked with every role (in any order)', () => {
    const keys = [key('k1', 'lk_saved', { roles: [...ALL].reverse() })];
    expect(planDevApiKey('lk_saved', keys, ALL)).toEqual({ action: 'reuse', apiKey: 'lk_saved' });
  });

  it('mints on a first start, with nothing to revoke', () => {
    expect(planDevApiKey(null, [], ALL)).toEqual({ action: 'mint', revoke: [] });
  });

  it("mints when the saved key is not in the database (reset) and revokes earlier starts' all-roles keys, not other keys", () => {
    const keys = [key('old-1', 'lk_a'), key('old-2', 'lk_b'), key('reader', 'lk_c', { roles: ['LEDGER_READ'] })];
    expect(planDevApiKey('lk_gone', keys, ALL)).toEqual({ action: 'mint', revoke: ['old-1', 'old-2'] });
    expect(planDevApiKey(null, keys, ALL)).toEqual({ action: 'mint', revoke: ['old-1', 'old-2'] });
  });

  it('mints when the saved key was revoked or no longer has the roles a start gives (another PLATFORM_NAME)', () => {
    expect(planDevApiKey('lk_saved', [key('k1', 'lk_saved', { revokedAt: new Date() })], ALL)).toEqual({ action: 'mint', revoke: [] });
    const renamed = ALL.map((r) => r.replace('LEDGER_', 'ACME_'));
    expect(planDevApiKey('lk_saved', [key('k1', 'lk_saved')], renamed)).toEqual({ action: 'mint', revoke: [] });
  });
});
