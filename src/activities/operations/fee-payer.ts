/** The fee payer of a write: svmTransactionConfig.feePayer when given, else the global fee payer. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SvmTransactionConfigInput } from '../../domain/inputs/common.inputs';
import { assertMaySign, findAccountByLookup } from '../../db/repositories/accounts.repository';
import { validationError } from '../../domain/errors';
import type { WriteRequest } from '../../domain/write';
import type { ActivityDeps } from '../deps';

export interface FeePayer {
  address: string;
  /** The payer's account record, when the payer is an onboarded account (not the global fee payer). */
  accountId: string | null;
  webhooks: { preSubmit: boolean; postSubmit: boolean };
}

export async function resolveFeePayer(em: EntityManager, deps: ActivityDeps, request: WriteRequest, config: SvmTransactionConfigInput): Promise<FeePayer> {
  if (!config.feePayer) return { address: deps.feePayerAddress, accountId: null, webhooks: { preSubmit: false, postSubmit: false } };
  const field = 'svmTransactionConfig.feePayer';
  const account = await findAccountByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, config.feePayer, field);
  assertMaySign(account, request.organizationId, request.organizationExternalId, field);
  if (!account.canPayFees) throw validationError(field, `account ${account.address} is not allowed to pay fees (canPayFees is false)`);
  return {
    address: account.address,
    accountId: account.id,
    webhooks: { preSubmit: account.preTransactionSubmitWebhooks.length > 0, postSubmit: account.postTransactionSubmitWebhooks.length > 0 },
  };
}
