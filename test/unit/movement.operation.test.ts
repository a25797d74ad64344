import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import { generateKeyPairSigner } from '@solana/kit';
import { legInstructions, MEMO_PROGRAM_V3 } from '../../src/domain/operations/positions/movement-instructions';
import {
  amountToMove,
  BalanceBook,
  freezeOption,
  frozenAfter,
  settleFreezes,
  type AmountRequest,
  type BookPosition,
  type Leg,
  type MintLeg,
  type TransferLeg,
} from '../../src/domain/operations/positions/movement.rules';
import { validateInput } from '../../src/domain/operations/registry';
import { refusal } from '../support/expectations';

const newAddress = async () => (await generateKeyPairSigner()).address;
const transferOf = (value: string, fields: Partial<AmountRequest> = {}): AmountRequest => ({
  value: { amount: value },
  entire: undefined,
  entireName: 'transferEntireBalance',
  verb: 'transfer',
  precheckOffchain: undefined,
  ...fields,
});

let A: string, B: string, MINT: string, AUTHORITY: string, FREEZER: string, FEE_PAYER: string;
beforeAll(async () => {
  [A, B, MINT, AUTHORITY, FREEZER, FEE_PAYER] = await Promise.all(Array.from({ length: 6 }, newAddress));
});
const position = (id: string, address: string, fields: Partial<BookPosition> = {}): BookPosition => ({ id, address, frozen: false, balance: '0', ...fields });

describe('The balance book: a trade’s later legs see what the earlier ones leave', () => {
  it('refuses a trade whose later leg overdraws, naming that leg’s value', () => {
    const book = new BalanceBook();
    const source = position('a', A, { balance: '1000' });
    book.knowOnchain('a', 1000n); // 1.000 at 3 decimals
    const first = amountToMove(book, source, 3, transferOf('0.6'), 'itemData.operations[0].transfer');
    expect(first).toBe(600n);
    book.move('a', -first);
    const error = refusal(() => amountToMove(book, source, 3, transferOf('0.5'), 'itemData.operations[1].transfer'));
    expect(error.code).toBe('INSUFFICIENT_BALANCE');
    expect(error.field).toBe('itemData.operations[1].transfer.value');
    expect(error.message).toContain('holds 0.4');
  });

  it('moves the entire balance the earlier legs leave, and refuses an entire balance they emptied naming the flag', () => {
    const book = new BalanceBook();
    const source = position('a', A);
    book.knowOnchain('a', 250n);
    book.move('a', 50n); // an earlier leg minted 50
    expect(amountToMove(book, source, 0, transferOf('', { value: undefined, entire: true }), 'itemData')).toBe(300n);
    book.move('a', -300n);
    const error = refusal(() =>
      amountToMove(
        book,
        source,
        0,
        { value: undefined, entire: true, entireName: 'burnEntireBalance', verb: 'burn', precheckOffchain: undefined },
        'itemData.operations[2].burn',
      ),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.field).toBe('itemData.operations[2].burn.burnEntireBalance');
  });

  it('checks the record’s balance too with offchainBalanceAvailabilityPrecheck', () => {
    const book = new BalanceBook();
    const source = position('a', A, { balance: '100' });
    book.knowOnchain('a', 500n);
    expect(amountToMove(book, source, 0, transferOf('200'), 'itemData')).toBe(200n);
    const error = refusal(() => amountToMove(book, source, 0, transferOf('200', { precheckOffchain: true }), 'itemData'));
    expect(error.code).toBe('INSUFFICIENT_BALANCE');
    expect(error.field).toBe('itemData.value');
  });

  it('refuses neither or both of value and the entire balance, naming value', () => {
    const book = new BalanceBook();
    for (const request of [transferOf('1', { entire: true }), transferOf('', { value: undefined })]) {
      expect(refusal(() => amountToMove(book, position('a', A), 0, request, 'itemData')).field).toBe('itemData.value');
    }
  });

  it('thaws a frozen position once: a later leg finds it thawed; without unfreeze it is refused naming the option', () => {
    const book = new BalanceBook();
    const frozen = position('a', A, { frozen: true });
    const refused = refusal(() => book.thaw(frozen, ['itemData.operations[0].burn.unfreeze', undefined], 'itemData.operations[0].burn.burnFrom'));
    expect(refused.code).toBe('POSITION_FROZEN');
    expect(refused.field).toBe('itemData.operations[0].burn.burnFrom');
    expect(refused.message).toContain('itemData.operations[0].burn.unfreeze');
    expect(book.thaw(frozen, ['itemData.unfreeze', true], 'f')).toEqual([A]);
    expect(book.thaw(frozen, ['itemData.unfreeze', undefined], 'f')).toEqual([]);
  });
});

describe('Freeze options', () => {
  it('take the operation’s own flag over the trade’s default, naming the field that set them', () => {
    expect(freezeOption({ freeze: true }, { freezeSource: false }, 'itemData.operations[0].transfer', 'freezeSource')).toEqual([
      'itemData.operations[0].transfer.freezeSource',
      false,
    ]);
    expect(freezeOption({ freeze: true }, {}, 'itemData.operations[0].transfer', 'freezeDestination')).toEqual(['itemData.freeze', true]);
    expect(freezeOption({}, {}, 'itemData', 'unfreezeSource')).toEqual(['itemData.unfreeze', undefined]);
  });
});

describe('Freeze settlement', () => {
  const around = { tokenProgram: TOKEN_2022_PROGRAM_ADDRESS, decimals: 0, memo: null, thaw: [] as string[] };
  const mint = (to: string, fields: Partial<MintLeg> = {}): MintLeg => ({
    ...around,
    kind: 'mint',
    mint: MINT,
    amount: '1',
    positionId: to,
    position: to,
    mintAuthority: AUTHORITY,
    freezeAuthority: null,
    freeze: [],
    ...fields,
  });
  const transfer = (from: string, to: string, fields: Partial<TransferLeg> = {}): TransferLeg => ({
    ...around,
    kind: 'transfer',
    mint: MINT,
    amount: '1',
    sourceId: from,
    source: from,
    destinationId: to,
    destination: to,
    authority: AUTHORITY,
    createDestination: null,
    extraAccounts: [],
    freezeAuthority: null,
    freeze: [],
    ...fields,
  });

  it('freezes a position once, after the last leg that moves it, with the authority that asked', () => {
    const legs: Leg[] = [mint(A, { freeze: [A], freezeAuthority: FREEZER }), transfer(A, B), mint(B)];
    settleFreezes(legs);
    expect(legs.map((leg) => leg.freeze)).toEqual([[], [A], []]);
    expect(legs[1].freezeAuthority).toBe(FREEZER);
  });

  it('freezes a position asked twice only once', () => {
    const legs: Leg[] = [transfer(A, B, { freeze: [A, B], freezeAuthority: FREEZER }), mint(A, { freeze: [A], freezeAuthority: FREEZER })];
    settleFreezes(legs);
    expect(legs.map((leg) => leg.freeze)).toEqual([[B], [A]]);
  });

  it('records the frozen state a leg leaves: frozen when it freezes, thawed when it thaws, else unchanged', () => {
    const leg = transfer(A, B, { thaw: [A], freeze: [B] });
    expect(frozenAfter(leg, A)(true)).toBe(false);
    expect(frozenAfter(leg, B)(false)).toBe(true);
    expect(frozenAfter(mint(A), A)(true)).toBe(true);
  });
});

describe('The instructions of a leg', () => {
  it('come as create destination → thaw → transfer (with the hook’s accounts) → freeze → memo', async () => {
    const hookProgram = await newAddress();
    const leg: TransferLeg = {
      kind: 'transfer',
      tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
      mint: MINT,
      decimals: 2,
      amount: '150',
      sourceId: 'a',
      source: A,
      destinationId: 'b',
      destination: B,
      authority: AUTHORITY,
      createDestination: { owner: await newAddress(), ownerAccountId: null, instrumentId: 'i', reactivate: false, frozen: false },
      extraAccounts: [{ address: hookProgram, role: 'readonly' }],
      freezeAuthority: FREEZER,
      thaw: [A],
      freeze: [B],
      memo: 'invoice 7',
    };
    const instructions = legInstructions(leg, FEE_PAYER);
    // Token instruction discriminators: ThawAccount 11, TransferChecked 12, FreezeAccount 10.
    expect(instructions.map((i) => [i.programAddress, i.programAddress === TOKEN_2022_PROGRAM_ADDRESS ? i.data![0] : null])).toEqual([
      [ASSOCIATED_TOKEN_PROGRAM_ADDRESS, null],
      [TOKEN_2022_PROGRAM_ADDRESS, 11],
      [TOKEN_2022_PROGRAM_ADDRESS, 12],
      [TOKEN_2022_PROGRAM_ADDRESS, 10],
      [MEMO_PROGRAM_V3, null],
    ]);
    expect(instructions[1].accounts![0].address).toBe(A);
    expect(instructions[3].accounts![0].address).toBe(B);
    expect(instructions[2].accounts!.at(-1)!.address).toBe(hookProgram);
  });

  it('is the movement alone for a leg with no freeze options or memo', () => {
    const leg: MintLeg = {
      kind: 'mint',
      tokenProgram: TOKEN_2022_PROGRAM_ADDRESS,
      mint: MINT,
      decimals: 0,
      amount: '5',
      positionId: 'a',
      position: A,
      mintAuthority: AUTHORITY,
      freezeAuthority: null,
      thaw: [],
      freeze: [],
      memo: null,
    };
    const instructions = legInstructions(leg, FEE_PAYER);
    expect(instructions).toHaveLength(1);
    expect(instructions[0].data![0]).toBe(14); // MintToChecked
  });
});

describe('The request-only rules of a movement (run by the API before any lookup)', () => {
  const writer = { updateDebitApiKeys: false };
  // Nothing here exists: the rules never look.
  const nowhere = {
    owner: { offchainId: '00000000-0000-4000-8000-000000000000' },
    financialInstrument: { onchainId: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' },
  };
  const field = (run: () => void) => refusal(run).field;

  it('refuses an amount and lamports no decimals make agree, naming the lamports', () => {
    const value = { amount: '1', lamports: '3' };
    expect(field(() => validateInput('TRANSFER', { source: nowhere, destination: nowhere, value }, writer))).toBe('itemData.value.lamports');
    expect(field(() => validateInput('MINT', { mintTo: nowhere, value }, writer))).toBe('itemData.value.lamports');
    expect(field(() => validateInput('BURN', { burnFrom: nowhere, value }, writer))).toBe('itemData.value.lamports');
    expect(
      field(() =>
        validateInput(
          'TRADE',
          { operations: [{ mint: { mintTo: nowhere, value: { lamports: '1' } } }, { transfer: { source: nowhere, destination: nowhere, value } }] },
          writer,
        ),
      ),
    ).toBe('itemData.operations[1].transfer.value.lamports');
  });

  it('accepts values that agree at some decimals (the lookup checks the instrument’s)', () => {
    expect(() => validateInput('TRANSFER', { source: nowhere, destination: nowhere, value: { amount: '1', lamports: '1000000' } }, writer)).not.toThrow();
    expect(() => validateInput('BURN', { burnFrom: nowhere, burnEntireBalance: true }, writer)).not.toThrow();
  });

  it('refuses value and the entire balance together or neither, and a zero value, naming the value', () => {
    expect(field(() => validateInput('TRANSFER', { source: nowhere, destination: nowhere }, writer))).toBe('itemData.value');
    expect(field(() => validateInput('BURN', { burnFrom: nowhere, value: { lamports: '1' }, burnEntireBalance: true }, writer))).toBe('itemData.value');
    expect(refusal(() => validateInput('MINT', { mintTo: nowhere, value: { amount: '0' } }, writer)).message).toBe('the amount must be more than zero');
    expect(refusal(() => validateInput('BURN', { burnFrom: nowhere, value: { lamports: '0' } }, writer)).message).toBe('there is nothing to burn');
  });

  it('refuses a trade operation holding no movement or two, naming it', () => {
    expect(field(() => validateInput('TRADE', { operations: [{}] }, writer))).toBe('itemData.operations[0]');
    expect(field(() => validateInput('TRADE', { operations: [] }, writer))).toBe('itemData.operations');
  });
});
