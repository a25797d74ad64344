/**
 * Who signs (docs/signatures.md, "Who signs"; API.md section 10): `autoSign: false` on the lookup of
 * any signer, whatever its part, makes the write wait for it even when the service holds its key.
 */
import { autoSignOffLookups, signedBy, type SignerFacts } from '../../../src/domain/signers';

const off = { offchainId: '00000000-0000-4000-8000-000000000001', autoSign: false };
const held: SignerFacts = { feePayer: false, autoSignOff: false, awaitedByHandler: false, usableRecords: [true] };

/** Each kind of signer a request looks up, at the field its operation names it. */
const kinds: [string, { itemData: unknown; svmTransactionConfig?: unknown }, string][] = [
  ['fee payer', { itemData: {}, svmTransactionConfig: { feePayer: off } }, 'svmTransactionConfig.feePayer'],
  ['source (Transfer Network Currency)', { itemData: { source: off } }, 'itemData.source'],
  ['owner (Burn)', { itemData: { burnFrom: { position: { offchainId: 'p' }, owner: off } } }, 'itemData.burnFrom.owner'],
  ['mint authority (Mint)', { itemData: { mintTo: { owner: { offchainId: 'o' }, mintAuthority: off } } }, 'itemData.mintTo.mintAuthority'],
  ['freeze authority (Freeze Position)', { itemData: { position: { owner: { offchainId: 'o' }, freezeAuthority: off } } }, 'itemData.position.freezeAuthority'],
  ['permanent delegate (Transfer)', { itemData: { signWithPermanentDelegate: true, permanentDelegateAuthority: off } }, 'itemData.permanentDelegateAuthority'],
  ['instrument authority (Create Financial Instrument)', { itemData: { version: 'SPL', mintAuthority: off } }, 'itemData.mintAuthority'],
  ['lookup-table authority (Create Address Lookup Table)', { itemData: { authority: off } }, 'itemData.authority'],
  ['nonce authority (Create Durable Nonce Accounts)', { itemData: { numberOfNonceAccounts: 1, nonceAuthority: off } }, 'itemData.nonceAuthority'],
  ['oracle authority (Create Onchain Data Source)', { itemData: { onchainDataSourceAuthority: off } }, 'itemData.onchainDataSourceAuthority'],
  ['owner in a Trade leg', { itemData: { operations: [{}, { burn: { burnFrom: { owner: off } } }] } }, 'itemData.operations[1].burn.burnFrom.owner'],
];

describe('autoSignOffLookups', () => {
  it.each(kinds)('finds the %s looked up with autoSign: false', (_kind, request, field) => {
    expect(autoSignOffLookups(request)).toEqual([{ field, lookup: off }]);
  });

  it('finds nothing when every lookup leaves autoSign alone or says true', () => {
    const request = {
      itemData: { source: { offchainId: 'a', autoSign: true }, destination: { offchainId: 'b' } },
      svmTransactionConfig: { feePayer: { offchainId: 'c' } },
    };
    expect(autoSignOffLookups(request)).toEqual([]);
  });
});

describe('signedBy', () => {
  it.each(kinds.map(([kind]) => [kind]))('awaits the %s whose lookup says autoSign: false though the service holds its key', (kind) => {
    expect(signedBy({ ...held, feePayer: kind === 'fee payer', autoSignOff: true })).toBe('EXTERNAL');
    expect(signedBy({ ...held, feePayer: kind === 'fee payer' })).toBe('SERVICE');
  });

  it('awaits an onboarded signer none of whose records holds a key this organization may use, and one the handler awaits', () => {
    expect(signedBy({ ...held, usableRecords: [false] })).toBe('EXTERNAL');
    expect(signedBy({ ...held, usableRecords: [false, true] })).toBe('SERVICE');
    expect(signedBy({ ...held, awaitedByHandler: true })).toBe('EXTERNAL');
  });

  it('signs for a key the write itself makes (no record), and for the fee payer the handler checked, unless told not to', () => {
    expect(signedBy({ ...held, usableRecords: [] })).toBe('SERVICE');
    expect(signedBy({ ...held, feePayer: true, usableRecords: [false] })).toBe('SERVICE');
    expect(signedBy({ ...held, feePayer: true, usableRecords: [], autoSignOff: true })).toBe('EXTERNAL');
  });
});
