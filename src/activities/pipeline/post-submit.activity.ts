/** Hands the post-submit webhooks of a write to their own delivery workflow, without a workflow task of the write's. */
import type { WriteRequest } from '../../domain/write';
import type { PipelineContext } from './context';

export function createStartPostSubmitDelivery(ctx: PipelineContext) {
  /**
   * Starts `deliverPostSubmitWebhooks` under the fixed id `<write's workflow id>-post-submit`, so a
   * replay finds the delivery already started instead of starting a second. Its retries run for over
   * a day on their own; the write does not wait for them.
   */
  return async function startPostSubmitDelivery(request: WriteRequest): Promise<void> {
    await ctx.deps.deliveries.start(`${request.workflowId}-post-submit`, request);
  };
}
