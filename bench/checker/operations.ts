/**
 * The operations a client performs, as plain data in the customer's words: what it asks, on which of
 * its own objects. Objects are named per client: wallets (network currency) `W0`, `GW` (guarded by a
 * debit limit with an approver); positions of the client's instrument `H0`…, `GH` (guarded), the
 * borrower's `B`, the strategy's vault `V`, a loan's escrow `E0`…; loans `L0`…
 */

/** How a write's message lives: a recent blockhash (expires) or one of the client's durable nonce accounts (never expires). */
export type Lifetime = 'BLOCKHASH' | 'DURABLE_NONCE';

/**
 * How the write is asked to go: at once; resting at SIGNED until Submit Transaction
 * (`submitTransaction: false`); or waiting in AWAITING_SIGNATURES until Sign Transaction (the
 * source's lookup says `autoSign: false`).
 */
export type Rest = 'NONE' | 'SIGNED' | 'AWAITING_SIGNATURES';

interface WriteOptions {
  lifetime: Lifetime;
  rest: Rest;
}

export type Operation = { key: string; variant?: string } & (
  | { kind: 'create-account'; wallet: string; seed: bigint }
  | ({ kind: 'transfer-network-currency'; from: string; to: string; lamports: bigint } & WriteOptions)
  | ({ kind: 'mint'; to: string; units: bigint } & WriteOptions)
  | ({ kind: 'burn'; from: string; units: bigint } & WriteOptions)
  | ({ kind: 'transfer'; from: string; to: string; units: bigint } & WriteOptions)
  | { kind: 'trade'; into: string; to: string; mintUnits: bigint; transferUnits: bigint }
  /** A transfer to the position of an owner the service does not know: 404. */
  | { kind: 'transfer-to-unknown'; from: string; owner: string; units: bigint }
  /** A transfer whose value is not a number of base units: 400 before anything starts. */
  | { kind: 'malformed-transfer'; from: string; to: string; value: string }
  /** Decide or end a resting write (named by its key). */
  | { kind: 'approve' | 'reject' | 'cancel' | 'submit' | 'sign'; write: string }
  | { kind: 'create-loan'; loan: string; borrow: bigint; pledge: bigint }
  | { kind: 'repay'; loan: string; units: bigint | 'all' }
  | { kind: 'close-loan'; loan: string }
);

export type Kind = Operation['kind'];
/** The operations that start a write of their own (the others continue one). */
export type WriteOperation = Extract<Operation, { kind: 'transfer-network-currency' | 'mint' | 'burn' | 'transfer' }>;

const lifetimeNote = (op: { lifetime?: Lifetime; rest?: Rest }) =>
  [op.lifetime === 'DURABLE_NONCE' ? 'durable nonce' : '', op.rest && op.rest !== 'NONE' ? `rest ${op.rest}` : ''].filter(Boolean).join(', ');

/** One line for a history. */
export function describe(op: Operation): string {
  const note = (extra: string) => (extra ? ` (${extra})` : '');
  switch (op.kind) {
    case 'create-account':
      return `Create Account ${op.wallet} seeded ${op.seed} lamports`;
    case 'transfer-network-currency':
      return `Transfer Network Currency ${op.from} → ${op.to} ${op.lamports} lamports${note(lifetimeNote(op))}`;
    case 'mint':
      return `Mint ${op.units} into ${op.to}${note(lifetimeNote(op))}`;
    case 'burn':
      return `Burn ${op.units} from ${op.from}${note(lifetimeNote(op))}`;
    case 'transfer':
      return `Transfer ${op.from} → ${op.to} ${op.units}${note(lifetimeNote(op))}`;
    case 'trade':
      return `Trade: mint ${op.mintUnits} into ${op.into}, transfer ${op.into} → ${op.to} ${op.transferUnits}`;
    case 'transfer-to-unknown':
      return `Transfer ${op.from} → the position of unknown owner ${op.owner} ${op.units}`;
    case 'malformed-transfer':
      return `Transfer ${op.from} → ${op.to} value ${JSON.stringify(op.value)}`;
    case 'approve':
    case 'reject':
    case 'cancel':
    case 'submit':
    case 'sign':
      return `${{ approve: 'Approve', reject: 'Reject', cancel: 'Cancel', submit: 'Submit Transaction', sign: 'Sign Transaction' }[op.kind]} write ${op.write}`;
    case 'create-loan':
      return `Create Loan ${op.loan}: borrow ${op.borrow} from V against ${op.pledge} pledged by B`;
    case 'repay':
      return `Repay Loan ${op.loan} ${op.units === 'all' ? 'repayAll' : op.units}`;
    case 'close-loan':
      return `Close Loan ${op.loan}`;
  }
}
