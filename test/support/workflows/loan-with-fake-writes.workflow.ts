/**
 * The real `loanLifecycle` beside a fake `ledgerWrite` (test/integration/loan-workflow.test.ts): a
 * write whose itemData says `block: true` waits for `finishWrite` (to succeed, or to fail with a
 * refusal), any other ends at once; each answers its transaction id.
 */
import { ApplicationFailure, condition, defineSignal, setHandler } from '@temporalio/workflow';
import type { WriteRequest, WriteResult } from '../../../src/domain/write';

export { loanLifecycle } from '../../../src/workflows/loan.workflow';

export const finishWrite = defineSignal<[{ refuse?: string }]>('finishWrite');

export async function ledgerWrite(request: WriteRequest): Promise<WriteResult> {
  let finished: { refuse?: string } | undefined;
  setHandler(finishWrite, (how) => {
    finished = how;
  });
  if ((request.itemData as { block?: boolean }).block) await condition(() => finished !== undefined);
  if (finished?.refuse)
    throw ApplicationFailure.create({ type: 'CONFLICT', message: finished.refuse, nonRetryable: true, details: [{ field: 'itemData.escrow', context: {} }] });
  return { transaction: null, created: { onchainId: request.workflowId, offchainId: request.transactionId } };
}
