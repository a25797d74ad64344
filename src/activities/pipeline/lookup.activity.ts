/**
 * Lookup: resolves every lookup of the request to stored records and checks the rules that need
 * them. A replay of a write whose record holds a possibly-sent message (or its offchain outcome)
 * answers the resolution that message was built from: the write's own effect (an address it
 * created, a balance it moved) is never mistaken for a conflict.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../db/entities';
import type { Resolved, WriteRequest } from '../../domain/write';
import { operationHandlers } from '../operations';
import { handlerOf } from '../operations/operation-handler';
import { possiblySent, type PipelineContext } from './context';

export function createLookup(ctx: PipelineContext) {
  /** Idempotent; fails with NOT_FOUND, FORBIDDEN, CONFLICT or VALIDATION_ERROR before anything is sent. */
  return async function lookup(request: WriteRequest): Promise<Resolved> {
    const em = ctx.fork();
    const record = await ctx.findRecord(em, request);
    const recordedOffchain = record?.status === 'FINALIZED' && !record.signature;
    if (record?.resolved && (possiblySent(record) || recordedOffchain)) return { ...record.resolved, resumed: true };
    const handler = handlerOf(operationHandlers, request.operation);
    const resolved = await handler.lookup(em, ctx.deps, request);
    return { ...resolved, webhooks: await signersWebhooks(em, request, resolved) };
  };
}

/**
 * Whether the webhook steps run: the handler's answer, or any signer's own webhooks (the source of a
 * transfer, a position's owner, an authority), which the webhook activities then call.
 */
async function signersWebhooks(em: EntityManager, request: WriteRequest, resolved: Resolved): Promise<Resolved['webhooks']> {
  if (resolved.webhooks.preSubmit && resolved.webhooks.postSubmit) return resolved.webhooks;
  const signers = await em.find(Account, { organizationId: request.organizationId, cluster: request.cluster, address: { $in: resolved.signers } }, { fields: ['preTransactionSubmitWebhooks', 'postTransactionSubmitWebhooks'] });
  return {
    preSubmit: resolved.webhooks.preSubmit || signers.some((a) => a.preTransactionSubmitWebhooks.length > 0),
    postSubmit: resolved.webhooks.postSubmit || signers.some((a) => a.postTransactionSubmitWebhooks.length > 0),
  };
}
