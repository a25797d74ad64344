import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, extension, getMintEncoder, type ExtensionArgs } from '@solana-program/token-2022';
import { address, none, some } from '@solana/kit';
import { positionAccountSize } from '../../src/domain/position-account';

const ANY = address('11111111111111111111111111111111');
const mintBytes = (extensions: ExtensionArgs[]) =>
  new Uint8Array(
    getMintEncoder().encode({
      mintAuthority: some(ANY),
      supply: 0n,
      decimals: 2,
      isInitialized: true,
      freezeAuthority: none(),
      extensions: extensions.length ? some(extensions) : none(),
    }),
  );

describe('positionAccountSize: what InitializeAccount3 needs for the mint', () => {
  it('is 165 bytes for SPL and for Token-2022 mints whose extensions need nothing in the account', () => {
    expect(positionAccountSize(TOKEN_PROGRAM_ADDRESS, mintBytes([]))).toBe(165);
    expect(positionAccountSize(TOKEN_2022_PROGRAM_ADDRESS, mintBytes([]))).toBe(165);
    const noAccountSpace = [
      extension('DefaultAccountState', { state: 2 }),
      extension('PermanentDelegate', { delegate: ANY }),
      extension('MintCloseAuthority', { closeAuthority: ANY }),
    ];
    expect(positionAccountSize(TOKEN_2022_PROGRAM_ADDRESS, mintBytes(noAccountSpace))).toBe(165);
  });

  it('adds the account type byte and one TLV entry per account extension the mint forces', () => {
    // 165 + 1 (account type), then 4 bytes of type and length + the data of each.
    expect(positionAccountSize(TOKEN_2022_PROGRAM_ADDRESS, mintBytes([extension('PausableConfig', { authority: some(ANY), paused: false })]))).toBe(166 + 4);
    expect(positionAccountSize(TOKEN_2022_PROGRAM_ADDRESS, mintBytes([extension('TransferHook', { authority: ANY, programId: ANY })]))).toBe(166 + 5);
    expect(positionAccountSize(TOKEN_2022_PROGRAM_ADDRESS, mintBytes([extension('NonTransferable', {})]))).toBe(166 + 4);
    const both = [
      extension('PausableConfig', { authority: some(ANY), paused: false }),
      extension('TransferHook', { authority: ANY, programId: ANY }),
      extension('DefaultAccountState', { state: 2 }),
    ];
    expect(positionAccountSize(TOKEN_2022_PROGRAM_ADDRESS, mintBytes(both))).toBe(166 + 4 + 5);
  });
});
