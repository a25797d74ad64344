import { explainFailure } from '../../src/domain/program-errors';

describe('readable failures', () => {
  it('names the token error of a simulation failure (hex code)', () => {
    expect(explainFailure('Transaction simulation failed (Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA failed: custom program error: 0x11)')).toMatch(
      /: the account is frozen$/,
    );
  });
  it('names the token error of a landed failure (decimal code)', () => {
    expect(explainFailure('the network refused the transaction: {"InstructionError":[0,{"Custom":1}]}')).toMatch(/: insufficient funds$/);
  });
  it('leaves other messages as they are', () => {
    expect(explainFailure('blockhash not found')).toBe('blockhash not found');
    expect(explainFailure('custom program error: 0x9999')).toBe('custom program error: 0x9999');
  });
});
