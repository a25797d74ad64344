/**
 * Freeze / Unfreeze with `allPositions` (SPL): more positions than fit one network transaction, so
 * the request runs one write per batch, in turn, until no position of the instrument is left to
 * change. Each batch is an ordinary write (its own transaction record and workflow) whose
 * idempotency key is the request's plus the batch number, so repeating the request with the same
 * `x-request-id` replays the same batches and answers the same.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerTransaction } from '../../db/entities';
import { findInstrumentByLookup } from '../../db/repositories/financial-instruments.repository';
import { countPositionsToFreeze } from '../../db/repositories/positions.repository';
import { LedgerError } from '../../domain/errors';
import type { TransactionResult } from '../../domain/write';
import type { SvmTransactionConfigInput } from '../codecs/common.codecs';
import type { FreezePositionItemData } from '../codecs/position.codecs';
import type { ApiDeps, Caller, LedgerContext } from '../context';
import { fromWorkflowFailure } from '../middleware';
import { runWrite } from '../writes';

/** Batches one request runs at most (20 positions each); `remainingPositions` tells the caller to repeat. */
export const MAX_FREEZE_BATCHES = 50;

export async function freezeAllPositions(
  ctx: LedgerContext,
  deps: ApiDeps,
  input: { operation: 'FREEZE_POSITION' | 'UNFREEZE_POSITION'; caller: Caller; itemData: FreezePositionItemData; svmTransactionConfig?: SvmTransactionConfigInput },
): Promise<unknown> {
  const freeze = input.operation === 'FREEZE_POSITION';
  const em = deps.orm.em.fork() as unknown as EntityManager;
  const scope = { organizationId: input.caller.organizationId, cluster: ctx.state.cluster };
  const base = ctx.get('x-request-id') || randomUUID();
  const batchKey = (batch: number) => `${base}:${batch}`;
  let instrumentId: string | undefined;
  const remaining = async () => {
    instrumentId ??= (await findInstrumentByLookup(em, scope, input.itemData.financialInstrument!, 'itemData.financialInstrument')).id;
    return countPositionsToFreeze(em.fork(), scope, instrumentId, freeze);
  };
  const svmTransactions: TransactionResult[] = [];
  for (let batch = 0; ; batch++) {
    let answer;
    try {
      answer = await runWrite(ctx, deps, { ...input, idempotencyId: batchKey(batch) });
    } catch (raw) {
      // A later batch that finds nothing left (a concurrent request took the last ones) ends the run.
      const error = fromWorkflowFailure(raw);
      if (batch > 0 && error instanceof LedgerError && error.field === 'itemData.allPositions') break;
      throw error;
    }
    if (answer.async) {
      ctx.state.status = 202;
      return { transaction: answer.transaction, svmTransactions };
    }
    if (answer.transaction) svmTransactions.push(answer.transaction);
    if (!answer.transaction?.success || batch + 1 >= MAX_FREEZE_BATCHES) break;
    // Go on while positions are left, or while an earlier run of this request went on (a replay answers the same).
    const left = await remaining();
    const ranBefore = await em.fork().count(LedgerTransaction, { organizationId: scope.organizationId, operation: input.operation, idempotencyKey: batchKey(batch + 1) });
    if (left === 0 && ranBefore === 0) break;
  }
  return { svmTransactions, remainingPositions: await remaining() };
}
