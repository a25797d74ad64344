import { hasRole, parseRoles } from '../../src/domain/roles';

describe('parseRoles: roles given to an API key', () => {
  it('reads a comma-separated list with the default LEDGER platform', () => {
    expect(parseRoles('LEDGER', 'LEDGER_READ,LEDGER_WRITE')).toEqual(['READ', 'WRITE']);
  });

  it('tolerates spaces and empty items', () => {
    expect(parseRoles('LEDGER', ' LEDGER_READ , ,LEDGER_UPDATE_DEBIT_API_KEYS ')).toEqual(['READ', 'UPDATE_DEBIT_API_KEYS']);
  });

  it('reads every documented role', () => {
    const all = 'LEDGER_READ,LEDGER_WRITE,LEDGER_FETCH_PRIVATE_KEY,LEDGER_UPDATE_DEBIT_API_KEYS,LEDGER_APPROVE,LEDGER_ADMIN';
    expect(parseRoles('LEDGER', all)).toEqual(['READ', 'WRITE', 'FETCH_PRIVATE_KEY', 'UPDATE_DEBIT_API_KEYS', 'APPROVE', 'ADMIN']);
  });

  it('uses a custom platform prefix', () => {
    expect(parseRoles('ACME', 'ACME_ADMIN,ACME_APPROVE')).toEqual(['ADMIN', 'APPROVE']);
  });

  it("refuses another platform's prefix, listing the valid names", () => {
    expect(() => parseRoles('ACME', 'LEDGER_READ')).toThrow(/unknown role "LEDGER_READ".*ACME_READ/);
  });

  it('refuses an unknown role and a role without prefix', () => {
    expect(() => parseRoles('LEDGER', 'LEDGER_SUPERUSER')).toThrow('unknown role "LEDGER_SUPERUSER"');
    expect(() => parseRoles('LEDGER', 'READ')).toThrow('unknown role "READ"');
  });

  it('refuses an empty list', () => {
    expect(() => parseRoles('LEDGER', ' , ')).toThrow('at least one role');
  });
});

describe('hasRole: what an API key may do', () => {
  it('grants exactly the roles held', () => {
    expect(hasRole(['LEDGER_READ'], 'LEDGER', 'READ')).toBe(true);
    expect(hasRole(['LEDGER_READ'], 'LEDGER', 'WRITE')).toBe(false);
    expect(hasRole(['LEDGER_WRITE'], 'LEDGER', 'UPDATE_DEBIT_API_KEYS')).toBe(false);
  });

  it('ADMIN implies every role', () => {
    for (const role of ['READ', 'WRITE', 'FETCH_PRIVATE_KEY', 'UPDATE_DEBIT_API_KEYS', 'APPROVE', 'ADMIN'] as const) {
      expect(hasRole(['LEDGER_ADMIN'], 'LEDGER', role)).toBe(true);
    }
  });

  it('roles of another platform grant nothing', () => {
    expect(hasRole(['LEDGER_ADMIN', 'LEDGER_READ'], 'ACME', 'READ')).toBe(false);
    expect(hasRole(['ACME_ADMIN'], 'ACME', 'FETCH_PRIVATE_KEY')).toBe(true);
  });

  it('no roles grant nothing', () => {
    expect(hasRole([], 'LEDGER', 'READ')).toBe(false);
  });
});
