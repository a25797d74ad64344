/**
 * The chain follower of one cluster (docs/chain-follower.md): a long-lived workflow, one per cluster
 * and task queue, that calls its step (followChain: one batch of confirmed blocks recorded with the
 * durable cursor) again and again, resting about a block time when caught up. Operators see where it
 * stands with the `position` query (Temporal Web UI: Queries) and in the lag metrics. Its history
 * stays short: it continues as new when Temporal suggests it or after a fixed number of steps.
 */
import { continueAsNew, defineQuery, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { FollowerPosition } from '../activities/follower/follow-chain.activity';

type Activities = ReturnType<typeof createActivities>;

export interface ChainFollowerInput {
  cluster: string;
  /** Slots per step (default 50: 20 s of a real cluster's blocks). */
  maxSlots?: number;
  /** Rest when caught up, in ms (default 400: a block time). */
  idleMs?: number;
  /** Where the previous run stood (continue-as-new). */
  position?: FollowerPosition | null;
}

export const chainFollowerQueries = { position: 'position' } as const;
export const positionQuery = defineQuery<FollowerPosition | null>(chainFollowerQueries.position);

/** Steps per run before continuing as new (each is about ten history events). */
const STEPS_PER_RUN = 500;

const { followChain } = proxyActivities<Activities>({
  startToCloseTimeout: '2m',
  // The step heartbeats: a worker killed mid-step is noticed in 20 s and the step retried on another.
  heartbeatTimeout: '20s',
  // Transport faults (the node, the database) are retried for ever, at most every 10 s: the follower must not stop.
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s' },
  summary: 'follow the chain: record one batch of blocks',
});

export async function chainFollower(input: ChainFollowerInput): Promise<never> {
  let position: FollowerPosition | null = input.position ?? null;
  setHandler(positionQuery, () => position);
  for (let step = 0; step < STEPS_PER_RUN && !workflowInfo().continueAsNewSuggested; step++) {
    position = await followChain(input.cluster, input.maxSlots ?? 50);
    if (position.caughtUp) await sleep(input.idleMs ?? 400);
  }
  return continueAsNew<typeof chainFollower>({ ...input, position });
}
