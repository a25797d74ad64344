import { addBalanceMove, finalityStep, finalizedCount, grownCount, reversedMoves } from '../../src/domain/finality';

const tips = { confirmedSlot: 140n, finalizedSlot: 109n };
const confirmed = { status: 'CONFIRMED', slot: 100n, confirmationsCount: 3 };
const status = (confirmationStatus: 'processed' | 'confirmed' | 'finalized', confirmations: number | null, slot = 100n) => ({
  slot,
  confirmationStatus,
  confirmations,
  err: null,
});

describe('finality decisions', () => {
  it('grows the confirmations count and never lowers it', () => {
    expect(grownCount(3, 7)).toBe(7);
    expect(grownCount(7, 3)).toBe(7);
    expect(grownCount(null, null)).toBe(0);
    expect(finalityStep(confirmed, status('confirmed', 9), tips)).toEqual({ kind: 'PROGRESS', status: 'CONFIRMED', confirmations: 9, slot: 100n });
    expect(finalityStep(confirmed, status('confirmed', 2), tips)).toEqual({ kind: 'UNCHANGED' });
  });

  it('moves a write answered at processed to CONFIRMED when the network confirms it', () => {
    expect(finalityStep({ status: 'SUBMITTED', slot: 100n, confirmationsCount: 0 }, status('confirmed', 1), tips)).toEqual({
      kind: 'PROGRESS',
      status: 'CONFIRMED',
      confirmations: 1,
      slot: 100n,
    });
  });

  it('finalizes with the last count seen, or the distance to the confirmed tip when none was seen, never 0', () => {
    expect(finalityStep(confirmed, status('finalized', null), tips)).toEqual({ kind: 'FINALIZED', confirmations: 3, slot: 100n });
    expect(finalityStep({ ...confirmed, confirmationsCount: 0 }, status('finalized', null), tips)).toEqual({
      kind: 'FINALIZED',
      confirmations: 40,
      slot: 100n,
    });
    expect(finalizedCount(null, 140n, 140n)).toBe(1);
    expect(finalizedCount(0, 100n, 131n)).toBe(31);
  });

  it('suspects a transaction left the chain only when the finalized slot is past its slot', () => {
    expect(finalityStep(confirmed, null, tips)).toEqual({ kind: 'MAYBE_LEFT_CHAIN' });
    expect(finalityStep(confirmed, null, { confirmedSlot: 140n, finalizedSlot: 100n })).toEqual({ kind: 'UNCHANGED' });
    expect(finalityStep({ ...confirmed, slot: null }, null, tips)).toEqual({ kind: 'UNCHANGED' });
  });

  it('keeps balance moves summed per record and reverses them exactly', () => {
    let moves = addBalanceMove(null, { kind: 'ACCOUNT', id: 'a', delta: -1_005_000n });
    moves = addBalanceMove(moves, { kind: 'ACCOUNT', id: 'b', delta: 1_000_000n });
    moves = addBalanceMove(moves, { kind: 'POSITION', id: 'a', delta: 5n });
    moves = addBalanceMove(moves, { kind: 'POSITION', id: 'a', delta: 18_446_744_073_709_551_615n });
    moves = addBalanceMove(moves, { kind: 'ACCOUNT', id: 'c', delta: 0n });
    expect(moves).toEqual([
      { kind: 'ACCOUNT', id: 'a', delta: '-1005000' },
      { kind: 'ACCOUNT', id: 'b', delta: '1000000' },
      { kind: 'POSITION', id: 'a', delta: '18446744073709551620' },
    ]);
    expect(reversedMoves(moves)).toEqual([
      { kind: 'ACCOUNT', id: 'a', delta: '1005000' },
      { kind: 'ACCOUNT', id: 'b', delta: '-1000000' },
      { kind: 'POSITION', id: 'a', delta: '-18446744073709551620' },
    ]);
    expect(reversedMoves(null)).toEqual([]);
  });
});
