/**
 * One client's run: the next seeded operation from its model, the system's answer judged against
 * the answers the model allows, the model moved by the answer, and every object the operation may
 * have changed read back and compared with the model. Sequential per client: a write whose answer
 * is not definite yet is asked again (same key) before anything is read or done next.
 */
import { NoDefiniteAnswer, type Attempt } from './client';
import { nextOperation } from './generator';
import type { Divergence, Entry, History } from './history';
import { ANY_AGREED, allowedText, apply, expectationOf, modelValues, outcomeText, sameOutcome, type Outcome, type Shape, type State } from './model';
import { describe, type Operation } from './operations';
import type { Random } from './random';

export interface Performed {
  /** The write's answer (for an operation on a resting write: what its own key answers afterwards). */
  final: Outcome;
  /** The answer of the operation's own route when it continues a resting write. */
  primary?: Outcome;
}

export interface Observation {
  field: string;
  source: string;
  value: string;
}

/** What a client needs from the service: the real one over HTTP and the chain, or a fake in unit tests. */
export interface ClientSystem {
  perform(op: Operation, attempt: (a: Attempt) => void): Promise<Performed>;
  /** The object's fields as the service and the chain show them now (none: it cannot be read yet). */
  read(object: string, attempt: (a: Attempt) => void): Promise<Observation[]>;
  /** More about an object for a divergence's report (a transaction's status history). */
  explain?(object: string): Promise<string[]>;
}

export interface Tally {
  operations: Map<string, number>;
  outcomes: Map<string, number>;
  readsChecked: number;
  /** Operations answered only after more than one request (a fault, a write still running, a rest). */
  retried: number;
}

export const newTally = (): Tally => ({ operations: new Map(), outcomes: new Map(), readsChecked: 0, retried: 0 });
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

export interface ClientRun {
  client: number;
  shape: Shape;
  state: State;
  random: Random;
  system: ClientSystem;
  history: History;
  keyPrefix: string;
  /** Whether to go on (time or operations left, and no divergence anywhere). */
  more: () => boolean;
  /** Held between operations while a fault must not catch one (the fork: fork.ts). */
  gate?: { enter(): Promise<void>; leave(): void };
  tally: Tally;
}

/** Reads `objects` and compares them with the model; the disagreeing ones, if any, as a divergence. */
export async function checkReads(run: ClientRun, entry: Entry, objects: string[]): Promise<Divergence | undefined> {
  const differing: string[] = [];
  for (const object of objects) {
    const want = modelValues(run.state, object);
    if (!want) continue;
    // A read that needed asking again (a fault) shows in the history.
    const seen = await run.system.read(object, (a) => (a.again || !a.answer.startsWith('200') ? entry.attempts.push(a) : undefined));
    for (const o of seen) {
      const allowed = want[o.field];
      if (!allowed) continue;
      // A value the model does not follow: every source must show the same.
      const agree = allowed[0] === ANY_AGREED ? seen.every((x) => x.field !== o.field || x.value === o.value) : allowed.includes(o.value);
      entry.reads.push({ object, field: o.field, source: o.source, seen: o.value, allowed, agree });
      run.tally.readsChecked++;
      if (!agree) differing.push(`${object} ${o.field}: ${o.source} ${o.value}, model ${allowed.join(' or ')}`);
    }
  }
  run.history.finish(entry);
  if (!differing.length) return undefined;
  return { client: run.client, seq: entry.seq, objects: [...new Set(differing.map((d) => d.slice(0, d.indexOf(' '))))], what: differing.join('; ') };
}

/** The operations of one client until `more` says stop; the first divergence ends it. */
export async function runClient(run: ClientRun): Promise<Divergence | undefined> {
  for (let n = 0; run.more(); n++) {
    await run.gate?.enter();
    try {
      const op = nextOperation(run.state, run.shape, run.random, `${run.keyPrefix}-${n}`);
      const divergence = await step(run, op);
      if (divergence) return divergence;
    } finally {
      run.gate?.leave();
    }
  }
  return undefined;
}

/** One operation: perform, judge, apply, read back. */
export async function step(run: ClientRun, op: Operation): Promise<Divergence | undefined> {
  const expectation = expectationOf(run.state, run.shape, op);
  const entry = run.history.begin(run.client, describe(op), expectation.objects, expectation.allowed.map(allowedText), 'write' in op ? op.write : op.key);
  bump(run.tally.operations, `${op.kind}${op.variant ? ` (${op.variant})` : ''}`);
  let performed: Performed;
  try {
    performed = await run.system.perform(op, (a) => entry.attempts.push(a));
  } catch (error) {
    if (!(error instanceof NoDefiniteAnswer)) throw error;
    return explained(run, { client: run.client, seq: entry.seq, objects: expectation.objects, what: error.message });
  }
  entry.answered = `${performed.primary ? `${outcomeText(performed.primary)}, then the write ` : ''}${outcomeText(performed.final)}`;
  bump(run.tally.outcomes, outcomeText(performed.final));
  if (entry.attempts.some((a) => a.again)) run.tally.retried++;
  const match = expectation.allowed.find(
    (a) => sameOutcome(a.outcome, performed.final) && (!a.primary || (performed.primary !== undefined && sameOutcome(a.primary, performed.primary))),
  );
  if (!match) {
    // What the objects hold now, against the model before the operation: did anything move?
    await checkReads(run, entry, expectation.objects);
    return explained(run, {
      client: run.client,
      seq: entry.seq,
      objects: expectation.objects,
      what: `answered ${entry.answered}; the model allows ${expectation.allowed.map(allowedText).join(' | ')}`,
    });
  }
  run.state = apply(run.state, op, match);
  const differs = await checkReads(run, entry, expectation.objects);
  return differs && explained(run, differs);
}

/** The divergence with what the system says about its objects. */
async function explained(run: ClientRun, divergence: Divergence): Promise<Divergence> {
  const evidence: string[] = [];
  for (const object of divergence.objects)
    evidence.push(...((await run.system.explain?.(object).catch((error) => [`${object}: ${(error as Error).message}`])) ?? []));
  return evidence.length ? { ...divergence, evidence } : divergence;
}
