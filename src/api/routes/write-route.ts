/**
 * A route that runs one write: the acting caller (tenancy), one `ledgerWrite` workflow, and its answer
 * (the transaction result, or `{<answer>: {onchainId, offchainId}, svmTransaction}`; 202 when it runs on).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SvmTransactionConfigInput } from '../../domain/inputs/common.inputs';
import type { ApiDeps } from '../context';
import type { Operation } from '../../domain/write';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
import { referenceAnswer, runWrite, transactionAnswer } from '../writes';

interface WriteBody {
  itemData: object;
  svmTransactionConfig?: SvmTransactionConfigInput;
  tenancyConfig?: { overrideOrganizationExternalId?: string };
}

export function writeRoute<B extends WriteBody>(
  deps: ApiDeps,
  spec: Omit<RouteSpec<B>, 'handler' | 'role' | 'write' | 'body'> & {
    /** transactionResult, or with `answer` the reference answer's codec (its type is what the handler below returns). */
    body: RouteSpec<B>['body'];
    operation: Operation;
    /** Answer `{<answer>: reference, svmTransaction}` instead of the transaction result. */
    answer?: string;
    /** The write creates a record whose offchain id is chosen here, once. */
    creates?: boolean;
  },
): RouteSpec<B> {
  const { operation, answer: name, creates, ...rest } = spec;
  return route<B, any>({
    ...rest,
    role: 'WRITE',
    write: true,
    async handler(ctx, body) {
      const caller = await actingCaller(ctx, deps, deps.orm.em.fork() as unknown as EntityManager, body.tenancyConfig);
      const answer = await runWrite(ctx, deps, {
        operation,
        caller,
        itemData: body.itemData,
        svmTransactionConfig: body.svmTransactionConfig,
        idempotencyId: (body.itemData as { idempotencyId?: string }).idempotencyId,
        newRecordId: creates ? randomUUID() : undefined,
      });
      return name ? referenceAnswer(ctx, answer, name) : transactionAnswer(ctx, answer);
    },
  });
}
