/** The checker's reference model (bench/checker/model.ts) and its seeded generator: what each operation may be answered, and what it changes. */
import { nextOperation } from '../../bench/checker/generator';
import { apply, busyObjects, expectationOf, initialState, modelValues, outcomeText, type Shape, type State } from '../../bench/checker/model';
import type { Operation } from '../../bench/checker/operations';
import { Random } from '../../bench/checker/random';

const shape: Shape = {
  rentMin: 890_880n,
  guardedWallet: 'GW',
  lamportsLimit: 10_000_000n,
  guardedHolder: 'GH',
  unitsLimit: 10n,
  borrower: 'B',
  vault: 'V',
  nonceAccounts: 2,
  loanToValue: 800_000n,
};

function start(): State {
  const state = initialState();
  Object.assign(state.lamports, { W0: 50_000_000n, W1: 50_000_000n, GW: 200_000_000n });
  Object.assign(state.units, { H0: 100n, H1: 100n, GH: 100n, B: 1_000n, V: 5_000n });
  state.supply = 6_300n;
  return state;
}

/** The only answer the model allows, applied. */
function only(state: State, op: Operation): { state: State; answer: string } {
  const { allowed } = expectationOf(state, shape, op);
  expect(allowed).toHaveLength(1);
  return { state: apply(state, op, allowed[0]!), answer: outcomeText(allowed[0]!.outcome) };
}
const answers = (state: State, op: Operation) =>
  expectationOf(state, shape, op).allowed.map((a) => `${a.primary ? `${outcomeText(a.primary)} / ` : ''}${outcomeText(a.outcome)}`);

it('moves units on a transfer that fits, refuses one over the balance (INSUFFICIENT_BALANCE) and moves nothing', () => {
  const fits = only(start(), { key: 'k1', kind: 'transfer', from: 'H0', to: 'H1', units: 40n, lifetime: 'BLOCKHASH', rest: 'NONE' });
  expect(fits.answer).toBe('landed');
  expect([fits.state.units.H0, fits.state.units.H1]).toEqual([60n, 140n]);
  expect(modelValues(fits.state, 'transaction:k1')).toEqual({ status: ['CONFIRMED', 'FINALIZED'] });
  const over = only(fits.state, { key: 'k2', kind: 'transfer', from: 'H0', to: 'H1', units: 61n, lifetime: 'BLOCKHASH', rest: 'NONE' });
  expect(over.answer).toBe('refused 400 INSUFFICIENT_BALANCE');
  expect(over.state.units).toEqual(fits.state.units);
  expect(modelValues(over.state, 'transaction:k2')).toBeUndefined();
});

it('counts mint and burn in the supply; a trade mints before its transfer leg is checked', () => {
  let state = only(start(), { key: 'm', kind: 'mint', to: 'H0', units: 5n, lifetime: 'BLOCKHASH', rest: 'NONE' }).state;
  state = only(state, { key: 'b', kind: 'burn', from: 'H1', units: 7n, lifetime: 'BLOCKHASH', rest: 'NONE' }).state;
  expect(modelValues(state, 'supply')).toEqual({ supply: ['6298'] });
  const trade = only(state, { key: 't', kind: 'trade', into: 'H0', to: 'H1', mintUnits: 10n, transferUnits: 115n });
  expect(trade.answer).toBe('landed');
  expect([trade.state.units.H0, trade.state.units.H1, trade.state.supply]).toEqual([0n, 208n, 6308n]);
  expect(only(state, { key: 't2', kind: 'trade', into: 'H0', to: 'H1', mintUnits: 10n, transferUnits: 116n }).answer).toBe('refused 400 INSUFFICIENT_BALANCE');
});

it('refuses network currency over the balance before anything is signed (INSUFFICIENT_BALANCE, nothing moved, no fee)', () => {
  const over = only(start(), { key: 'x', kind: 'transfer-network-currency', from: 'W0', to: 'W1', lamports: 50_000_001n, lifetime: 'BLOCKHASH', rest: 'NONE' });
  expect(over.answer).toBe('refused 400 INSUFFICIENT_BALANCE');
  expect(over.state.lamports).toEqual(start().lamports);
});

it('holds a debit over the guarded limit for approval; approve lands it, reject and cancel move nothing', () => {
  const held = only(start(), { key: 'a', kind: 'transfer', from: 'GH', to: 'H0', units: 11n, lifetime: 'BLOCKHASH', rest: 'NONE' });
  expect(held.answer).toBe('rests AWAITING_APPROVAL');
  expect(busyObjects(held.state)).toEqual(new Set(['position:GH', 'position:H0']));
  expect(held.state.units.GH).toBe(100n);
  const approved = only(held.state, { key: 'd', kind: 'approve', write: 'a' });
  expect(approved.answer).toBe('landed');
  expect([approved.state.units.GH, approved.state.units.H0]).toEqual([89n, 111n]);
  expect(approved.state.resting).toEqual({});
  for (const kind of ['reject', 'cancel'] as const) {
    const ended = only(held.state, { key: 'd', kind, write: 'a' });
    expect(ended.answer).toBe(kind === 'reject' ? 'ended REJECTED' : 'ended CANCELLED');
    expect(ended.state.units).toEqual(start().units);
    expect(modelValues(ended.state, 'transaction:a')).toEqual({ status: [kind === 'reject' ? 'REJECTED' : 'CANCELLED'] });
  }
  // Within the limit: no approval.
  expect(only(start(), { key: 'w', kind: 'transfer', from: 'GH', to: 'H0', units: 10n, lifetime: 'BLOCKHASH', rest: 'NONE' }).answer).toBe('landed');
});

it('keeps a durable nonce while a write rests, refuses a write when none is free (409), and frees it on Submit or Cancel', () => {
  const rest = (key: string, from: string): Operation => ({ key, kind: 'transfer', from, to: 'B', units: 1n, lifetime: 'DURABLE_NONCE', rest: 'SIGNED' });
  let state = only(start(), rest('r1', 'H0')).state;
  state = only(state, rest('r2', 'H1')).state;
  expect(modelValues(state, 'nonces')).toEqual({ inUse: ['2'] });
  expect(only(state, { key: 'r3', kind: 'mint', to: 'GH', units: 1n, lifetime: 'DURABLE_NONCE', rest: 'NONE' }).answer).toBe('refused 409 CONFLICT');
  // A durable nonce never expires: Submit lands it.
  expect(answers(state, { key: 's', kind: 'submit', write: 'r1' })).toEqual(['landed / landed']);
  const submitted = only(state, { key: 's', kind: 'submit', write: 'r1' }).state;
  expect([submitted.units.H0, submitted.noncesHeld]).toEqual([99n, 1]);
  expect(answers(state, { key: 'c', kind: 'cancel', write: 'r2' })).toEqual(['ended CANCELLED / ended CANCELLED']);
});

it('allows a recent-blockhash rest to have expired by the time it is submitted, signed or cancelled', () => {
  const state = only(start(), {
    key: 'r',
    kind: 'transfer-network-currency',
    from: 'W0',
    to: 'W1',
    lamports: 1_000n,
    lifetime: 'BLOCKHASH',
    rest: 'AWAITING_SIGNATURES',
  }).state;
  expect(modelValues(state, 'transaction:r')).toEqual({ status: ['AWAITING_SIGNATURES', 'EXPIRED'] });
  expect(answers(state, { key: 's', kind: 'sign', write: 'r' })).toEqual(['landed / landed', 'ended EXPIRED / ended EXPIRED']);
  expect(answers(state, { key: 'c', kind: 'cancel', write: 'r' })).toEqual([
    'ended CANCELLED / ended CANCELLED',
    'refused 400 VALIDATION_ERROR / ended EXPIRED',
  ]);
});

it('follows a loan: created within its loan-to-value, repaid in part and in full, closed; refuses what its state does not allow', () => {
  expect(only(start(), { key: 'l', kind: 'create-loan', loan: 'L0', borrow: 9n, pledge: 11n }).answer).toBe('refused 400 VALIDATION_ERROR');
  let state = only(start(), { key: 'l', kind: 'create-loan', loan: 'L0', borrow: 8n, pledge: 10n }).state;
  expect([state.units.B, state.units.V, state.units.E0]).toEqual([998n, 4_992n, 10n]);
  expect(modelValues(state, 'loan:L0')).toEqual({ status: ['OPEN'], principalDue: ['8'], pledged: ['10'] });
  expect(only(state, { key: 'c', kind: 'close-loan', loan: 'L0' }).answer).toBe('refused 409 CONFLICT');
  expect(only(state, { key: 'o', kind: 'repay', loan: 'L0', units: 9n }).answer).toBe('refused 400 VALIDATION_ERROR');
  state = only(state, { key: 'p', kind: 'repay', loan: 'L0', units: 3n }).state;
  state = only(state, { key: 'a', kind: 'repay', loan: 'L0', units: 'all' }).state;
  expect([state.units.B, state.units.V, state.loans.L0!.status]).toEqual([990n, 5_000n, 'REPAID']);
  expect(only(state, { key: 'again', kind: 'repay', loan: 'L0', units: 1n }).answer).toBe('refused 409 CONFLICT');
  state = only(state, { key: 'x', kind: 'close-loan', loan: 'L0' }).state;
  expect([state.units.B, state.units.E0, state.loans.L0!.status]).toEqual([1_000n, 0n, 'CLOSED']);
});

it('generates the same operations from the same seed, never touches what a resting write would move, and keeps every balance whole', () => {
  const walk = (seed: number) => {
    const random = new Random(seed);
    let state = start();
    const ops: Operation[] = [];
    for (let n = 0; n < 1_500; n++) {
      const op = nextOperation(state, shape, random, `k${n}`);
      const busy = busyObjects(state);
      const { objects, allowed } = expectationOf(state, shape, op);
      if (!('write' in op))
        for (const object of objects.filter((o) => o.startsWith('position:') || o.startsWith('wallet:'))) expect(busy.has(object)).toBe(false);
      state = apply(state, op, allowed[random.int(0, allowed.length - 1)]!);
      ops.push(op);
    }
    return { ops, state };
  };
  const { ops, state } = walk(7);
  expect(walk(7).ops).toEqual(ops);
  expect(walk(8).ops).not.toEqual(ops);
  expect(Object.values(state.units).every((u) => u >= 0n)).toBe(true);
  expect(Object.values(state.lamports).every((l) => l >= shape.rentMin)).toBe(true);
  expect(state.noncesHeld).toBeLessThanOrEqual(shape.nonceAccounts);
  // Every kind of operation came up.
  const kinds = new Set(ops.map((o) => o.kind));
  for (const kind of [
    'create-account',
    'transfer-network-currency',
    'mint',
    'burn',
    'transfer',
    'trade',
    'transfer-to-unknown',
    'malformed-transfer',
    'approve',
    'reject',
    'cancel',
    'submit',
    'sign',
    'create-loan',
    'repay',
    'close-loan',
  ])
    expect(kinds).toContain(kind);
});
