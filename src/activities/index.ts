/** All activities, built over their dependencies; workflows see only this factory's type. */
import type { ActivityDeps } from './deps';
import { withFailureBoundary } from './failure';
import { createPipelineActivities, type Steps } from './pipeline';
import { createWebhookActivities } from './webhooks.activities';
import { createLoanActivities } from './loan.activities';
import { createFollowerActivities } from './follower/follow-chain.activity';
import { createReconciliationActivities } from './reconciliation/reconciliation.activities';

export type { ActivityDeps } from './deps';
export type { Steps } from './pipeline';

/** `wrapSteps`: a test or bench hook around each pipeline step (fault points, timings). */
export function createActivities(deps: ActivityDeps, wrapSteps?: (steps: Steps) => Steps) {
  return withFailureBoundary(
    {
      ...createPipelineActivities(deps, wrapSteps),
      ...createWebhookActivities(deps),
      ...createLoanActivities(deps),
      ...createFollowerActivities(deps),
      ...createReconciliationActivities(deps),
    },
    ['deliver', 'record'],
  );
}
