/**
 * Lookup: resolves every lookup of the request to stored records and checks the rules that need
 * them. A replay of a write whose record holds a possibly-sent message (or its offchain outcome)
 * answers the resolution that message was built from: the write's own effect (an address it
 * created, a balance it moved) is never mistaken for a conflict.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../db/entities';
import { findAccountByLookup, maySign, scopeOf } from '../../db/repositories/accounts.repository';
import { LedgerError } from '../../domain/errors';
import { autoSignOffLookups, signedBy } from '../../domain/signers';
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
    const autoSignOff = await autoSignOffAddresses(em, request);
    return {
      ...resolved,
      webhooks: signersWebhooks(request, resolved, signers),
      awaitedSigners: awaitedSigners(request, resolved, signers, autoSignOff),
      ...(record ? {} : { recordAbsent: true }),
    };
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
 * The signatures the write waits for (docs/signatures.md, "Who signs"), each signer decided by the one
 * rule `signedBy`: those the handler named (an off-platform source), those a lookup of the request
 * says `autoSign: false` for (the fee payer and every authority included), and every onboarded signer
 * none of whose records holds a key this organization may use.
 */
function awaitedSigners(request: WriteRequest, resolved: Resolved, signers: SignerRecord[], autoSignOff: Set<string>): string[] {
  const byHandler = new Set(resolved.awaitedSigners ?? []);
  return resolved.signers.filter(
    (signer) =>
      signedBy({
        feePayer: signer === resolved.feePayer,
        autoSignOff: autoSignOff.has(signer),
        awaitedByHandler: byHandler.has(signer),
        usableRecords: signers
          .filter((a) => a.address === signer)
          .map((a) => a.status === 'ACTIVE' && maySign(a, request.organizationId, request.organizationExternalId)),
      }) === 'EXTERNAL',
  );
}

/**
 * The addresses of the accounts the request's `autoSign: false` lookups name (resolved as the handler
 * resolved them). A lookup naming no account (a position's, an instrument's, one the handler never
 * reads) signs nothing, so it is passed over: the handler already refused the lookups it needs.
 */
async function autoSignOffAddresses(em: EntityManager, request: WriteRequest): Promise<Set<string>> {
  const addresses = new Set<string>();
  for (const { field, lookup } of autoSignOffLookups(request)) {
    if (lookup.offPlatform && lookup.onchainId) {
      addresses.add(lookup.onchainId);
      continue;
    }
    try {
      addresses.add((await findAccountByLookup(em, scopeOf(request), lookup, field)).address);
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
    }
  }
  return addresses;
}
