/**
 * The reference model of one client's part of the ledger: its wallets' lamports, its positions'
 * units, its instrument's supply, its durable nonce accounts in use, its resting writes and its loans.
 * Pure: `expectationOf` says which answers an operation may get and what each one changes;
 * `apply` makes that change. Each client owns its objects (Jepsen's independent keys), so its
 * history is sequential and the model exact.
 */
import type { Lifetime, Operation, WriteOperation } from './operations';

export type RestStatus = 'SIGNED' | 'AWAITING_APPROVAL' | 'AWAITING_SIGNATURES';
export type EndStatus = 'REJECTED' | 'CANCELLED' | 'EXPIRED';

/** What an answer says happened, as far as the model is concerned. */
export type Outcome =
  | { type: 'landed' }
  | { type: 'failed' }
  | { type: 'refused'; http: number; code: string }
  | { type: 'rests'; status: RestStatus }
  | { type: 'ended'; status: EndStatus }
  | { type: 'decided'; status: 'APPROVED' | 'REJECTED' }
  /** Anything else (never allowed): a 2xx in a status no write ends in, a 500, a body without a result. */
  | { type: 'other'; what: string };

/** A write that rests (awaiting approval or signatures, or signed until Submit) and what it moves when it lands. */
export interface Resting {
  key: string;
  status: RestStatus;
  lifetime: Lifetime;
  /** The objects it would move: no other operation touches them while it rests. */
  objects: string[];
  onLand: Change[];
  holdsNonce: boolean;
}

export interface Loan {
  status: 'OPEN' | 'REPAID' | 'CLOSED';
  principalDue: bigint;
  pledged: bigint;
  escrow: string;
}

export type Change =
  | { wallet: string; by: bigint }
  | { position: string; by: bigint }
  | { supply: bigint }
  | { newWallet: string; lamports: bigint }
  | { newPosition: string }
  | { seeds: bigint }
  | { nonces: number }
  | { rest: Resting }
  | { unrest: string }
  | { loan: string; set: Partial<Loan> };

export interface State {
  lamports: Record<string, bigint>;
  units: Record<string, bigint>;
  supply: bigint;
  noncesHeld: number;
  resting: Record<string, Resting>;
  loans: Record<string, Loan>;
  /** The statuses Fetch Transaction Status may show for each write (by key) that got a definite answer. */
  transactions: Record<string, string[]>;
  /** Lamports the fee payer gave as seeds to accounts created during the run. */
  seeds: bigint;
}

/** What does not change during a run: the limits, the rent-exempt minimum, the special objects. */
export interface Shape {
  /** A system account below this many lamports (but above 0) is refused by the network. */
  rentMin: bigint;
  guardedWallet: string;
  /** Debits of the guarded wallet above this many lamports wait for an approver. */
  lamportsLimit: bigint;
  guardedHolder: string;
  /** Debits of the guarded holder above this many units wait for an approver. */
  unitsLimit: bigint;
  borrower: string;
  vault: string;
  nonceAccounts: number;
  /** The strategy's loan-to-value limit, cBPS. */
  loanToValue: bigint;
}

export interface Allowed {
  /** The write's answer (for an operation on a resting write: the answer its own key gives afterwards). */
  outcome: Outcome;
  /** The answer of the operation's own route when it continues a resting write (Approve, Cancel, Submit …). */
  primary?: Outcome;
  changes: Change[];
}

export interface Expectation {
  /** The objects the operation may change (and the client reads afterwards). */
  objects: string[];
  allowed: Allowed[];
}

export const wallet = (name: string) => `wallet:${name}`;
export const position = (name: string) => `position:${name}`;
export const loanObject = (name: string) => `loan:${name}`;
export const transactionObject = (key: string) => `transaction:${key}`;
/** An account whose lamports the model does not follow (the borrower pays its loans' fees and rents): its sources must agree with each other. */
export const unfollowed = (name: string) => `lamports:${name}`;
/** The model's value of a field whose sources must agree among themselves. */
export const ANY_AGREED = 'any, the same from every source';
export const SUPPLY = 'supply';
export const NONCES = 'nonces';

export function initialState(): State {
  return { lamports: {}, units: {}, supply: 0n, noncesHeld: 0, resting: {}, loans: {}, transactions: {}, seeds: 0n };
}

const landed = (changes: Change[]): Allowed => ({ outcome: { type: 'landed' }, changes });
const refused = (http: number, code: string): Allowed => ({ outcome: { type: 'refused', http, code }, changes: [] });
const move = (kind: 'lamports' | 'units', name: string, by: bigint): Change => (kind === 'lamports' ? { wallet: name, by } : { position: name, by });

/** Objects some resting write would move: the generator leaves them alone. */
export function busyObjects(state: State): Set<string> {
  return new Set(Object.values(state.resting).flatMap((r) => r.objects));
}

/**
 * A write that moves value (Transfer Network Currency, Mint, Burn, Transfer): refused or held
 * according to the balance, the debit limit and the nonce pool, else landing or resting as asked.
 */
function writeExpectation(state: State, shape: Shape, op: WriteOperation): Expectation {
  const nonce = op.lifetime === 'DURABLE_NONCE';
  const tx = transactionObject(op.key);
  let objects: string[];
  let moves: Change[];
  let debit: { balance: bigint; amount: bigint; overLimit: boolean } | undefined;
  if (op.kind === 'transfer-network-currency') {
    objects = [wallet(op.from), wallet(op.to)];
    moves = [move('lamports', op.from, -op.lamports), move('lamports', op.to, op.lamports)];
    debit = { balance: state.lamports[op.from]!, amount: op.lamports, overLimit: op.from === shape.guardedWallet && op.lamports > shape.lamportsLimit };
  } else if (op.kind === 'mint') {
    objects = [position(op.to), SUPPLY];
    moves = [move('units', op.to, op.units), { supply: op.units }];
  } else if (op.kind === 'burn') {
    objects = [position(op.from), SUPPLY];
    moves = [move('units', op.from, -op.units), { supply: -op.units }];
    debit = { balance: state.units[op.from]!, amount: op.units, overLimit: op.from === shape.guardedHolder && op.units > shape.unitsLimit };
  } else {
    objects = [position(op.from), position(op.to)];
    moves = [move('units', op.from, -op.units), move('units', op.to, op.units)];
    debit = { balance: state.units[op.from]!, amount: op.units, overLimit: op.from === shape.guardedHolder && op.units > shape.unitsLimit };
  }
  const all = [...objects, tx, ...(nonce ? [NONCES] : [])];
  // Debits are checked against the balance at lookup, before anything else (network currency too: API.md section 10).
  if (debit && debit.amount > debit.balance) return { objects: all, allowed: [refused(400, 'INSUFFICIENT_BALANCE')] };
  // Over the limit: held before build (no nonce taken yet) until an approver decides.
  if (debit?.overLimit)
    return {
      objects: all,
      allowed: [
        {
          outcome: { type: 'rests', status: 'AWAITING_APPROVAL' },
          changes: [{ rest: { key: op.key, status: 'AWAITING_APPROVAL', lifetime: op.lifetime, objects, onLand: moves, holdsNonce: false } }],
        },
      ],
    };
  // Build reserves a free nonce account: none free is 409.
  if (nonce && state.noncesHeld >= shape.nonceAccounts) return { objects: all, allowed: [refused(409, 'CONFLICT')] };
  if (op.rest === 'NONE') return { objects: all, allowed: [landed(moves)] };
  return {
    objects: all,
    allowed: [
      {
        outcome: { type: 'rests', status: op.rest },
        changes: [
          { rest: { key: op.key, status: op.rest, lifetime: op.lifetime, objects, onLand: moves, holdsNonce: nonce } },
          ...(nonce ? [{ nonces: 1 }] : []),
        ],
      },
    ],
  };
}

/** Approve, Reject, Cancel, Submit or Sign of a resting write: the route's answer, and what the write's own key answers then. */
function restExpectation(state: State, op: Extract<Operation, { write: string }>): Expectation {
  const rest = state.resting[op.write];
  if (!rest) throw new Error(`no resting write ${op.write}`);
  const objects = [...rest.objects, transactionObject(rest.key), ...(rest.holdsNonce ? [NONCES] : [])];
  const release: Change[] = [{ unrest: rest.key }, ...(rest.holdsNonce ? [{ nonces: -1 }] : [])];
  const ended = (status: EndStatus): Outcome => ({ type: 'ended', status });
  // A recent blockhash may run out while the write rests: then it ends EXPIRED, nothing moved.
  const expired: Allowed[] =
    rest.lifetime === 'BLOCKHASH' && rest.status !== 'AWAITING_APPROVAL' ? [{ primary: ended('EXPIRED'), outcome: ended('EXPIRED'), changes: release }] : [];
  const goes: Allowed = { primary: { type: 'landed' }, outcome: { type: 'landed' }, changes: [...rest.onLand, ...release] };
  const cancelled: Allowed = { primary: ended('CANCELLED'), outcome: ended('CANCELLED'), changes: release };
  switch (op.kind) {
    case 'approve':
      return { objects, allowed: [{ ...goes, primary: { type: 'decided', status: 'APPROVED' } }] };
    case 'reject':
      return { objects, allowed: [{ primary: { type: 'decided', status: 'REJECTED' }, outcome: ended('REJECTED'), changes: release }] };
    case 'cancel':
      // Cancel of a write that already expired is refused (400 naming itemData.transaction).
      return { objects, allowed: [cancelled, ...expired.map((e) => ({ ...e, primary: { type: 'refused', http: 400, code: 'VALIDATION_ERROR' } as Outcome }))] };
    case 'submit':
    case 'sign':
      return { objects, allowed: [goes, ...expired] };
  }
}

function loanExpectation(state: State, shape: Shape, op: Extract<Operation, { loan: string }>): Expectation {
  const B = shape.borrower;
  const V = shape.vault;
  if (op.kind === 'create-loan') {
    const escrow = `E${op.loan.slice(1)}`;
    const objects = [position(B), position(V), position(escrow), loanObject(op.loan), unfollowed(B), transactionObject(op.key)];
    if (op.pledge > state.units[B]! + op.borrow) return { objects, allowed: [refused(400, 'INSUFFICIENT_BALANCE')] };
    if (op.borrow * 1_000_000n > op.pledge * shape.loanToValue) return { objects, allowed: [refused(400, 'VALIDATION_ERROR')] };
    return {
      objects,
      allowed: [
        landed([
          { newPosition: escrow },
          move('units', B, op.borrow - op.pledge),
          move('units', V, -op.borrow),
          move('units', escrow, op.pledge),
          { loan: op.loan, set: { status: 'OPEN', principalDue: op.borrow, pledged: op.pledge, escrow } },
        ]),
      ],
    };
  }
  const loan = state.loans[op.loan];
  if (!loan) throw new Error(`no loan ${op.loan}`);
  if (op.kind === 'repay') {
    const objects = [position(B), position(V), loanObject(op.loan), unfollowed(B), transactionObject(op.key)];
    if (loan.status !== 'OPEN') return { objects, allowed: [refused(409, 'CONFLICT')] };
    const amount = op.units === 'all' ? loan.principalDue : op.units;
    if (amount > loan.principalDue) return { objects, allowed: [refused(400, 'VALIDATION_ERROR')] };
    if (amount > state.units[B]!) return { objects, allowed: [refused(400, 'INSUFFICIENT_BALANCE')] };
    const settled: Partial<Loan> = op.units === 'all' ? { status: 'REPAID', principalDue: 0n } : { principalDue: loan.principalDue - amount };
    return { objects, allowed: [landed([move('units', B, -amount), move('units', V, amount), { loan: op.loan, set: settled }])] };
  }
  const objects = [position(B), position(loan.escrow), loanObject(op.loan), unfollowed(B), transactionObject(op.key)];
  if (loan.status !== 'REPAID') return { objects, allowed: [refused(409, 'CONFLICT')] };
  return {
    objects,
    allowed: [landed([move('units', loan.escrow, -loan.pledged), move('units', B, loan.pledged), { loan: op.loan, set: { status: 'CLOSED', pledged: 0n } }])],
  };
}

/** The answers the operation may get in this state, each with what it changes. */
export function expectationOf(state: State, shape: Shape, op: Operation): Expectation {
  switch (op.kind) {
    case 'create-account':
      return { objects: [wallet(op.wallet), transactionObject(op.key)], allowed: [landed([{ newWallet: op.wallet, lamports: op.seed }, { seeds: op.seed }])] };
    case 'transfer-network-currency':
    case 'mint':
    case 'burn':
    case 'transfer':
      return writeExpectation(state, shape, op);
    case 'trade': {
      const objects = [position(op.into), position(op.to), SUPPLY, transactionObject(op.key)];
      // The transfer leg sees the balance the mint leg leaves.
      if (op.transferUnits > state.units[op.into]! + op.mintUnits) return { objects, allowed: [refused(400, 'INSUFFICIENT_BALANCE')] };
      return {
        objects,
        allowed: [landed([move('units', op.into, op.mintUnits - op.transferUnits), move('units', op.to, op.transferUnits), { supply: op.mintUnits }])],
      };
    }
    case 'transfer-to-unknown':
      return { objects: [position(op.from)], allowed: [refused(404, 'NOT_FOUND')] };
    case 'malformed-transfer':
      return { objects: [position(op.from), position(op.to)], allowed: [refused(400, 'VALIDATION_ERROR')] };
    case 'approve':
    case 'reject':
    case 'cancel':
    case 'submit':
    case 'sign':
      return restExpectation(state, op);
    case 'create-loan':
    case 'repay':
    case 'close-loan':
      return loanExpectation(state, shape, op);
  }
}

/** The statuses Fetch Transaction Status may show after a write ended with `outcome`. */
function statusesAfter(outcome: Outcome): string[] | undefined {
  switch (outcome.type) {
    case 'landed':
      return ['CONFIRMED', 'FINALIZED'];
    case 'failed':
      return ['FAILED'];
    case 'rests':
    case 'ended':
      return [outcome.status];
    default:
      return undefined;
  }
}

/** The state after the operation got the answer `allowed` describes. */
export function apply(state: State, op: Operation, allowed: Allowed): State {
  const next = structuredClone(state);
  for (const change of allowed.changes) {
    if ('wallet' in change) next.lamports[change.wallet] = next.lamports[change.wallet]! + change.by;
    else if ('position' in change) next.units[change.position] = next.units[change.position]! + change.by;
    else if ('supply' in change) next.supply += change.supply;
    else if ('newWallet' in change) next.lamports[change.newWallet] = change.lamports;
    else if ('newPosition' in change) next.units[change.newPosition] = 0n;
    else if ('seeds' in change) next.seeds += change.seeds;
    else if ('nonces' in change) next.noncesHeld += change.nonces;
    else if ('rest' in change) next.resting[change.rest.key] = change.rest;
    else if ('unrest' in change) delete next.resting[change.unrest];
    else if ('loan' in change)
      next.loans[change.loan] = { ...(next.loans[change.loan] ?? { status: 'OPEN', principalDue: 0n, pledged: 0n, escrow: '' }), ...change.set };
  }
  const key = 'write' in op ? op.write : op.key;
  const statuses = statusesAfter(allowed.outcome);
  // A message with a recent blockhash that rests may run out of time whenever: EXPIRED, nothing moved.
  const rest = allowed.changes.find((c): c is { rest: Resting } => 'rest' in c)?.rest;
  if (statuses && rest?.lifetime === 'BLOCKHASH' && rest.status !== 'AWAITING_APPROVAL') statuses.push('EXPIRED');
  if (statuses) next.transactions[key] = statuses;
  return next;
}

/** What each field of an object reads in the model: the values it may show (usually one). */
export function modelValues(state: State, object: string): Record<string, string[]> | undefined {
  const [kind, name] = [object.slice(0, object.indexOf(':')), object.slice(object.indexOf(':') + 1)];
  if (object === SUPPLY) return { supply: [String(state.supply)] };
  if (object === NONCES) return { inUse: [String(state.noncesHeld)] };
  if (kind === 'wallet') return name in state.lamports ? { lamports: [String(state.lamports[name])] } : undefined;
  if (kind === 'lamports') return { lamports: [ANY_AGREED] };
  if (kind === 'position') return name in state.units ? { units: [String(state.units[name])] } : undefined;
  if (kind === 'loan') {
    const loan = state.loans[name];
    return loan && { status: [loan.status], principalDue: [String(loan.principalDue)], pledged: [String(loan.pledged)] };
  }
  if (kind === 'transaction') return state.transactions[name] && { status: state.transactions[name] };
  return undefined;
}

export function sameOutcome(a: Outcome, b: Outcome): boolean {
  return outcomeText(a) === outcomeText(b);
}

export function outcomeText(outcome: Outcome): string {
  switch (outcome.type) {
    case 'landed':
      return 'landed';
    case 'failed':
      return 'failed onchain';
    case 'refused':
      return `refused ${outcome.http} ${outcome.code}`;
    case 'rests':
      return `rests ${outcome.status}`;
    case 'ended':
      return `ended ${outcome.status}`;
    case 'decided':
      return `approval ${outcome.status}`;
    case 'other':
      return outcome.what;
  }
}

export function changeText(change: Change): string {
  const signed = (n: bigint) => (n >= 0n ? `+${n}` : String(n));
  if ('wallet' in change) return `${change.wallet} ${signed(change.by)} lamports`;
  if ('position' in change) return `${change.position} ${signed(change.by)}`;
  if ('supply' in change) return `supply ${signed(change.supply)}`;
  if ('newWallet' in change) return `new wallet ${change.newWallet} ${change.lamports} lamports`;
  if ('newPosition' in change) return `new position ${change.newPosition}`;
  if ('seeds' in change) return `fee payer seeds ${signed(change.seeds)}`;
  if ('nonces' in change) return `nonce accounts in use ${change.nonces > 0 ? '+' : ''}${change.nonces}`;
  if ('rest' in change) return `${change.rest.key} rests ${change.rest.status}`;
  if ('unrest' in change) return `${change.unrest} no longer rests`;
  return `${change.loan} ${Object.entries(change.set)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;
}

/** "landed: H1 -5, H2 +5", for a history. */
export function allowedText(allowed: Allowed): string {
  const primary = allowed.primary ? `${outcomeText(allowed.primary)}, then the write ` : '';
  const changes = allowed.changes.filter((c) => !('rest' in c) && !('unrest' in c)).map(changeText);
  return `${primary}${outcomeText(allowed.outcome)}${changes.length ? ` (${changes.join(', ')})` : ''}`;
}
