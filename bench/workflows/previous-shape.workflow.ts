/**
 * The write workflow as it was before the engine issue (commit 8329774), kept for `npm run bench`
 * only, so the gain of the present shape is a ratio measured in one run. Same steps, with the
 * previous costs: lookup to submit and record are local activities, confirm is a regular activity
 * (a second workflow task and two task-queue hand-offs), and the search attributes are set twice
 * (after sign, after record). Run with no-op activities it is the previous engine's ceiling.
 */
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Steps } from '../../src/activities';
import type { WriteRequest, WriteResult } from '../../src/domain/write';
import { signatureKey, statusKey } from '../../src/workflows/write/progress';

const local = proxyLocalActivities<Steps>({ startToCloseTimeout: '30s' });
const confirmation = proxyActivities<Steps>({ startToCloseTimeout: '3m', heartbeatTimeout: '3s' });

export async function previousShapeWrite(request: WriteRequest): Promise<WriteResult> {
  const resolved = await local.lookup(request);
  await local.checkLimits(request, resolved);
  const built = await local.build(request, resolved, 0);
  const signed = await local.sign(request, built, resolved.signers, 0);
  upsertSearchAttributes([
    { key: signatureKey, value: signed.signature },
    { key: statusKey, value: 'SUBMITTED' },
  ]);
  await local.submit(request, signed, 0);
  const outcome = await confirmation.confirm(request, signed, built);
  const result = await local.record(request, resolved, outcome, 0);
  upsertSearchAttributes([{ key: statusKey, value: outcome.status }]);
  return result;
}
