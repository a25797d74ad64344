/**
 * The fee payer of a write: svmTransactionConfig.feePayer when given; else the organization's own
 * fee payer (an active managed account with canPayFees whose globalFeePayerForOrgs lists the
 * organization's external id, the oldest when several do); else the service's global fee payer.
 * A named fee payer must be a key the service may sign with; looked up with `autoSign: false`, the
 * write waits for its signature (the lookup step, signedBy; docs/signatures.md).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SvmTransactionConfigInput } from '../../domain/inputs/common.inputs';
import { Account } from '../../db/entities';
import { assertMaySign, findAccountByLookup } from '../../db/repositories/accounts.repository';
import { checkCanPayFees } from '../../domain/fees';
import { signerSet, type WriteRequest } from '../../domain/write';
import { scopeOf, type OperationResolved } from './operation-handler';
import type { ActivityDeps } from '../deps';

export interface FeePayer {
  address: string;
  /** The payer's account record, when the payer is an onboarded account (not the global fee payer). */
  accountId: string | null;
  webhooks: { preSubmit: boolean; postSubmit: boolean };
}

/** A write that moves nothing under a debit limit (a rent or an authority's change): the fee payer signs first, then `signers`; pure. */
export function paidBy<Data>(feePayer: FeePayer, data: Data, ...signers: (string | readonly string[])[]): OperationResolved<Data> {
  return {
    needsTransaction: true,
    feePayer: feePayer.address,
    signers: signerSet(feePayer.address, ...signers),
    debits: [],
    webhooks: feePayer.webhooks,
    data,
  };
}

/** A write with nothing to do onchain (an offchain change, or a record already onchain): no transaction, no signers; pure. */
export function offchainOnly<Data>(feePayerAddress: string, data: Data): OperationResolved<Data> {
  return { needsTransaction: false, feePayer: feePayerAddress, signers: [], debits: [], webhooks: { preSubmit: false, postSubmit: false }, data };
}

export async function resolveFeePayer(em: EntityManager, deps: ActivityDeps, request: WriteRequest, config: SvmTransactionConfigInput): Promise<FeePayer> {
  if (!config.feePayer) {
    const orgPayer = await organizationFeePayer(em, request);
    return orgPayer ? feePayerOf(orgPayer) : { address: deps.feePayerAddress, accountId: null, webhooks: { preSubmit: false, postSubmit: false } };
  }
  const field = 'svmTransactionConfig.feePayer';
  const account = await findAccountByLookup(em, scopeOf(request), config.feePayer, field);
  assertMaySign(account, request.organizationId, request.organizationExternalId, field);
  checkCanPayFees(account, field);
  return feePayerOf(account);
}

/** The account paying fees for the organization's writes that name no fee payer (globalFeePayerForOrgs), if any. */
async function organizationFeePayer(em: EntityManager, request: WriteRequest): Promise<Account | null> {
  const [account] = await em.find(
    Account,
    { cluster: request.cluster, status: 'ACTIVE', managed: true, canPayFees: true, globalFeePayerForOrgs: { $contains: [request.organizationExternalId] } },
    { orderBy: { createdAt: 'asc', id: 'asc' }, limit: 1 },
  );
  return account ?? null;
}

function feePayerOf(account: Account): FeePayer {
  return {
    address: account.address,
    accountId: account.id,
    webhooks: { preSubmit: account.preTransactionSubmitWebhooks.length > 0, postSubmit: account.postTransactionSubmitWebhooks.length > 0 },
  };
}
