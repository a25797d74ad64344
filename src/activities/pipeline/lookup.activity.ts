/**
 * Lookup: resolves every lookup of the request to stored records and checks the rules that need
 * them. A replay of a write whose record holds a possibly-sent message (or its offchain outcome)
 * answers the resolution that message was built from: the write's own effect (an address it
 * created, a balance it moved) is never mistaken for a conflict.
 */
import { Account } from '../../db/entities';
import { maySign } from '../../db/repositories/accounts.repository';
import { hearsWrite } from '../../domain/operations/accounts/webhook-recipients.rules';
import { enforceDebitApiKeys } from '../debit-api-keys';
import type { Resolved, WriteRequest } from '../../domain/write';
import { operationHandlers } from '../operations';
import { handlerOf } from '../operations/operation-handler';
import { possiblySent, type PipelineContext } from './context';

/** What the lookup step reads of each signer's records. */
type SignerRecord = Pick<
  Account,
  | 'address'
  | 'organizationId'
  | 'managed'
  | 'status'
  | 'orgsAllowedToSignWithPrivateKey'
  | 'sharedAcrossTenants'
  | 'globalFeePayerForOrgs'
  | 'preTransactionSubmitWebhooks'
  | 'postTransactionSubmitWebhooks'
>;

export function createLookup(ctx: PipelineContext) {
  /** Idempotent; fails with NOT_FOUND, FORBIDDEN, CONFLICT or VALIDATION_ERROR before anything is sent. */
  return async function lookup(request: WriteRequest): Promise<Resolved> {
    const em = ctx.fork();
    const record = await ctx.findRecord(em, request);
    const recordedOffchain = record?.status === 'FINALIZED' && !record.signature;
    if (record?.resolved && (possiblySent(record) || recordedOffchain)) return { ...record.resolved, resumed: true };
    const handler = handlerOf(operationHandlers, request.operation);
    const resolved = await handler.lookup(em, ctx.deps, request);
    await enforceDebitApiKeys(em, request, resolved.debits);
    const signers = await em.find(
      Account,
      { cluster: request.cluster, address: { $in: resolved.signers } },
      {
        fields: [
          'address',
          'organizationId',
          'managed',
          'status',
          'orgsAllowedToSignWithPrivateKey',
          'sharedAcrossTenants',
          'globalFeePayerForOrgs',
          'preTransactionSubmitWebhooks',
          'postTransactionSubmitWebhooks',
        ],
      },
    );
    return { ...resolved, webhooks: signersWebhooks(request, resolved, signers), awaitedSigners: awaitedSigners(request, resolved, signers) };
  };
}

/**
 * Whether the webhook steps run: the handler's answer, or the webhooks of any signer's record that
 * hears the write (the source of a transfer, a position's owner, an authority, the fee payer: the
 * writer's own, or a shared account's owner's, hearsWrite), which the webhook activities then call.
 */
function signersWebhooks(request: WriteRequest, resolved: Resolved, signers: SignerRecord[]): Resolved['webhooks'] {
  const hearing = signers.filter((a) => hearsWrite(a, request));
  return {
    preSubmit: resolved.webhooks.preSubmit || hearing.some((a) => a.preTransactionSubmitWebhooks.length > 0),
    postSubmit: resolved.webhooks.postSubmit || hearing.some((a) => a.postTransactionSubmitWebhooks.length > 0),
  };
}

/**
 * The signatures the write waits for (docs/signatures.md): those the handler named (an off-platform
 * source, `autoSign: false`), and every onboarded signer none of whose records holds a key this
 * organization may use (not managed, or another tenant's not shared with it). A signer with no record
 * is a key the write itself makes (a new account's, a new mint's). The fee payer always signs here.
 */
function awaitedSigners(request: WriteRequest, resolved: Resolved, signers: SignerRecord[]): string[] {
  const awaited = new Set(resolved.awaitedSigners ?? []);
  for (const signer of resolved.signers) {
    const records = signers.filter((a) => a.address === signer);
    if (
      signer !== resolved.feePayer &&
      records.length &&
      !records.some((a) => a.status === 'ACTIVE' && maySign(a, request.organizationId, request.organizationExternalId))
    )
      awaited.add(signer);
  }
  return [...awaited];
}
