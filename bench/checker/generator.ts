/**
 * Seeded random operations for one client, chosen from what its model holds: every kind of write,
 * the refusals the model predicts, writes that rest and the operations that end them, loans.
 * Objects a resting write would move are left alone until it ends, so the model stays exact.
 */
import { busyObjects, position, wallet, type Shape, type State } from './model';
import type { Lifetime, Operation } from './operations';
import type { Random } from './random';

/** At most this many resting writes per client, and open loans. */
const MAX_RESTING = 3;
const MAX_OPEN_LOANS = 3;

type Candidate = [build: () => Operation | undefined, weight: number];

export function nextOperation(state: State, shape: Shape, random: Random, key: string): Operation {
  const busy = busyObjects(state);
  const wallets = Object.keys(state.lamports).filter((w) => !busy.has(wallet(w)));
  const holders = Object.keys(state.units).filter((h) => /^G?H\d*$/.test(h) && !busy.has(position(h)));
  const spendable = (w: string) => state.lamports[w]! - shape.rentMin;
  const units = (h: string) => state.units[h]!;
  const lifetime = (p: number): Lifetime => (random.chance(p) ? 'DURABLE_NONCE' : 'BLOCKHASH');
  const other = <T>(items: T[], not: T) => items.filter((i) => i !== not);
  /** One of the names, or '' when there is none. */
  const any = (items: string[]) => (items.length ? random.pick(items) : '');
  const resting = Object.values(state.resting);
  const loans = Object.entries(state.loans);
  const openLoans = loans.filter(([, l]) => l.status === 'OPEN');
  const { borrower: B, vault: V } = shape;
  // A mint resting into the borrower's position holds every loan operation back until it ends.
  const loansFree = !busy.has(position(B));

  /** A debit within the limit (and the balance) of `from`. */
  const tokenAmount = (from: string, most: bigint) =>
    random.big(
      1n,
      [units(from), most, ...(from === shape.guardedHolder ? [shape.unitsLimit] : [])].reduce((a, b) => (a < b ? a : b)),
    );

  const tnc = (rest: 'NONE' | 'SIGNED' | 'AWAITING_SIGNATURES'): Operation | undefined => {
    const from = any(wallets);
    const tos = other(wallets, from);
    if (!from || !tos.length || spendable(from) < 2_000n) return undefined;
    const most = [spendable(from), 2_000_000n, ...(from === shape.guardedWallet ? [shape.lamportsLimit] : [])].reduce((a, b) => (a < b ? a : b));
    return {
      key,
      kind: 'transfer-network-currency',
      from,
      to: random.pick(tos),
      lamports: random.big(1_000n, most),
      lifetime: lifetime(rest === 'NONE' ? 0.2 : 0.5),
      rest,
    };
  };
  const transfer = (rest: 'NONE' | 'SIGNED' | 'AWAITING_SIGNATURES'): Operation | undefined => {
    const from = any(holders);
    const tos = other(holders, from);
    if (!from || !tos.length || units(from) < 1n) return undefined;
    return { key, kind: 'transfer', from, to: random.pick(tos), units: tokenAmount(from, 30n), lifetime: lifetime(rest === 'NONE' ? 0.2 : 0.5), rest };
  };
  const mint = (rest: 'NONE' | 'SIGNED'): Operation | undefined => {
    const targets = [...holders, ...(busy.has(position(B)) ? [] : [B])];
    if (!targets.length) return undefined;
    return { key, kind: 'mint', to: random.pick(targets), units: random.big(1n, 50n), lifetime: lifetime(rest === 'NONE' ? 0.2 : 0.5), rest };
  };

  const candidates: Candidate[] = [
    [
      () => ({
        key,
        kind: 'create-account',
        wallet: `W${Object.keys(state.lamports).filter((w) => w.startsWith('W')).length}`,
        seed: random.big(1_000_000n, 3_000_000n),
      }),
      2,
    ],
    [() => tnc('NONE'), 10],
    // More than the wallet holds: refused before anything is signed (INSUFFICIENT_BALANCE).
    [
      () => {
        const from = any(other(wallets, shape.guardedWallet));
        const tos = other(wallets, from);
        if (!from || !tos.length) return undefined;
        return {
          key,
          variant: 'over-balance',
          kind: 'transfer-network-currency',
          from,
          to: random.pick(tos),
          lamports: state.lamports[from]! + random.big(1n, 100_000n),
          lifetime: lifetime(0.2),
          rest: 'NONE',
        };
      },
      1.5,
    ],
    [() => mint('NONE'), 8],
    [
      () => {
        const from = any(holders.filter((h) => units(h) > 0n));
        return from ? { key, kind: 'burn', from, units: tokenAmount(from, 10n), lifetime: lifetime(0.2), rest: 'NONE' } : undefined;
      },
      5,
    ],
    [
      () => {
        const from = any(holders);
        return from
          ? { key, variant: 'over-balance', kind: 'burn', from, units: units(from) + random.big(1n, 20n), lifetime: 'BLOCKHASH', rest: 'NONE' }
          : undefined;
      },
      1,
    ],
    [() => transfer('NONE'), 10],
    [
      () => {
        const from = any(holders);
        const tos = other(holders, from);
        return from && tos.length
          ? {
              key,
              variant: 'over-balance',
              kind: 'transfer',
              from,
              to: random.pick(tos),
              units: units(from) + random.big(1n, 20n),
              lifetime: 'BLOCKHASH',
              rest: 'NONE',
            }
          : undefined;
      },
      1.5,
    ],
    [
      () => {
        const into = any(other(holders, shape.guardedHolder));
        const tos = other(holders, into);
        if (!into || !tos.length) return undefined;
        const mintUnits = random.big(1n, 30n);
        return {
          key,
          kind: 'trade',
          into,
          to: random.pick(tos),
          mintUnits,
          transferUnits: random.big(1n, units(into) + mintUnits < 40n ? units(into) + mintUnits : 40n),
        };
      },
      5,
    ],
    [
      () => {
        const into = any(holders);
        const tos = other(holders, into);
        if (!into || !tos.length) return undefined;
        const mintUnits = random.big(1n, 10n);
        return {
          key,
          variant: 'over-balance',
          kind: 'trade',
          into,
          to: random.pick(tos),
          mintUnits,
          transferUnits: units(into) + mintUnits + random.big(1n, 10n),
        };
      },
      1,
    ],
    [
      () => {
        const from = any(holders.filter((h) => units(h) > 0n));
        const hex = Array.from({ length: 32 }, () => random.int(0, 15).toString(16)).join('');
        const owner = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
        return from ? { key, kind: 'transfer-to-unknown', from, owner, units: 1n } : undefined;
      },
      1,
    ],
    [
      () => {
        const from = any(holders);
        const tos = other(holders, from);
        return from && tos.length ? { key, kind: 'malformed-transfer', from, to: random.pick(tos), value: random.pick(['1.5', 'abc', '-3', '']) } : undefined;
      },
      1,
    ],
    // Over a debit limit that names an approver: the write waits in AWAITING_APPROVAL.
    [
      () => {
        if (resting.length >= MAX_RESTING) return undefined;
        const GW = shape.guardedWallet;
        const GH = shape.guardedHolder;
        const options: (() => Operation | undefined)[] = [
          () =>
            wallets.includes(GW) && spendable(GW) > shape.lamportsLimit + 1n && wallets.length > 1
              ? {
                  key,
                  variant: 'approval',
                  kind: 'transfer-network-currency',
                  from: GW,
                  to: random.pick(other(wallets, GW)),
                  lamports: random.big(
                    shape.lamportsLimit + 1n,
                    spendable(GW) < (shape.lamportsLimit * 3n) / 2n ? spendable(GW) : (shape.lamportsLimit * 3n) / 2n,
                  ),
                  lifetime: 'BLOCKHASH',
                  rest: 'NONE',
                }
              : undefined,
          () =>
            holders.includes(GH) && units(GH) > shape.unitsLimit && holders.length > 1
              ? {
                  key,
                  variant: 'approval',
                  kind: 'transfer',
                  from: GH,
                  to: random.pick(other(holders, GH)),
                  units: random.big(shape.unitsLimit + 1n, units(GH) < shape.unitsLimit * 2n ? units(GH) : shape.unitsLimit * 2n),
                  lifetime: 'BLOCKHASH',
                  rest: 'NONE',
                }
              : undefined,
          () =>
            holders.includes(GH) && units(GH) > shape.unitsLimit
              ? {
                  key,
                  variant: 'approval',
                  kind: 'burn',
                  from: GH,
                  units: random.big(shape.unitsLimit + 1n, units(GH) < shape.unitsLimit * 2n ? units(GH) : shape.unitsLimit * 2n),
                  lifetime: 'BLOCKHASH',
                  rest: 'NONE',
                }
              : undefined,
        ];
        return random.pick(options)();
      },
      3,
    ],
    // Resting at SIGNED until Submit Transaction, or in AWAITING_SIGNATURES until Sign Transaction.
    [() => (resting.length < MAX_RESTING ? random.pick([() => tnc('SIGNED'), () => transfer('SIGNED'), () => mint('SIGNED')])() : undefined), 3],
    [() => (resting.length < MAX_RESTING ? random.pick([() => tnc('AWAITING_SIGNATURES'), () => transfer('AWAITING_SIGNATURES')])() : undefined), 2],
    // Ending a resting write.
    [
      () => {
        if (!resting.length) return undefined;
        const rest = random.pick(resting);
        const kind =
          rest.status === 'AWAITING_APPROVAL'
            ? random.weighted([
                ['approve', 2],
                ['reject', 1],
                ['cancel', 1],
              ] as const)
            : rest.status === 'SIGNED'
              ? random.weighted([
                  ['submit', 3],
                  ['cancel', 1],
                ] as const)
              : random.weighted([
                  ['sign', 3],
                  ['cancel', 1],
                ] as const);
        return { key, kind, write: rest.key };
      },
      4 * resting.length,
    ],
    // Loans: the borrower B borrows from the strategy's vault V against the same instrument.
    [
      () => {
        if (openLoans.length >= MAX_OPEN_LOANS || state.units[V]! < 1n) return undefined;
        const borrow = random.big(1n, state.units[V]! < 30n ? state.units[V]! : 30n);
        const pledge = (borrow * 1_000_000n + shape.loanToValue - 1n) / shape.loanToValue + random.big(0n, 10n);
        if (pledge > state.units[B]! + borrow) return undefined;
        return { key, kind: 'create-loan', loan: `L${loans.length}`, borrow, pledge };
      },
      loansFree ? 3 : 0,
    ],
    [
      () => {
        if (openLoans.length >= MAX_OPEN_LOANS || state.units[V]! < 2n) return undefined;
        const borrow = random.big(2n, state.units[V]! < 30n ? state.units[V]! : 30n);
        const pledge = (borrow * 1_000_000n + shape.loanToValue - 1n) / shape.loanToValue - 1n;
        return pledge >= 1n && pledge <= state.units[B]!
          ? { key, variant: 'loan-to-value', kind: 'create-loan', loan: `L${loans.length}`, borrow, pledge }
          : undefined;
      },
      loansFree ? 0.5 : 0,
    ],
    [
      () => {
        const [name, loan] = openLoans.length ? random.pick(openLoans) : ['', undefined];
        if (!loan || loan.principalDue < 2n) return undefined;
        const most = loan.principalDue - 1n < state.units[B]! ? loan.principalDue - 1n : state.units[B]!;
        return most >= 1n ? { key, kind: 'repay', loan: name, units: random.big(1n, most) } : undefined;
      },
      loansFree ? 2 : 0,
    ],
    [
      () => {
        const [name, loan] = openLoans.length ? random.pick(openLoans) : ['', undefined];
        return loan && loan.principalDue <= state.units[B]! ? { key, kind: 'repay', loan: name, units: 'all' } : undefined;
      },
      loansFree ? 2 : 0,
    ],
    [
      () => {
        const [name, loan] = openLoans.length ? random.pick(openLoans) : ['', undefined];
        if (!loan) return undefined;
        const units = loan.principalDue + random.big(1n, 5n);
        return units <= state.units[B]! ? { key, variant: 'over-owed', kind: 'repay', loan: name, units } : undefined;
      },
      loansFree ? 0.5 : 0,
    ],
    [
      () => {
        const repaid = loans.filter(([, l]) => l.status === 'REPAID');
        return repaid.length ? { key, kind: 'close-loan', loan: random.pick(repaid)[0] } : undefined;
      },
      loansFree ? 2 : 0,
    ],
    [() => (openLoans.length ? { key, variant: 'not-repaid', kind: 'close-loan', loan: random.pick(openLoans)[0] } : undefined), loansFree ? 0.5 : 0],
    [
      () => {
        const settled = loans.filter(([, l]) => l.status !== 'OPEN');
        return settled.length ? { key, variant: 'settled', kind: 'repay', loan: random.pick(settled)[0], units: 1n } : undefined;
      },
      loansFree ? 0.5 : 0,
    ],
  ];
  for (let left = candidates.filter(([, w]) => w > 0); left.length;) {
    const chosen = random.weighted(left.map((c) => [c, c[1]] as const));
    const op = chosen[0]();
    if (op) return op;
    left = left.filter((c) => c !== chosen);
  }
  // Everything rests: end one of them.
  const rest = random.pick(resting);
  return { key, kind: rest.status === 'AWAITING_APPROVAL' ? 'reject' : 'cancel', write: rest.key };
}
