/** The financial instrument rules over looked-up state (the handlers look up, these decide and map): each refusal's code and field, and the good case. */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, getMintEncoder } from '@solana-program/token-2022';
import { address, none, some } from '@solana/kit';
import { checkClosableMint } from '../../../src/domain/operations/financial-instruments/close-financial-instrument.rules';
import {
  authorityReferences,
  checkAlIdFree,
  checkMintNotOnboarded,
  checkMintRecordUnchanged,
  checkNewMint,
  checkNotAMint,
  finalMintSize,
  givenAlId,
  initialMintSize,
  instrumentRecord,
  mintAccountRecord,
  newAlIdType,
  onboardedMint,
  preCreatedMintChanges,
  preCreatedMintTopUp,
  signingAuthority,
  signsCreation,
  type CreatedInstrument,
} from '../../../src/domain/operations/financial-instruments/create-financial-instrument.rules';
import type { CreateFinancialInstrumentItemData } from '../../../src/domain/operations/financial-instruments/financial-instrument.inputs';
import { onboardedAuthority } from '../../../src/domain/operations/financial-instruments/instrument-authority.rules';
import { chainMetadata, checkUpdatable, currentAuthority } from '../../../src/domain/operations/financial-instruments/update-financial-instrument.rules';
import { refusal } from '../../support/expectations';

const MINT = 'So11111111111111111111111111111111111111112';
const AUTHORITY = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const lookup = { offchainId: '5d1f8a4c-2b7e-4c3d-9f6a-1e2b3c4d5e6f' };
const item = (extra: Partial<CreateFinancialInstrumentItemData> = {}) =>
  ({ version: 'TOKEN_2022', onchainData: { decimals: 2 }, mintAuthority: lookup, ...extra }) as CreateFinancialInstrumentItemData;
const onboarding = (extra: Partial<CreateFinancialInstrumentItemData> = {}) =>
  ({
    version: 'SPL',
    onchainData: { decimals: 2 },
    alreadyOnChain: true,
    existingMintAccount: { onchainId: MINT },
    ...extra,
  }) as CreateFinancialInstrumentItemData;
const mintBytes = (decimals = 2) =>
  new Uint8Array(
    getMintEncoder().encode({
      mintAuthority: some(address(AUTHORITY)),
      supply: 0n,
      decimals,
      isInitialized: true,
      freezeAuthority: none(),
      extensions: none(),
    }),
  );

describe('the authority an instrument write is signed by (Pause, Unpause, Close)', () => {
  it('must be onboarded', () => {
    expect(refusal(() => onboardedAuthority(null, 'pausable authority'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.financialInstrument',
      message: 'the pausable authority is not onboarded, so the service cannot sign for it',
    });
    expect(refusal(() => onboardedAuthority(undefined, 'closing authority'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.financialInstrument',
      message: 'the closing authority is not onboarded, so the service cannot sign for it',
    });
    expect(onboardedAuthority({ address: AUTHORITY }, 'pausable authority')).toEqual({ address: AUTHORITY });
  });
});

describe('Close Financial Instrument: the mint on the chain', () => {
  it('must be there, with no supply', () => {
    expect(refusal(() => checkClosableMint(MINT, 'LOCAL', null))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.financialInstrument',
      message: `the mint ${MINT} is not on LOCAL`,
    });
    expect(refusal(() => checkClosableMint(MINT, 'LOCAL', 5n))).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.financialInstrument' });
    expect(() => checkClosableMint(MINT, 'LOCAL', 0n)).not.toThrow();
  });
});

describe('Update Financial Instrument over the stored instrument and the chain', () => {
  it("changes only this organization's ACTIVE instrument", () => {
    const own = { organizationId: 'org-a', status: 'ACTIVE' };
    expect(refusal(() => checkUpdatable(own, 'org-b'))).toMatchObject({ code: 'FORBIDDEN', field: 'itemData.financialInstrument' });
    expect(refusal(() => checkUpdatable({ ...own, status: 'CLOSED' }, 'org-a'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.financialInstrument',
      message: 'the instrument is CLOSED',
    });
    expect(() => checkUpdatable(own, 'org-a')).not.toThrow();
  });

  it('rotates only an authority the instrument has', () => {
    const ref = { address: AUTHORITY, accountId: null };
    expect(refusal(() => currentAuthority({}, 'freezeAuthority'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.freezeAuthority',
      message: 'the instrument has no freezeAuthority to rotate',
    });
    expect(currentAuthority({ freezeAuthority: ref }, 'freezeAuthority')).toBe(ref);
  });

  it('sizes the top-up from Token Metadata the chain holds', () => {
    const metadata = { name: 'Bond', symbol: 'BND', uri: 'https://example.test/bond.json', additional: {} };
    const chain = {
      version: 'TOKEN_2022' as const,
      decimals: 2,
      supply: 0n,
      authorities: {},
      extensions: ['METADATA_POINTER' as const, 'TOKEN_METADATA' as const],
      metadata,
      defaultPositionState: null,
      paused: null,
      scaledUiAmountMultiplier: null,
    };
    for (const onchain of [null, { lamports: 10n, instrument: undefined }, { lamports: 10n, instrument: { ...chain, metadata: null } }]) {
      expect(refusal(() => chainMetadata(MINT, 'LOCAL', onchain))).toMatchObject({
        code: 'VALIDATION_ERROR',
        field: 'itemData.financialInstrument',
        message: `the mint ${MINT} has no Token Metadata on LOCAL`,
      });
    }
    expect(chainMetadata(MINT, 'LOCAL', { lamports: 10n, instrument: chain })).toEqual({ extensions: chain.extensions, metadata, lamports: 10n });
  });
});

describe('Create Financial Instrument: the AL ID', () => {
  const refs = 'itemData.mintAccount.offchainReferences';
  it('takes a given AL ID that is well formed, of a type its reference type goes with, and free', () => {
    expect(refusal(() => givenAlId('AL-NOT-ONE', undefined))).toMatchObject({ code: 'VALIDATION_ERROR', field: `${refs}.alId` });
    expect(refusal(() => givenAlId('ALEQYSTC12345678', 'CURRENCY_TOKEN'))).toMatchObject({ code: 'VALIDATION_ERROR', field: `${refs}.type` });
    expect(givenAlId('ALEQYSTC12345678', undefined)).toEqual({ alId: 'ALEQYSTC12345678', referenceType: 'ASSET_TOKEN' });
    expect(refusal(() => checkAlIdFree('ALEQYSTC12345678', true))).toMatchObject({ code: 'CONFLICT', field: `${refs}.alId` });
    expect(() => checkAlIdFree('ALEQYSTC12345678', false)).not.toThrow();
  });

  it('generates one only for a given financialInstrumentType', () => {
    expect(refusal(() => newAlIdType({}))).toMatchObject({ code: 'VALIDATION_ERROR', field: `${refs}.newAlId.financialInstrumentType` });
    expect(refusal(() => newAlIdType({ newAlId: { financialInstrumentType: 'STOCK' }, type: 'CURRENCY_TOKEN' }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: `${refs}.type`,
    });
    expect(newAlIdType({ newAlId: { financialInstrumentType: 'STOCK' } })).toEqual({ type: 'STOCK', referenceType: 'ASSET_TOKEN' });
  });
});

describe('Create Financial Instrument: onboarding a mint already onchain', () => {
  const field = 'itemData.existingMintAccount.onchainId';
  it('onboards a mint once, naming the field the request gave it in', () => {
    expect(refusal(() => checkMintNotOnboarded(onboarding(), MINT, true))).toMatchObject({ code: 'CONFLICT', field });
    expect(refusal(() => checkMintNotOnboarded(onboarding({ existingMintAccount: undefined, mintAccount: { onchainId: MINT } }), MINT, true))).toMatchObject({
      code: 'CONFLICT',
      field: 'itemData.mintAccount.onchainId',
    });
    expect(() => checkMintNotOnboarded(onboarding(), MINT, false)).not.toThrow();
  });

  it('reads an initialized mint of the request’s version and decimals from the chain', () => {
    const account = { owner: TOKEN_PROGRAM_ADDRESS, data: mintBytes(), lamports: 1_461_600n };
    expect(refusal(() => onboardedMint(onboarding(), MINT, 'LOCAL', null))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: `there is no account ${MINT} on LOCAL`,
    });
    expect(refusal(() => onboardedMint(onboarding(), MINT, 'LOCAL', { ...account, owner: SYSTEM_PROGRAM }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field,
      message: `${MINT} is not an initialized SPL or Token-2022 mint`,
    });
    expect(refusal(() => onboardedMint(onboarding(), MINT, 'LOCAL', { ...account, owner: TOKEN_2022_PROGRAM_ADDRESS }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.version',
    });
    expect(refusal(() => onboardedMint(onboarding(), MINT, 'LOCAL', { ...account, data: mintBytes(6) }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.onchainData.decimals',
    });
    const read = onboardedMint(onboarding(), MINT, 'LOCAL', account);
    expect(read.account).toBe(account);
    expect(read.onchain).toMatchObject({ version: 'SPL', decimals: 2, authorities: { mintAuthority: AUTHORITY } });
  });

  it('leaves an existing account record of the mint as it is', () => {
    const labelled = onboarding({ mintAccount: { offchainReferences: { code: 'BOND' } } });
    expect(refusal(() => checkMintRecordUnchanged(labelled, MINT, true))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.mintAccount.offchainReferences.code',
    });
    expect(refusal(() => checkMintRecordUnchanged(onboarding({ mintAccount: { comments: 'x' } }), MINT, true))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.mintAccount.comments',
    });
    expect(() => checkMintRecordUnchanged(labelled, MINT, false)).not.toThrow();
    expect(() => checkMintRecordUnchanged(onboarding({ mintAccount: { offchainReferences: { name: 'Bond' } } }), MINT, true)).not.toThrow();
  });

  it('references the onchain authorities the tenant has records of', () => {
    expect(authorityReferences({ mintAuthority: AUTHORITY, freezeAuthority: MINT }, [{ address: AUTHORITY, id: 'acc-1' }])).toEqual({
      mintAuthority: { address: AUTHORITY, accountId: 'acc-1' },
      freezeAuthority: { address: MINT, accountId: null },
    });
  });
});

describe('Create Financial Instrument: a new mint', () => {
  it('is signed by the mint and update authorities for Token Metadata, and by the pausable authority for a paused start', () => {
    const withMetadata = item({ onchainData: { decimals: 2, name: 'Bond' } });
    expect(signsCreation(withMetadata, 'mintAuthority')).toBe(true);
    expect(signsCreation(withMetadata, 'updateAuthority')).toBe(true);
    expect(signsCreation(item(), 'mintAuthority')).toBe(false);
    expect(signsCreation(item({ pausableAuthority: lookup, paused: true }), 'pausableAuthority')).toBe(true);
    expect(signsCreation(item({ pausableAuthority: lookup }), 'pausableAuthority')).toBe(false);
    expect(signsCreation(withMetadata, 'freezeAuthority')).toBe(false);
  });

  it('needs every signing authority onboarded', () => {
    expect(refusal(() => signingAuthority('itemData.mintAuthority', undefined))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.mintAuthority',
      message: 'itemData.mintAuthority must sign and is not onboarded',
    });
    expect(signingAuthority('itemData.mintAuthority', { address: AUTHORITY })).toEqual({ address: AUTHORITY });
  });

  it('takes a mint address not yet onchain', () => {
    expect(refusal(() => checkNewMint(MINT, true))).toMatchObject({ code: 'CONFLICT', field: 'itemData.mintAccount' });
    expect(() => checkNewMint(MINT, false)).not.toThrow();
  });

  it('initializes a pre-created account in place: no instrument’s mint yet, owned by the System Program, of the exact size', () => {
    const f = 'itemData.existingMintAccount';
    const spl = item({ version: 'SPL', existingMintAccount: lookup });
    expect(refusal(() => checkNotAMint(MINT, true))).toMatchObject({ code: 'CONFLICT', field: f });
    expect(() => checkNotAMint(MINT, false)).not.toThrow();
    expect(refusal(() => preCreatedMintTopUp(spl, MINT, null, 100n))).toMatchObject({ code: 'VALIDATION_ERROR', field: f });
    expect(refusal(() => preCreatedMintTopUp(spl, MINT, { owner: TOKEN_PROGRAM_ADDRESS, lamports: 0n, dataLength: 82 }, 100n))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: f,
    });
    expect(refusal(() => preCreatedMintTopUp(spl, MINT, { owner: SYSTEM_PROGRAM, lamports: 0n, dataLength: 165 }, 100n))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: f,
      message: expect.stringContaining('needs exactly 82'),
    });
    expect(preCreatedMintTopUp(spl, MINT, { owner: SYSTEM_PROGRAM, lamports: 40n, dataLength: 82 }, 100n)).toBe(60n);
    expect(preCreatedMintTopUp(spl, MINT, { owner: SYSTEM_PROGRAM, lamports: 140n, dataLength: 82 }, 100n)).toBe(0n);
    const token2022 = item({ closingAuthority: lookup, existingMintAccount: lookup });
    expect(preCreatedMintTopUp(token2022, MINT, { owner: SYSTEM_PROGRAM, lamports: 0n, dataLength: initialMintSize(token2022) }, 100n)).toBe(100n);
  });
});

describe('Create Financial Instrument: the records', () => {
  const tenant = { organizationId: 'org-a', cluster: 'LOCAL' };
  const at = new Date('2026-01-02T03:04:05Z');
  const created: CreatedInstrument = {
    mint: MINT,
    mintAccountId: 'acc-mint',
    instrumentId: 'fi-1',
    alId: 'ALEQYSTC12345678',
    referenceType: 'ASSET_TOKEN',
    lamports: '1461600',
    authorities: { mintAuthority: { address: AUTHORITY, accountId: 'acc-1' } },
  };
  const request = item({
    mintAccount: { offchainReferences: { code: 'BOND', name: 'Bond' }, comments: 'c' },
    onchainData: { decimals: 2, name: 'Bond', symbol: 'BND' },
    scaledUiAmountAuthority: lookup,
    comments: 'x',
  });

  it('records a new mint as a managed account of its size', () => {
    expect(mintAccountRecord(request, tenant, created)).toMatchObject({
      id: 'acc-mint',
      organizationId: 'org-a',
      cluster: 'LOCAL',
      address: MINT,
      type: 'ASSET_TOKEN',
      managed: true,
      code: 'BOND',
      name: 'Bond',
      alId: created.alId,
      comments: 'c',
      wasOnchainAlready: false,
      dataLength: finalMintSize(request),
      tokenVersion: 'TOKEN_2022',
      lamportsBalance: 1_461_600n,
      tokenDecimals: 2,
    });
  });

  it('records an onboarded mint as non-managed, sharing no key', () => {
    const onchain = {
      version: 'SPL' as const,
      decimals: 2,
      supply: '0',
      authorities: {},
      extensions: [],
      metadata: null,
      defaultPositionState: null,
      paused: null,
      scaledUiAmountMultiplier: 3,
    };
    expect(mintAccountRecord(request, tenant, { ...created, onchain })).toMatchObject({
      managed: false,
      wasOnchainAlready: true,
      dataLength: 0,
      orgsAllowedToSignWithPrivateKey: [],
    });
    expect(instrumentRecord(request, tenant, { ...created, onchain }, null, at)).toMatchObject({
      managed: false,
      wasOnchainAlready: true,
      name: null,
      symbol: null,
      extensions: [],
      paused: null,
      scaledUiAmountMultiplier: '3',
      lastTransactionId: null,
      lastTransactionAt: null,
    });
  });

  it('gives a pre-created mint account the AL ID, the token fields and the labels sent', () => {
    expect(preCreatedMintChanges(request, created, { id: 'tx-1', signature: 'sig' }, at)).toEqual({
      type: 'ASSET_TOKEN',
      alId: created.alId,
      tokenVersion: 'TOKEN_2022',
      tokenDecimals: 2,
      lastTransactionId: 'tx-1',
      lastTransactionSignature: 'sig',
      lastTransactionAt: at,
      code: 'BOND',
      name: 'Bond',
    });
    expect(preCreatedMintChanges(item(), created, null, at)).toEqual({
      type: 'ASSET_TOKEN',
      alId: created.alId,
      tokenVersion: 'TOKEN_2022',
      tokenDecimals: 2,
      lastTransactionId: null,
      lastTransactionSignature: null,
      lastTransactionAt: null,
    });
  });

  it('records a new instrument from the request, its transaction and its logo', () => {
    const logo = { storedFileId: 'file-1' };
    expect(instrumentRecord(request, tenant, { ...created, logo }, 'tx-1', at)).toMatchObject({
      id: 'fi-1',
      mintAccountId: 'acc-mint',
      mintAddress: MINT,
      financialInstrumentType: 'STOCK',
      name: 'Bond',
      symbol: 'BND',
      extensions: ['METADATA_POINTER', 'TOKEN_METADATA', 'SCALED_UI_AMOUNT'],
      paused: null,
      scaledUiAmountMultiplier: '1',
      offchainData: { logo },
      status: 'ACTIVE',
      managed: true,
      comments: 'x',
      offchainReferenceName: 'Bond',
      lastTransactionId: 'tx-1',
      creationTransactionAt: at,
    });
  });
});
