import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import { checkPauseChange, planPause, type PausableInstrument } from '../../src/domain/operations/financial-instruments/pause-financial-instrument.rules';
import { refusal } from '../support/expectations';

const MINT = 'So11111111111111111111111111111111111111112';
const AUTHORITY = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const pausable: PausableInstrument = { version: 'TOKEN_2022', extensions: ['PAUSABLE'], status: 'ACTIVE', paused: false };

describe('checkPauseChange: which instruments can be paused and unpaused', () => {
  it('lets an active Pausable TOKEN_2022 instrument change state', () => {
    expect(() => checkPauseChange(pausable, true)).not.toThrow();
    expect(() => checkPauseChange({ ...pausable, paused: true }, false)).not.toThrow();
  });

  it.each([
    ['an SPL instrument', { ...pausable, version: 'SPL' }, 'only a TOKEN_2022 instrument with the Pausable extension can be paused and unpaused'],
    [
      'one without the Pausable extension',
      { ...pausable, extensions: ['TOKEN_METADATA'] },
      'only a TOKEN_2022 instrument with the Pausable extension can be paused and unpaused',
    ],
    ['a closed instrument', { ...pausable, status: 'CLOSED' }, 'the instrument is CLOSED'],
    ['one already paused', { ...pausable, paused: true }, 'the instrument is already paused'],
  ])('refuses to pause %s, naming itemData.financialInstrument', (_name, instrument, message) => {
    const error = refusal(() => checkPauseChange(instrument, true));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.financialInstrument');
    expect(error.message).toBe(message);
  });

  it('refuses to unpause an instrument that is not paused', () => {
    expect(refusal(() => checkPauseChange(pausable, false)).message).toBe('the instrument is already unpaused');
  });
});

describe('planPause: one Token-2022 instruction signed by the pausable authority', () => {
  it.each([true, false])('pause=%s', (pause) => {
    const [instruction, ...rest] = planPause(pause, { mint: MINT, authority: AUTHORITY });
    expect(rest).toHaveLength(0);
    expect(instruction.programAddress).toBe(TOKEN_2022_PROGRAM_ADDRESS);
    expect(instruction.accounts?.map((a) => a.address)).toEqual([MINT, AUTHORITY]);
  });

  it('pause and resume are different instructions', () => {
    expect(planPause(true, { mint: MINT, authority: AUTHORITY })[0].data).not.toEqual(planPause(false, { mint: MINT, authority: AUTHORITY })[0].data);
  });
});
