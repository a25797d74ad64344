/** All activities, built over their dependencies; workflows see only this factory's type. */
import type { ActivityDeps } from './deps';
import { withFailureBoundary } from './failure';
import { createPipelineActivities } from './pipeline';
import { createWebhookActivities } from './webhooks.activities';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps) {
  return withFailureBoundary({ ...createPipelineActivities(deps), ...createWebhookActivities(deps) }, ['confirm', 'record']);
}
