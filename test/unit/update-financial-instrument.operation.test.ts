import { getTransferSolInstructionDataDecoder, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import type { UpdateFinancialInstrumentItemData } from '../../src/domain/operations/financial-instruments/financial-instrument.inputs';
import { validateInput } from '../../src/domain/operations/registry';
import {
  metadataChanges,
  metadataTopUp,
  multiplierChange,
  planUpdateFinancialInstrument,
  rotationType,
  validateUpdateFinancialInstrument,
  type StoredInstrument,
  type UpdateFinancialInstrumentPlan,
} from '../../src/domain/operations/financial-instruments/update-financial-instrument.rules';
import { mintAccountSize, rentExemptMinimum } from '../../src/domain/token-extensions';
import { refusal } from '../support/expectations';

const INSTRUMENT = { offchainId: '396197e3-ae95-48d1-868d-6342ea9dc71e' };
const MINT = 'So11111111111111111111111111111111111111112';
const FEE_PAYER = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const OLD = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const NEW = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
const update = (fields: Partial<UpdateFinancialInstrumentItemData>): UpdateFinancialInstrumentItemData => ({ financialInstrument: INSTRUMENT, ...fields });
const withMetadata: StoredInstrument = {
  version: 'TOKEN_2022',
  decimals: 6,
  extensions: ['METADATA_POINTER', 'TOKEN_METADATA', 'SCALED_UI_AMOUNT'],
  name: 'Bond',
  symbol: 'BND',
  uri: 'https://x.example/b.json',
  onchainCustomMetadata: { isin: 'X1' },
  scaledUiAmountMultiplier: '1',
};
const writer = { updateDebitApiKeys: false };

describe('validateUpdateFinancialInstrument: the rules on the request alone', () => {
  it('accepts an authority that can be rotated and a positive multiplier', () => {
    expect(() => validateUpdateFinancialInstrument(update({ mintAuthority: { onchainId: NEW }, scaledUiAmountMultiplier: 1.5 }))).not.toThrow();
  });

  it('refuses an authority that cannot be rotated, naming it (before any lookup, through the registry)', () => {
    const error = refusal(() => validateInput('UPDATE_FINANCIAL_INSTRUMENT', update({ confidentialMintBurnAuthority: { onchainId: NEW } }), writer));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.confidentialMintBurnAuthority');
    expect(error.message).toBe('confidentialMintBurnAuthority cannot be rotated');
  });

  it.each([0, -2])('refuses a multiplier of %s, naming it', (multiplier) => {
    const error = refusal(() => validateUpdateFinancialInstrument(update({ scaledUiAmountMultiplier: multiplier })));
    expect(error.field).toBe('itemData.scaledUiAmountMultiplier');
    expect(error.message).toBe('scaledUiAmountMultiplier must be a positive number');
  });
});

describe('metadataChanges: the Token Metadata fields an update writes', () => {
  it('writes only the fields that differ from the record', () => {
    const fields = metadataChanges(update({ onchainData: { name: 'Bond', symbol: 'BND2', simpleCustomMetadata: { isin: 'X1', coupon: '5%' } } }), withMetadata);
    expect(fields).toEqual([
      { kind: 'Symbol', value: 'BND2' },
      { kind: 'Key', key: 'coupon', value: '5%' },
    ]);
  });

  it('accepts the same decimals and refuses others, naming onchainData.decimals', () => {
    expect(metadataChanges(update({ onchainData: { decimals: 6 } }), withMetadata)).toEqual([]);
    const error = refusal(() => metadataChanges(update({ onchainData: { decimals: 2 } }), withMetadata));
    expect(error.field).toBe('itemData.onchainData.decimals');
    expect(error.message).toBe('decimals cannot change after creation');
  });

  it('refuses metadata on an instrument without Token Metadata, naming onchainData', () => {
    const error = refusal(() => metadataChanges(update({ onchainData: { name: 'New' } }), { ...withMetadata, extensions: [] }));
    expect(error.field).toBe('itemData.onchainData');
  });
});

describe('multiplierChange', () => {
  it('is null when the multiplier is left out or equal to the record', () => {
    expect(multiplierChange(update({}), withMetadata)).toBeNull();
    expect(multiplierChange(update({ scaledUiAmountMultiplier: 1 }), withMetadata)).toBeNull();
  });

  it('is the new multiplier when it changes', () => {
    expect(multiplierChange(update({ scaledUiAmountMultiplier: 2.5 }), withMetadata)).toBe(2.5);
  });

  it('refuses a change on an instrument without Scaled UI Amount, naming the field', () => {
    const error = refusal(() => multiplierChange(update({ scaledUiAmountMultiplier: 2 }), { ...withMetadata, extensions: [], scaledUiAmountMultiplier: null }));
    expect(error.field).toBe('itemData.scaledUiAmountMultiplier');
    expect(error.message).toBe('the instrument has no Scaled UI Amount extension');
  });
});

describe('rotationType: the SetAuthority type of each rotation', () => {
  it.each([
    ['mintAuthority', 0],
    ['freezeAuthority', 1],
    ['closingAuthority', 6],
    ['updateAuthority', 12],
    ['pausableAuthority', 16],
  ] as const)('%s rotates with type %d', (field, type) => {
    expect(rotationType(field, { version: 'TOKEN_2022', extensions: ['CLOSE_MINT', 'METADATA_POINTER', 'PAUSABLE'] })).toBe(type);
  });

  it('refuses a Token-2022 authority on an SPL instrument, and one whose extension is missing, naming the field', () => {
    expect(refusal(() => rotationType('closingAuthority', { version: 'SPL', extensions: [] })).message).toBe('closingAuthority needs a TOKEN_2022 instrument');
    const missing = refusal(() => rotationType('pausableAuthority', { version: 'TOKEN_2022', extensions: [] }));
    expect(missing.field).toBe('itemData.pausableAuthority');
    expect(missing.message).toBe('the instrument has no PAUSABLE extension');
  });
});

describe('metadataTopUp: the rent the longer metadata needs', () => {
  const chainMetadata = { name: 'Bond', symbol: 'BND', uri: 'https://x.example/b.json', additional: {} };
  const extensions = ['METADATA_POINTER', 'TOKEN_METADATA'] as const;
  const rentNow = rentExemptMinimum(mintAccountSize([...extensions], { ...chainMetadata, additionalMetadata: {} }));

  it('is nothing when the account already holds the rent of its new size', () => {
    expect(metadataTopUp({ extensions: [...extensions], metadata: chainMetadata, lamports: rentNow }, [{ kind: 'Symbol', value: 'BND' }])).toBe(0n);
  });

  it('is the rent of the grown account less what it holds', () => {
    const value = 'x'.repeat(100);
    const needed = rentExemptMinimum(mintAccountSize([...extensions], { ...chainMetadata, additionalMetadata: { note: value } }));
    expect(needed).toBeGreaterThan(rentNow);
    expect(metadataTopUp({ extensions: [...extensions], metadata: chainMetadata, lamports: rentNow }, [{ kind: 'Key', key: 'note', value }])).toBe(
      needed - rentNow,
    );
  });
});

describe('planUpdateFinancialInstrument: the instructions, in order', () => {
  const plan: UpdateFinancialInstrumentPlan = {
    mint: MINT,
    version: 'TOKEN_2022',
    fields: [],
    updateAuthority: null,
    multiplier: null,
    scaledUiAuthority: null,
    topUp: '0',
    rotations: [],
  };

  it('tops up first, writes metadata, then rotates the update authority (metadata and pointer)', () => {
    const instructions = planUpdateFinancialInstrument(
      {
        ...plan,
        topUp: '5000',
        fields: [{ kind: 'Name', value: 'New' }],
        updateAuthority: OLD,
        rotations: [{ field: 'updateAuthority', type: 12, current: OLD, next: { address: NEW, accountId: null } }],
      },
      FEE_PAYER,
    );
    expect(instructions.map((i) => i.programAddress)).toEqual([
      SYSTEM_PROGRAM_ADDRESS,
      TOKEN_2022_PROGRAM_ADDRESS,
      TOKEN_2022_PROGRAM_ADDRESS,
      TOKEN_2022_PROGRAM_ADDRESS,
    ]);
    expect(getTransferSolInstructionDataDecoder().decode(instructions[0].data!).amount).toBe(5000n);
    expect(instructions[0].accounts?.map((a) => a.address)).toEqual([FEE_PAYER, MINT]);
  });

  it('rotates an SPL authority with the SPL Token program', () => {
    const instructions = planUpdateFinancialInstrument(
      { ...plan, version: 'SPL', rotations: [{ field: 'mintAuthority', type: 0, current: OLD, next: { address: NEW, accountId: null } }] },
      FEE_PAYER,
    );
    expect(instructions.map((i) => i.programAddress)).toEqual([TOKEN_PROGRAM_ADDRESS]);
  });

  it('plans nothing when nothing changes onchain', () => {
    expect(planUpdateFinancialInstrument(plan, FEE_PAYER)).toEqual([]);
  });
});
