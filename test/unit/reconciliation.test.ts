/** Reconciliation's pure rules: what the chain holds for a record, which records drift, and what explains a difference. */
import { TOKEN_PROGRAM_ADDRESS, getTokenEncoder, AccountState } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransactionMessage,
  createTransactionMessage,
  getBase64Decoder,
  getCompiledTransactionMessageEncoder,
  none,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  compressTransactionMessageUsingAddressLookupTables,
  type Address,
  type Blockhash,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  batches,
  chainValueOf,
  explainedByWrites,
  findDrifts,
  judge,
  messageAddresses,
  tokenAmountOf,
  writeExplains,
  type ChainReading,
  type Holding,
} from '../../src/domain/reconciliation';

const OWNER = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
const MINT = address('So11111111111111111111111111111111111111112');
const A = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const B = '8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR';
const C = 'CiDwVBFgWV9E5MvXWoLgnEgn2hK7rJikbvfWavzAQz3';

const tokenAccount = (amount: bigint, owner: string = TOKEN_PROGRAM_ADDRESS) => ({
  owner,
  lamports: 2_039_280n,
  data: new Uint8Array(
    getTokenEncoder().encode({
      mint: MINT,
      owner: OWNER,
      amount,
      delegate: none(),
      state: AccountState.Initialized,
      isNative: none(),
      delegatedAmount: 0n,
      closeAuthority: none(),
    }),
  ),
});

const holding = (overrides: Partial<Holding>): Holding => ({
  kind: 'account',
  recordId: 'r1',
  organizationId: 'o1',
  address: A,
  recorded: 0n,
  subscribed: false,
  ...overrides,
});

describe('what the chain holds for a record', () => {
  it('reads a token amount of SPL Token and Token-2022 accounts exactly, beyond 2^53', () => {
    expect(tokenAmountOf(tokenAccount(18_446_744_073_709_551_615n))).toBe(18_446_744_073_709_551_615n);
    expect(tokenAmountOf(tokenAccount(9_007_199_254_740_993n, TOKEN_2022_PROGRAM_ADDRESS))).toBe(9_007_199_254_740_993n);
  });

  it('is 0 for a missing account, and no amount for an account that is not a token account', () => {
    expect(tokenAmountOf(null)).toBe(0n);
    expect(tokenAmountOf({ owner: '11111111111111111111111111111111', lamports: 5n, data: new Uint8Array(165) })).toBeNull();
    expect(tokenAmountOf({ owner: TOKEN_PROGRAM_ADDRESS, lamports: 5n, data: new Uint8Array(40) })).toBeNull();
  });

  it('compares an account by its lamports and a position by its token amount', () => {
    const account = tokenAccount(77n);
    expect(chainValueOf({ kind: 'account' }, account)).toBe(2_039_280n);
    expect(chainValueOf({ kind: 'position' }, account)).toBe(77n);
    expect(chainValueOf({ kind: 'account' }, null)).toBe(0n);
  });
});

describe('findDrifts', () => {
  it('lists the records that differ, with the exact difference and the slot of the read', () => {
    const readings = new Map<string, ChainReading>([
      [A, { account: { owner: '11111111111111111111111111111111', lamports: 1_500_000_000n, data: new Uint8Array() }, slot: 90n }],
      [B, { account: tokenAccount(10n), slot: 91n }],
    ]);
    const drifts = findDrifts(
      [
        holding({ recordId: 'same', address: A, recorded: 1_500_000_000n }),
        holding({ recordId: 'more', address: A, recorded: 1_000_000_000n }),
        holding({ recordId: 'pos', kind: 'position', address: B, recorded: 25n }),
        holding({ recordId: 'unread', address: C, recorded: 1n }),
      ],
      readings,
    );
    expect(drifts.map((d) => [d.recordId, d.recorded, d.chain, d.difference, d.slot])).toEqual([
      ['more', 1_000_000_000n, 1_500_000_000n, 500_000_000n, 90n],
      ['pos', 25n, 10n, -15n, 91n],
    ]);
  });
});

describe('what explains a difference', () => {
  it('a write in flight explains it once it landed (its record step is to come), not before', () => {
    expect(writeExplains({ recorded: false, landed: true, lifetimeLive: true })).toBe(true);
    expect(writeExplains({ recorded: false, landed: false, lifetimeLive: true })).toBe(false);
  });

  it('a write in flight without a known signature explains it only while its message may still land', () => {
    expect(writeExplains({ recorded: false, landed: null, lifetimeLive: true })).toBe(true);
    expect(writeExplains({ recorded: false, landed: null, lifetimeLive: false })).toBe(false);
  });

  it('a recorded write explains it only when it left the chain before finalization', () => {
    expect(writeExplains({ recorded: true, landed: true, lifetimeLive: true })).toBe(false);
    expect(writeExplains({ recorded: true, landed: false, lifetimeLive: false })).toBe(true);
  });

  it('only at the addresses the write loads, or anywhere when they cannot be known', () => {
    const landed = { recorded: false, landed: true, lifetimeLive: true };
    expect(explainedByWrites(A, [{ ...landed, addresses: [B, C] }])).toBe(false);
    expect(explainedByWrites(A, [{ ...landed, addresses: [B, A] }])).toBe(true);
    expect(explainedByWrites(A, [{ ...landed, addresses: null }])).toBe(true);
    expect(explainedByWrites(A, [{ ...landed, landed: false, addresses: [A] }])).toBe(false);
  });

  it('reads the addresses of a built message: its static keys, and its lookup tables through the tables on record', () => {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address(A), m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash: 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k' as Blockhash, lastValidBlockHeight: 10n }, m),
      (m) =>
        appendTransactionMessageInstructions([getTransferSolInstruction({ source: { address: address(A) } as never, destination: address(B), amount: 1n })], m),
    );
    const base64 = getBase64Decoder().decode(getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(message)));
    expect(messageAddresses(base64, new Map())).toEqual(expect.arrayContaining([A, B, '11111111111111111111111111111111']));
    expect(messageAddresses(base64, new Map())).not.toContain(C);

    // Compressed through a lookup table holding B: B comes from the table on record; an unknown table makes the addresses unknowable.
    const TABLE = 'AddressLookupTab1e1111111111111111111111111';
    const compressed = compressTransactionMessageUsingAddressLookupTables(message, { [TABLE]: [address(C), address(B)] } as Record<Address, Address[]>);
    const compressedBase64 = getBase64Decoder().decode(getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(compressed)));
    expect(messageAddresses(compressedBase64, new Map([[TABLE, [C, B]]]))).toEqual(expect.arrayContaining([A, B]));
    expect(messageAddresses(compressedBase64, new Map([[TABLE, [C, B]]]))).not.toContain(C);
    expect(messageAddresses(compressedBase64, new Map())).toBeNull();
  });
});

describe('judge: the verdict once the records are read again', () => {
  const drift = { ...holding({ recorded: 100n }), chain: 150n, difference: 50n, slot: 9n };
  it('a record that caught up with the chain is no drift', () => {
    expect(judge(drift, 150n, false)).toBe('caughtUp');
  });
  it('a record that moved during the pass is left to the next pass', () => {
    expect(judge(drift, 120n, false)).toBe('changed');
    expect(judge(drift, undefined, false)).toBe('changed');
  });
  it('a record unchanged is explained by a write, or is a drift', () => {
    expect(judge(drift, 100n, true)).toBe('explained');
    expect(judge(drift, 100n, false)).toBe('drift');
  });
});

it('batches addresses 100 at a time', () => {
  const items = Array.from({ length: 250 }, (_, i) => i);
  expect(batches(items, 100).map((b) => b.length)).toEqual([100, 100, 50]);
  expect(batches([], 100)).toEqual([]);
});
