import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import { checkClosable, checkNoSupply, planCloseFinancialInstrument } from '../../src/domain/operations/financial-instruments/close-financial-instrument.rules';
import { refusal } from '../support/expectations';

const MINT = 'So11111111111111111111111111111111111111112';
const DESTINATION = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const AUTHORITY = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const closable = { status: 'ACTIVE', version: 'TOKEN_2022', hasClosingAuthority: true };

describe('checkClosable: which instruments can be closed', () => {
  it('lets an active TOKEN_2022 instrument with a closing authority close', () => {
    expect(() => checkClosable(closable)).not.toThrow();
  });

  it.each([
    ['a closed instrument', { ...closable, status: 'CLOSED' }, 'the instrument is already CLOSED'],
    ['an SPL instrument', { ...closable, version: 'SPL' }, 'only a TOKEN_2022 instrument with a closingAuthority (Close Mint) can be closed'],
    [
      'one without a closing authority',
      { ...closable, hasClosingAuthority: false },
      'only a TOKEN_2022 instrument with a closingAuthority (Close Mint) can be closed',
    ],
  ])('refuses %s, naming itemData.financialInstrument', (_name, instrument, message) => {
    const error = refusal(() => checkClosable(instrument));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.financialInstrument');
    expect(error.message).toBe(message);
  });
});

describe('checkNoSupply: only an empty mint closes', () => {
  it('accepts a supply of zero', () => {
    expect(() => checkNoSupply(0n)).not.toThrow();
  });

  it('refuses a supply left, saying how much to burn', () => {
    const error = refusal(() => checkNoSupply(1_000n));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.financialInstrument');
    expect(error.message).toBe('the instrument still has a supply of 1000 base units; burn it first');
  });
});

describe('planCloseFinancialInstrument', () => {
  it('closes the mint to the refund destination, signed by the closing authority', () => {
    const [instruction, ...rest] = planCloseFinancialInstrument({ mint: MINT, destination: DESTINATION, authority: AUTHORITY });
    expect(rest).toHaveLength(0);
    expect(instruction.programAddress).toBe(TOKEN_2022_PROGRAM_ADDRESS);
    expect(instruction.accounts?.map((a) => a.address)).toEqual([MINT, DESTINATION, AUTHORITY]);
  });
});
