/**
 * Create Durable Nonce Accounts (spec 4.2, docs/durable-nonces.md): which fields of the accounts' payload
 * act, and the instructions of one network transaction. Pure: the lookup step supplies the new
 * addresses, the authority and the rent-exempt minimum.
 */
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { CreateDurableNonceAccountsItemData } from './durable-nonce.inputs';
import { conflict, validationError } from '../../errors';
import { checkGeneratedKeyDetails, checkPayloadFields, generatedKey, type PayloadFieldRules } from '../accounts/account-payload.rules';

/** The size of a nonce account's data (versions, state, authority, nonce, fee calculator). */
export const NONCE_ACCOUNT_SIZE = 80;

/**
 * What the payload's fields do to a nonce account (docs/durable-nonces.md): labels act on every new
 * account, `managed: true`, `alreadyOnchain: false` and `dataLength: 80` say what happens anyway;
 * the rest is refused, each a 400 naming `itemData.nonceAccount.<field>` and why.
 */
const nonceAccountFields: PayloadFieldRules = {
  managed: generatedKey('new nonce accounts get generated keys the service holds (each signs its creation)'),
  skipBlockchainExistenceVerification: 'applies to onboarding with Create Account only',
  dataLength: { why: `a nonce account is exactly ${NONCE_ACCOUNT_SIZE} bytes`, honours: (value) => value === NONCE_ACCOUNT_SIZE },
  seed: 'a nonce account gets exactly its rent-exempt minimum (more could leave it only by a nonce withdrawal, which the service does not offer)',
  tokenVersion: 'a nonce account is not a token account',
  canPayFees: 'a nonce account holds data and cannot pay fees',
  globalFeePayerForOrgs: 'a nonce account holds data and cannot pay fees',
  networkCurrencyDebitLimits: 'debit limits apply to wallet kinds only (spec 8)',
  tokenDebitLimits: 'debit limits apply to wallet kinds only (spec 8)',
  networkCurrencyDebitApiKeys: 'nothing is debited from a nonce account',
  tokenDebitApiKeys: 'nothing is debited from a nonce account',
  missingSignatureWebhooks: 'a nonce account signs only its own creation',
  preTransactionSubmitWebhooks: 'a nonce account signs only its own creation',
  postTransactionSubmitWebhooks: 'a nonce account signs only its own creation',
};

/** The request's own rules; throws VALIDATION_ERROR naming the field. */
export function validateCreateDurableNonceAccounts(item: CreateDurableNonceAccountsItemData): void {
  const f = 'itemData.nonceAccount';
  const payload = item.nonceAccount;
  checkPayloadFields(payload, nonceAccountFields, f);
  // alreadyOnchain with an onchainId is answered by the lookup: 409 when that address is on record.
  if (payload.alreadyOnchain && !payload.onchainId)
    throw validationError(
      `${f}.alreadyOnchain`,
      'this operation creates new nonce accounts; onboard an existing one with Create Account (alreadyOnchain, onchainId, type NONCE)',
    );
  checkGeneratedKeyDetails(payload.privateKeyDetails, f, 'new nonce accounts always get generated keys');
  const type = payload.offchainReferences?.type;
  if (type !== undefined && type !== 'NONCE')
    throw validationError(`${f}.offchainReferences.type`, `nonce accounts have offchain reference type NONCE, not ${type}`);
  if (payload.offchainReferences?.newAlId) throw validationError(`${f}.offchainReferences.newAlId`, 'AL IDs are generated for financial instruments only');
}

/**
 * New nonce accounts get generated keys: a given nonceAccount.onchainId is refused, CONFLICT when
 * an account of the tenant has that address (`onRecord`), VALIDATION_ERROR otherwise.
 */
export function checkNoOnchainId(onchainId: string | undefined, onRecord: boolean): void {
  if (!onchainId) return;
  const field = 'itemData.nonceAccount.onchainId';
  if (onRecord) throw conflict(field, `account ${onchainId} is already on record`);
  throw validationError(
    field,
    'new nonce accounts get generated keys and addresses; omit onchainId (onboard an existing nonce account with Create Account, alreadyOnchain and type NONCE)',
  );
}

/** An onboarded nonce authority must be ACTIVE (an off-platform one has no record). VALIDATION_ERROR naming itemData.nonceAuthority. */
export function checkNonceAuthority(authority: { address: string; status?: string }): void {
  if (authority.status !== undefined && authority.status !== 'ACTIVE')
    throw validationError('itemData.nonceAuthority', `the nonce authority ${authority.address} is ${authority.status}`);
}

/** The durable nonce record of a new nonce account: free, its nonce read from the chain once it is initialized. */
export function nonceAccountRow(
  tenant: { organizationId: string; cluster: string },
  account: { id: string; address: string },
  code: string | null,
  authority: { address: string; accountId: string | null; autoSign?: boolean },
  at: Date,
) {
  return {
    id: account.id,
    organizationId: tenant.organizationId,
    cluster: tenant.cluster,
    address: account.address,
    code,
    authorityAddress: authority.address,
    authorityAccountId: authority.accountId,
    // autoSign: false makes the authority a key the service does not sign with: the nonce is never reserved.
    authorityAutoSign: authority.autoSign !== false,
    nonceHash: null,
    isInUse: false,
    inUseByTransactionId: null,
    inUseAt: null,
    createdAt: at,
  };
}

export interface NonceAccountPlan {
  feePayer: string;
  authority: string;
  lamports: bigint;
  /** The new nonce accounts of this transaction (each signs its creation). */
  addresses: string[];
}

/** Per nonce account: create it (rent-exempt, owned by the System Program) and initialize its nonce with the authority. */
export function planNonceAccounts(plan: NonceAccountPlan): Instruction[] {
  return plan.addresses.flatMap((nonce) => [
    getCreateAccountInstruction({
      payer: createNoopSigner(address(plan.feePayer)),
      newAccount: createNoopSigner(address(nonce)),
      lamports: plan.lamports,
      space: NONCE_ACCOUNT_SIZE,
      programAddress: SYSTEM_PROGRAM_ADDRESS,
    }),
    getInitializeNonceAccountInstruction({ nonceAccount: address(nonce), nonceAuthority: address(plan.authority) }),
  ]);
}
