/** Confirm: where the sent signature stands, polled until an outcome. */
import { sentSignature, type Outcome, type SignedTransaction, type BuiltTransaction, type WriteRequest } from '../../domain/write';
import { finalizedCount, grownCount } from '../../domain/finality';
import type { PipelineContext } from './context';
import { nextPoll } from './poll-clock';

const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

export function createConfirm(ctx: PipelineContext) {
  /**
   * Polls the signature until it reaches the requested commitment, fails onchain, or its lifetime is
   * proven over and the network still does not know it (EXPIRED: it can never land, the workflow may
   * build anew). Stateless, so a replay or retry just polls again; transport faults are thrown and
   * retried for as long as the network stays away. Polls on the process's shared clock (poll-clock.ts),
   * so the polls of all waiting writes share one request.
   */
  return async function confirm(request: WriteRequest, signed: SignedTransaction, built: BuiltTransaction): Promise<Outcome> {
    const network = ctx.network(request.cluster);
    const lifetime = ctx.lifetime(request);
    // The highest count seen while polling: once rooted the network reports none (null), and a write that waited for `finalized` keeps it.
    let seen: number | null = null;
    // Poll often at first (a block is 400 ms on public clusters), then back off to one poll per slot. At
    // once only for `processed`: a signature sent this instant can be processed, not yet confirmed.
    for (let delay = 50, first = true; ; delay = Math.min(delay + 25, 400), first = false) {
      if (!first || request.commitment !== 'processed') await nextPoll(delay);
      const status = await network.getSignatureStatus(sentSignature(signed));
      if (status?.err) return { status: 'FAILED', errorMessage: `the network refused the transaction: ${json(status.err)}`, slot: status.slot.toString() };
      if (status?.confirmations != null) seen = grownCount(seen, status.confirmations);
      if (status?.confirmationStatus && rank[status.confirmationStatus] >= rank[request.commitment]) {
        const slot = status.slot.toString();
        if (status.confirmationStatus === 'processed') return { status: 'SUBMITTED', slot, confirmations: seen };
        if (status.confirmationStatus === 'confirmed') return { status: 'CONFIRMED', slot, confirmations: seen };
        // Rooted before any count was seen: the rule of docs/finality.md (its distance to the confirmed tip), never 0.
        const confirmations = seen && seen > 0 ? seen : finalizedCount(seen, status.slot, await network.getSlot('confirmed'));
        return { status: 'FINALIZED', slot, confirmations };
      }
      // Looked at once more after the proof: it may have landed between the two reads.
      if (!status && (await lifetime.isOver(built.lifetime)) && !(await network.getSignatureStatus(sentSignature(signed)))) return { status: 'EXPIRED' };
    }
  };
}
