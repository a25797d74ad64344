/**
 * The checker's runner and history (bench/checker/runner.ts, history.ts) against a fake system that
 * behaves as the model says, but for one deliberate fault: a write that lands twice, or a refusal
 * answered as success. Each must be reported as a divergence with its shortest history: the
 * operations on the diverging object since the last read that agreed on it.
 */
import { History } from '../../bench/checker/history';
import { apply, expectationOf, initialState, modelValues, position, type Shape, type State } from '../../bench/checker/model';
import type { Operation } from '../../bench/checker/operations';
import { Random } from '../../bench/checker/random';
import { checkReads, newTally, runClient, type ClientRun, type ClientSystem } from '../../bench/checker/runner';

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
  Object.assign(state.units, { H0: 100n, H1: 100n, H2: 100n, GH: 100n, B: 1_000n, V: 5_000n });
  state.supply = 6_400n;
  return state;
}

/** A system that does what the model allows (its first answer), except where `fault` says otherwise. */
function fakeSystem(fault: (op: Operation, n: number) => 'double' | 'succeed' | undefined): ClientSystem & { performed: Operation[] } {
  let state = start();
  const performed: Operation[] = [];
  return {
    performed,
    async perform(op, attempt) {
      const n = performed.push(op) - 1;
      const allowed = expectationOf(state, shape, op).allowed[0]!;
      attempt({ at: n, request: `fake ${op.kind}`, answer: 'answer' });
      const how = fault(op, n);
      if (how === 'succeed') return { final: { type: 'landed' } };
      state = apply(state, op, allowed);
      if (how === 'double') state = apply(state, op, allowed);
      return { final: allowed.outcome, ...(allowed.primary ? { primary: allowed.primary } : {}) };
    },
    async read(object) {
      const values = modelValues(state, object);
      return values ? Object.entries(values).map(([field, v]) => ({ field, source: 'fake', value: v[0]! })) : [];
    },
  };
}

async function run(system: ClientSystem, operations = 400) {
  const history = new History(Date.now());
  let left = operations;
  const client: ClientRun = {
    client: 0,
    shape,
    state: start(),
    random: new Random(11),
    system,
    history,
    keyPrefix: 'k',
    more: () => left-- > 0,
    tally: newTally(),
  };
  const objects = [...Object.keys(client.state.units).map(position)];
  expect(await checkReads(client, history.begin(0, 'setup', objects, []), objects)).toBeUndefined();
  return { divergence: await runClient(client), history, client };
}

it('finds nothing when the system does what the model says', async () => {
  const { divergence, client } = await run(fakeSystem(() => undefined));
  expect(divergence).toBeUndefined();
  expect(client.tally.readsChecked).toBeGreaterThan(400);
});

it('reports a transfer that landed twice at the next read of its positions, with the operations on them since they last agreed', async () => {
  let doubled: Operation | undefined;
  const system = fakeSystem((op, n) => {
    if (n < 40 || doubled || op.kind !== 'transfer' || op.rest !== 'NONE' || op.variant) return undefined;
    doubled = op;
    return 'double';
  });
  const { divergence, history } = await run(system);
  if (doubled?.kind !== 'transfer') throw new Error('no transfer was made');
  expect(divergence).toMatchObject({ client: 0, objects: [position(doubled.from), position(doubled.to)] });
  expect(divergence!.what).toContain(`${position(doubled.from)} units: fake`);

  const { anchors, entries } = history.shortest(divergence!);
  const last = entries.at(-1)!;
  expect(last.key).toBe(doubled.key);
  expect(last.seq).toBe(divergence!.seq);
  for (const object of divergence!.objects) {
    const anchor = anchors.get(object)!;
    // The anchor read the object and agreed; every later operation of the client on it is in the history, nothing else is.
    expect(anchor.reads.filter((r) => r.object === object).every((r) => r.agree)).toBe(true);
    const since = history.entries.filter((e) => e.seq > anchor.seq && e.seq <= divergence!.seq && e.objects.includes(object));
    for (const e of since) expect(entries).toContain(e);
  }
  expect(entries.every((e) => e.objects.some((o) => divergence!.objects.includes(o)))).toBe(true);
  expect(entries.length).toBeLessThan(history.entries.length / 4);

  const text = history.format(divergence!, 'CHAOS_SEED=11 npm run chaos');
  expect(text).toContain(`DIVERGENCE (client 0, ${position(doubled.from)}, ${position(doubled.to)})`);
  expect(text).toContain('reproduce: CHAOS_SEED=11 npm run chaos');
  expect(text).toContain(`last agreement on ${position(doubled.from)}: #${anchors.get(position(doubled.from))!.seq}`);
  expect(text).toContain(`Transfer ${doubled.from} → ${doubled.to} ${doubled.units}`);
  expect(text).toMatch(/model allows: landed \(H\d -\d+, H\d \+\d+\)/);
  expect(text).toContain('DIFFERS');
});

it('reports a refusal answered as a success at once, the refused operation last in its history', async () => {
  let wrong: Operation | undefined;
  const system = fakeSystem((op) => {
    if (wrong || op.variant !== 'over-balance' || op.kind !== 'transfer') return undefined;
    wrong = op;
    return 'succeed';
  });
  const { divergence, history } = await run(system);
  expect(wrong).toBeDefined();
  expect(divergence!.what).toBe('answered landed; the model allows refused 400 INSUFFICIENT_BALANCE');
  const { entries } = history.shortest(divergence!);
  expect(entries.at(-1)!.key).toBe(wrong!.key);
  expect(history.format(divergence!, 'x')).toContain('answered: landed');
});
