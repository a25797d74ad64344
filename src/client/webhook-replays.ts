/** The replay of a post-submit webhook event below HTTP (docs/webhooks.md): one `replayWebhookEvent` workflow per replay request. */
import { organizationSegment } from '../domain/workflow-ids';
import type { WriteCaller, WriteClientDeps } from './write-client';

export interface WebhookReplay {
  caller: WriteCaller;
  eventId: string;
  /** The request's x-request-id: a retried request (same id) finds the same replay. */
  requestId: string;
  requestedAt: Date;
}

/**
 * Starts the replay, or finds the one of the same request (idempotent). Resolves once started, with
 * `ended`, which settles (never rejects) when the replay's workflow ends; fails with Temporal's error
 * when it cannot start.
 */
export async function startWebhookReplay(deps: Pick<WriteClientDeps, 'temporal'>, replay: WebhookReplay): Promise<{ ended: Promise<void> }> {
  const { caller, eventId } = replay;
  const handle = await deps.temporal.client.workflow.start('replayWebhookEvent', {
    taskQueue: deps.temporal.taskQueue,
    workflowId: `webhook-replay-${organizationSegment({ id: caller.organizationId, externalId: caller.organizationExternalId })}-${eventId}-${replay.requestId}`,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [caller.organizationId, eventId, replay.requestedAt.toISOString()],
  });
  return {
    ended: handle.result().then(
      () => undefined,
      () => undefined,
    ),
  };
}
