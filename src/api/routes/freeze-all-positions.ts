/**
 * Freeze / Unfreeze with `allPositions` (SPL): one write whose workflow freezes (thaws) the
 * instrument's positions in several network transactions of at most 20 positions, at most
 * MAX_FREEZE_BATCHES of them per request. The answer lists every transaction and how many positions
 * are still left (repeat the request with a new key to go on).
 */
import { findInstrumentByLookup } from '../../db/repositories/financial-instruments.repository';
import { countPositionsToFreeze } from '../../db/repositories/positions.repository';
import type { SvmTransactionConfigInput } from '../../domain/inputs/common.inputs';
import type { FreezePositionItemData } from '../../domain/operations/positions/position.inputs';
import type { ApiDeps, Caller, LedgerContext } from '../context';
import { runWrite, type WriteInput } from '../writes';
import type { FreezeAllPositionsBody } from '../../domain/responses/position.responses';
import type { AcceptedWriteBody } from '../../domain/responses/write.responses';

export async function freezeAllPositions(
  ctx: LedgerContext,
  deps: ApiDeps,
  input: {
    operation: 'FREEZE_POSITION' | 'UNFREEZE_POSITION';
    caller: Caller;
    itemData: FreezePositionItemData;
    svmTransactionConfig?: SvmTransactionConfigInput;
  },
): Promise<FreezeAllPositionsBody | AcceptedWriteBody> {
  const answer = await runWrite(ctx, deps, input);
  if (answer.async) {
    ctx.state.status = 202;
    return { transaction: answer.transaction, svmTransactions: [] };
  }
  const em = deps.orm.em.fork();
  const scope = { organizationId: input.caller.organizationId, cluster: ctx.state.cluster };
  const instrument = await findInstrumentByLookup(em, scope, input.itemData.financialInstrument!, 'itemData.financialInstrument');
  return {
    svmTransactions: answer.transactions ?? (answer.transaction ? [answer.transaction] : []),
    remainingPositions: await countPositionsToFreeze(em, scope, instrument.id, input.operation === 'FREEZE_POSITION'),
  };
}

/** The Freeze / Unfreeze routes' `instead` hook: an `allPositions` body runs freezeAllPositions, one position the usual write. */
export const freezeAllInstead = (deps: ApiDeps, operation: 'FREEZE_POSITION' | 'UNFREEZE_POSITION') => (body: { itemData: FreezePositionItemData }) =>
  body.itemData.allPositions
    ? (ctx: LedgerContext, input: WriteInput) => freezeAllPositions(ctx, deps, { ...input, operation, itemData: body.itemData })
    : undefined;
