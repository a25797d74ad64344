/**
 * The steps grouped into the few local activities a write runs (docs/write-engine.md, "One workflow task per write"). Each local
 * activity costs the worker one workflow activation (about 2 ms of CPU on its single workflow
 * thread, measured by `npm run bench`), so the steps from lookup to sign run as one activity and
 * those from submit to record as another: a write is two activations of work instead of seven.
 * The steps stay separate functions (one module each) and keep their replay rules; grouping them
 * changes nothing for exactly-once, since every step already reads the write's record before it
 * acts, and the boundary between the two groups is still the signed bytes: nothing signs and sends
 * in one attempt. A pre-submit webhook sees the signed message (docs/webhooks.md): the workflow calls it
 * after `prepare`, whose result (the signature recorded) is then in its history.
 */
import { confirmDuration } from '../../observability/metrics';
import type { ApprovalNeeded } from '../limit-check';
import type { BuiltTransaction, Outcome, Resolved, SignedTransaction, WriteRequest, WriteResult } from '../../domain/write';

/** The steps a stage is made of, by name (the fault tests and the bench's anatomy wrap them one by one). */
export interface Steps {
  lookup(request: WriteRequest): Promise<Resolved>;
  checkLimits(request: WriteRequest, resolved: Resolved): Promise<ApprovalNeeded | undefined>;
  /** `recordAbsent`: lookup just found no record of the write, so build inserts one without reading. */
  build(request: WriteRequest, resolved: Resolved, part?: number, recordAbsent?: boolean): Promise<BuiltTransaction>;
  sign(request: WriteRequest, built: BuiltTransaction, allowed: string[], part?: number, awaited?: string[]): Promise<SignedTransaction>;
  submit(request: WriteRequest, signed: SignedTransaction, part?: number): Promise<{ rejected: string | null }>;
  confirm(request: WriteRequest, signed: SignedTransaction, built: BuiltTransaction): Promise<Outcome>;
  /** `sent`: the signature deliver sent, when it has it (spares a read). */
  record(request: WriteRequest, resolved: Resolved, outcome: Outcome | null, part?: number, sent?: string): Promise<WriteResult>;
}

/** A message ready for the network: built and signed. */
export interface Prepared {
  built: BuiltTransaction;
  signed: SignedTransaction;
}

/** What delivering one message ended with: its record, or a proven expiry the workflow may build anew after. */
export type Delivered = { expired: true } | { expired: false; result: WriteResult };

/** Attempts of submit inside one delivery before it goes on to confirm (the bytes may have arrived). */
const SUBMIT_ATTEMPTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createStages(steps: Steps) {
  /** Build, then sign (a reused message signs to the signature already recorded). */
  async function buildAndSign(request: WriteRequest, resolved: Resolved, part = 0, recordAbsent?: boolean): Promise<Prepared> {
    const built = await steps.build(request, resolved, part, recordAbsent);
    return { built, signed: await steps.sign(request, built, resolved.signers, part, resolved.awaitedSigners) };
  }

  return {
    /**
     * lookup → limit check → build → sign of the write's first transaction. Idempotent (each step
     * reads the record first); a refusal fails it before anything is sent. A resumed write skips the
     * limit check: its debits were checked and held before its message was signed. A debit that
     * needs approval stops before build (`awaitingApproval`): no lifetime runs out while approvers decide.
     */
    async prepare(request: WriteRequest): Promise<{ resolved: Resolved; prepared?: Prepared; awaitingApproval?: ApprovalNeeded }> {
      // recordAbsent is for build alone: it never reaches the history (a later build must read the record).
      const { recordAbsent, ...resolved } = await steps.lookup(request);
      const awaitingApproval = resolved.resumed ? undefined : await steps.checkLimits(request, resolved);
      if (awaitingApproval) return { resolved, awaitingApproval };
      if (!resolved.needsTransaction) return { resolved };
      return { resolved, prepared: await buildAndSign(request, resolved, 0, recordAbsent) };
    },

    /** build → sign of a later transaction of the write, or of a new message after a proven expiry. Idempotent as build and sign are. */
    prepareNext: buildAndSign,

    /**
     * submit → confirm → record of one signed message. Safe to repeat: submit sends the same bytes
     * (the network takes them once), confirm polls, record answers a recorded outcome as it is. A
     * refusal of the bytes is recorded FAILED without confirming. A proven expiry is recorded only on
     * the last lifetime (`lastLifetime`); otherwise the workflow builds anew. It never gives up:
     * every failure is retried (the network may have moved value).
     */
    async deliver(
      request: WriteRequest,
      resolved: Resolved,
      built: BuiltTransaction,
      signed: SignedTransaction,
      part: number,
      lastLifetime: boolean,
    ): Promise<Delivered> {
      let rejected: string | null = null;
      const sent = confirmDuration.startTimer({ cluster: request.cluster, commitment: request.commitment });
      for (let attempt = 1; ; attempt++) {
        try {
          rejected = (await steps.submit(request, signed, part)).rejected;
          break;
        } catch {
          // Transport faults: the bytes may still have arrived. Past the attempts, confirm finds out.
          if (attempt >= SUBMIT_ATTEMPTS) break;
          await sleep(200 * attempt);
        }
      }
      const outcome: Outcome = rejected ? { status: 'FAILED', errorMessage: rejected } : await steps.confirm(request, signed, built);
      if (!rejected) sent();
      if (outcome.status === 'EXPIRED' && !lastLifetime) return { expired: true };
      return { expired: false, result: await steps.record(request, resolved, outcome, part, signed.signature ?? undefined) };
    },

    /** The record of a write that sends nothing now (`outcome` null: offchain only) or rests SIGNED. */
    record: steps.record,
  };
}
